import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkArtifactPath, writeArtifacts } from '../../src/run/artifacts.js';
import { extractArtifacts } from '../../src/run/extract-artifacts.js';

const fence = '```';

describe('extractArtifacts', () => {
  it.each([
    ['path= attribute', `${fence}html path=index.html\n<p>hi</p>\n${fence}`, 'index.html', 'html'],
    ['quoted title=', `${fence}js title="src/game.js"\nlet a = 1;\n${fence}`, 'src/game.js', 'js'],
    ['single-quoted file=', `${fence}python file='tools/run.py'\nprint(1)\n${fence}`, 'tools/run.py', 'python'],
    ['filename= before the language', `${fence} filename=app.css css\nbody {}\n${fence}`, 'app.css', undefined],
    ['language:path', `${fence}js:src/app.js\nx()\n${fence}`, 'src/app.js', 'js'],
    ['bare path info', `${fence}src/app.js\nx()\n${fence}`, 'src/app.js', undefined],
    ['File: line', `File: src/app.js\n${fence}js\nx()\n${fence}`, 'src/app.js', 'js'],
    ['bold keyword', `**File:** src/app.js\n${fence}js\nx()\n${fence}`, 'src/app.js', 'js'],
    ['bold whole keyword line', `**Filename: src/app.js**\n${fence}js\nx()\n${fence}`, 'src/app.js', 'js'],
    ['bold path', `**src/app.js**\n${fence}js\nx()\n${fence}`, 'src/app.js', 'js'],
    ['bold path with colon and blank line', `**index.html:**\n\n${fence}html\n<p></p>\n${fence}`, 'index.html', 'html'],
    ['backticked path', `\`styles/main.css\`\n${fence}css\nbody {}\n${fence}`, 'styles/main.css', 'css'],
    ['heading path', `### src/board.ts\n${fence}ts\nexport {};\n${fence}`, 'src/board.ts', 'ts'],
    ['heading keyword', `## File: README.md\n${fence}markdown\n# Hi\n${fence}`, 'README.md', 'markdown'],
    ['// file: comment before', `// file: x.js\n${fence}js\nx()\n${fence}`, 'x.js', 'js'],
    ['# file: comment before', `# file: run.py\n${fence}python\nrun()\n${fence}`, 'run.py', 'python'],
    ['<!-- file: --> before', `<!-- file: page.html -->\n${fence}html\n<p></p>\n${fence}`, 'page.html', 'html'],
    ['plain path line', `index.html\n${fence}html\n<p></p>\n${fence}`, 'index.html', 'html'],
    ['keyword without extension', `File: Makefile\n${fence}make\nall:\n${fence}`, 'Makefile', 'make'],
    ['leading ./ dropped', `${fence}js path=./src/a.js\nx()\n${fence}`, 'src/a.js', 'js'],
    ['tilde fence', `~~~js path=t.js\nx()\n~~~`, 't.js', 'js'],
  ])('finds the path from a %s', (_label, text, path, language) => {
    const found = extractArtifacts(text);
    expect(found).toHaveLength(1);
    expect(found[0]?.path).toBe(path);
    expect(found[0]?.language).toBe(language);
  });

  it('reads a keyword comment on the first line inside the block and keeps it in the content', () => {
    const found = extractArtifacts(`${fence}js\n// file: src/main.js\nmain();\n${fence}`);
    expect(found).toEqual([{ path: 'src/main.js', content: '// file: src/main.js\nmain();\n', language: 'js' }]);
  });

  it('returns the exact content with a final newline, several files in order', () => {
    const text = [
      'Here is the game.',
      '',
      `${fence}html path=index.html`,
      '<!doctype html>',
      '  <script src="game.js"></script>',
      '',
      fence,
      '',
      '**game.js**',
      `${fence}js`,
      'const board = [];',
      fence,
      'Done.',
    ].join('\r\n');
    expect(extractArtifacts(text)).toEqual([
      { path: 'index.html', content: '<!doctype html>\n  <script src="game.js"></script>\n\n', language: 'html' },
      { path: 'game.js', content: 'const board = [];\n', language: 'js' },
    ]);
  });

  it('ignores blocks without a path and prose lines that only mention files', () => {
    const text = [
      `${fence}js`,
      'example();',
      fence,
      'Here is the code for app.js:',
      `${fence}js`,
      'app();',
      fence,
      'Step 2.',
      `${fence}bash`,
      'npm test',
      fence,
    ].join('\n');
    expect(extractArtifacts(text)).toEqual([]);
  });

  it('never takes a label from inside the previous block', () => {
    const text = [`${fence}md path=notes.md`, '**secret.js**', fence, `${fence}js`, 'x()', fence].join('\n');
    expect(extractArtifacts(text).map((artifact) => artifact.path)).toEqual(['notes.md']);
  });

  it('keeps inner fences of a longer fence as content', () => {
    const text = [
      `${'`'.repeat(4)}markdown path=README.md`,
      '# Use',
      `${fence}sh`,
      'weft run x',
      fence,
      '`'.repeat(4),
    ].join('\n');
    expect(extractArtifacts(text)).toEqual([
      { path: 'README.md', content: `# Use\n${fence}sh\nweft run x\n${fence}\n`, language: 'markdown' },
    ]);
  });

  it('strips the opening fence indentation from content lines', () => {
    const text = `  ${fence}py path=a.py\n  if x:\n      y()\n  ${fence}`;
    expect(extractArtifacts(text)[0]?.content).toBe('if x:\n    y()\n');
  });

  it('skips a block whose closing fence is missing (a truncated reply)', () => {
    const text = `${fence}js path=done.js\nok()\n${fence}\n${fence}js path=cut.js\nfunction half(`;
    expect(extractArtifacts(text).map((artifact) => artifact.path)).toEqual(['done.js']);
  });

  it('lets the last block win when two name the same path', () => {
    const text = `${fence}js path=a.js\nfirst()\n${fence}\n${fence}js path=b.js\nb()\n${fence}\n${fence}js path=./a.js\nsecond()\n${fence}`;
    expect(extractArtifacts(text).map((artifact) => [artifact.path, artifact.content])).toEqual([
      ['b.js', 'b()\n'],
      ['a.js', 'second()\n'],
    ]);
  });

  it('passes unsafe paths through unchanged for the writer to refuse', () => {
    const text = `${fence}sh path=../../etc/cron.d/x\nrm -rf /\n${fence}\nFile: /etc/passwd\n${fence}\nroot\n${fence}`;
    expect(extractArtifacts(text).map((artifact) => artifact.path)).toEqual(['../../etc/cron.d/x', '/etc/passwd']);
  });
});

