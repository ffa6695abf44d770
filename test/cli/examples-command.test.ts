/** `weft examples`: the catalogue matches the examples folder, --json, and `copy` (empty folders, --force, links). */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../src/cli/ops/example-catalogue.js';
import { examplesCopyCommand } from '../../src/cli/ops/examples-command.js';
import { createOutput } from '../../src/cli/output.js';
import { Capture, cli } from './cli-harness.js';

const ROOT = join(import.meta.dirname, '../../examples');

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'weft-examples-'));
}

describe('weft examples', () => {
  it('lists every entry of examples/ exactly once, and every listed path exists', () => {
    const listed = new Set(EXAMPLES.flatMap((entry) => entry.paths.map((path) => path.split('/')[0]!)));
    expect([...listed].sort()).toEqual(readdirSync(ROOT).sort());
    for (const entry of EXAMPLES) for (const path of entry.paths) expect(existsSync(join(ROOT, path)), path).toBe(true);
    expect(new Set(EXAMPLES.map((entry) => entry.name)).size).toBe(EXAMPLES.length);
  });

  it('prints one line per example with its command, and the same as JSON with --json', async () => {
    const text = await cli(['examples']);
    expect(text.code).toBe(0);
    for (const entry of EXAMPLES) {
      expect(text.stdout).toMatch(
        new RegExp(`^ {2}${entry.name} +${entry.shows.slice(0, 20).replace(/[().*+?]/g, '\\$&')}`, 'm'),
      );
      expect(text.stdout).toContain(`$ ${entry.command}`);
    }
    const json = await cli(['examples', '--json']);
    const document = JSON.parse(json.stdout) as { folder: string; examples: typeof EXAMPLES };
    expect(document.examples.map((entry) => entry.name)).toEqual(EXAMPLES.map((entry) => entry.name));
    expect(existsSync(join(document.folder, 'gobang', 'task.md'))).toBe(true);
  });

  it('copy keeps the layout, so the copied gobang runs from its folder as listed', async () => {
    const dir = join(scratch(), 'new-folder');
    const copied = await cli(['examples', 'copy', 'gobang', dir, '--json']);
    expect(copied.code).toBe(0);
    const document = JSON.parse(copied.stdout) as { folder: string; files: string[]; command: string };
    expect(document.files).toContain('gobang/task.md');
    expect(readFileSync(join(dir, 'gobang', 'replies.json'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'gobang', 'replies.json'), 'utf8'),
    );
    const home = scratch();
    const run = await cli([
      'run',
      join(dir, 'gobang/task.md'),
      '--model',
      `scripted:${join(dir, 'gobang/replies.json')}`,
      '--home',
      home,
    ]);
    expect(run.code).toBe(0);
  });

  it('workflow-tools brings the distillation workflows its tools file points at', async () => {
    const dir = scratch();
    expect((await cli(['examples', 'copy', 'workflow-tools', dir])).code).toBe(0);
    const call = await cli([
      'tools',
      'call',
      'basket_total',
      '--tools',
      join(dir, 'workflow-tools/tools.yaml'),
      '--args',
      '{"items": [{"sku": "MUG-02", "quantity": 2}]}',
    ]);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout.trim()).toBe('16');
  });

  it('refuses a non-empty folder unless --force, and an unknown name with the known ones', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'mine.txt'), 'keep me');
    const refused = await cli(['examples', 'copy', 'plans', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not empty.*--force/);
    expect(existsSync(join(dir, 'plans'))).toBe(false);
    const forced = await cli(['examples', 'copy', 'plans', dir, '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'mine.txt'), 'utf8')).toBe('keep me');
    expect(existsSync(join(dir, 'plans', 'diamond.json'))).toBe(true);
    const unknown = await cli(['examples', 'copy', '../src', scratch()]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no example named "\.\.\/src".*gobang/);
  });

  it.skipIf(process.platform === 'win32')('never follows a link out of the examples folder', () => {
    const root = scratch();
    const secret = join(scratch(), 'secret.txt');
    writeFileSync(secret, 'private');
    mkdirSync(join(root, 'plans'));
    writeFileSync(join(root, 'plans', 'diamond.json'), '{}');
    symlinkSync(secret, join(root, 'plans', 'leak.txt'));
    const stderr = new Capture();
    const output = createOutput(false, { stdout: new Capture(), stderr });
    const target = scratch();
    expect(() => examplesCopyCommand('plans', target, {}, output, root)).toThrow(/link out of the examples folder/);
    expect(existsSync(join(target, 'plans', 'leak.txt'))).toBe(false);
    // A link that stays inside is copied as what it points at.
    const inside = scratch();
    mkdirSync(join(inside, 'plans'));
    writeFileSync(join(inside, 'plans', 'diamond.json'), '{"a":1}');
    symlinkSync(join(inside, 'plans', 'diamond.json'), join(inside, 'plans', 'same.json'));
    symlinkSync(join(inside, 'plans'), join(inside, 'plans', 'loop'));
    const copy = scratch();
    examplesCopyCommand('plans', copy, {}, output, inside);
    expect(readFileSync(join(copy, 'plans', 'same.json'), 'utf8')).toBe('{"a":1}');
  });
});