describe('checkArtifactPath', () => {
  it.each([
    ['a/../b.js', ['b.js']],
    ['./src//app.js', ['src', 'app.js']],
    ['src\\win.js', ['src', 'win.js']],
  ])('normalises %j', (path, segments) => {
    expect(checkArtifactPath(path)).toEqual({ segments });
  });

  it.each(['../x', '/etc/passwd', 'a/../../x', '..\\x', 'C:\\x', 'C:x', '\\\\server\\share', 'a\0b', '', '.', 'a/..'])(
    'refuses %j',
    (path) => {
      expect(checkArtifactPath(path)).toHaveProperty('reason');
    },
  );
});

describe('writeArtifacts', () => {
  let base: string;
  let dir: string;
  let outside: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'weft-artifacts-'));
    dir = join(base, 'runs', 'r1', 'artifacts');
    outside = join(base, 'outside');
    await mkdir(outside);
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('writes files under the folder, creating it and subfolders, and reports sizes', async () => {
    const result = await writeArtifacts(dir, [
      { path: 'index.html', content: '<p>é</p>\n' },
      { path: 'src/lib/game.js', content: 'x()\n' },
      { path: 'a/../b.txt', content: 'b' },
    ]);
    expect(result.refused).toEqual([]);
    expect(result.written).toEqual([
      { path: 'index.html', bytes: 10 },
      { path: 'src/lib/game.js', bytes: 4 },
      { path: 'b.txt', bytes: 1 },
    ]);
    expect(await readFile(join(dir, 'index.html'), 'utf8')).toBe('<p>é</p>\n');
    expect(await readFile(join(dir, 'src', 'lib', 'game.js'), 'utf8')).toBe('x()\n');
    expect(await readFile(join(dir, 'b.txt'), 'utf8')).toBe('b');
  });

  it('overwrites an earlier version of the same file', async () => {
    await writeArtifacts(dir, [{ path: 'a.js', content: 'old old old' }]);
    await writeArtifacts(dir, [{ path: 'a.js', content: 'new' }]);
    expect(await readFile(join(dir, 'a.js'), 'utf8')).toBe('new');
  });

  it.each(['../x', '/etc/passwd', 'a/../../x', '../../outside/x', '..\\x', 'a\0b', ''])(
    'refuses %j and writes nothing outside',
    async (path) => {
      const result = await writeArtifacts(dir, [
        { path, content: 'pwned' },
        { path: 'ok.txt', content: 'fine' },
      ]);
      expect(result.refused).toEqual([{ path, reason: expect.any(String) }]);
      expect(result.written).toEqual([{ path: 'ok.txt', bytes: 4 }]);
      expect(await readdir(dir)).toEqual(['ok.txt']);
      expect(await readdir(join(base, 'runs', 'r1'))).toEqual(['artifacts']);
      expect(await readdir(outside)).toEqual([]);
    },
  );

  it('refuses a path through a symlinked folder that points outside', async () => {
    await mkdir(dir, { recursive: true });
    await symlink(outside, join(dir, 'link'));
    const result = await writeArtifacts(dir, [
      { path: 'link/x.txt', content: 'pwned' },
      { path: 'link/deeper/y.txt', content: 'pwned' },
    ]);
    expect(result.written).toEqual([]);
    expect(result.refused.map((refusal) => refusal.path)).toEqual(['link/x.txt', 'link/deeper/y.txt']);
    expect(result.refused[0]?.reason).toMatch(/symlink/);
    expect(await readdir(outside)).toEqual([]);
  });

  it('refuses to write through a symlinked file that points outside, leaving the target intact', async () => {
    await mkdir(dir, { recursive: true });
    const target = join(outside, 'secret.txt');
    await writeFile(target, 'secret');
    await symlink(target, join(dir, 'notes.txt'));
    await symlink(join(outside, 'missing.txt'), join(dir, 'dangling.txt'));
    const result = await writeArtifacts(dir, [
      { path: 'notes.txt', content: 'pwned' },
      { path: 'dangling.txt', content: 'pwned' },
    ]);
    expect(result.written).toEqual([]);
    expect(result.refused.map((refusal) => refusal.path)).toEqual(['notes.txt', 'dangling.txt']);
    expect(await readFile(target, 'utf8')).toBe('secret');
    expect(existsSync(join(outside, 'missing.txt'))).toBe(false);
  });

  it('follows a symlink that stays inside the folder', async () => {
    await mkdir(join(dir, 'real'), { recursive: true });
    await symlink(join(dir, 'real'), join(dir, 'alias'));
    const result = await writeArtifacts(dir, [{ path: 'alias/x.txt', content: 'in' }]);
    expect(result.refused).toEqual([]);
    expect(await readFile(join(dir, 'real', 'x.txt'), 'utf8')).toBe('in');
  });

  it('works when the artifact folder itself is reached through a symlink', async () => {
    const real = join(base, 'real-artifacts');
    await mkdir(real);
    await mkdir(join(base, 'runs', 'r1'), { recursive: true });
    await symlink(real, dir);
    const result = await writeArtifacts(dir, [{ path: 'a/b.txt', content: 'ok' }]);
    expect(result).toEqual({ written: [{ path: 'a/b.txt', bytes: 2 }], refused: [] });
    expect(await readFile(join(real, 'a', 'b.txt'), 'utf8')).toBe('ok');
  });

  it('reports a file in the way of a folder, or a folder in the way of a file, and carries on', async () => {
    const result = await writeArtifacts(dir, [
      { path: 'src', content: 'a file named src' },
      { path: 'src/app.js', content: 'x' },
      { path: 'lib/a.js', content: 'a' },
      { path: 'lib', content: 'b' },
      { path: 'last.txt', content: 'z' },
    ]);
    expect(result.written.map((file) => file.path)).toEqual(['src', 'lib/a.js', 'last.txt']);
    expect(result.refused.map((refusal) => refusal.path)).toEqual(['src/app.js', 'lib']);
    expect(await readFile(join(dir, 'src'), 'utf8')).toBe('a file named src');
  });

  it('writes the files extracted from an agent reply end to end', async () => {
    const reply = `**index.html**\n${fence}html\n<canvas></canvas>\n${fence}\n${fence}js path=../escape.js\nbad()\n${fence}`;
    const result = await writeArtifacts(dir, extractArtifacts(reply));
    expect(result.written).toEqual([{ path: 'index.html', bytes: 18 }]);
    expect(result.refused).toEqual([{ path: '../escape.js', reason: expect.stringContaining('..') }]);
    expect(existsSync(join(dir, '..', 'escape.js'))).toBe(false);
  });
});
