/**
 * `weft examples`: the catalogue matches the examples folder and its commands name files that exist from the folder
 * the listing says they run from, --json, and `copy` (empty folders, --force, links).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../src/cli/ops/example-catalogue.js';
import { examplesCopyCommand } from '../../src/cli/ops/examples-command.js';
import { createOutput } from '../../src/cli/output.js';
import { Capture, cli } from './cli-harness.js';

const ROOT = join(import.meta.dirname, '../../examples');
/** The folder the listing says the commands run from: the one that holds examples/. */
const RUN_FROM = dirname(ROOT);

/**
 * The files a command names: the pieces of its words (split at `:`, `=` and `,`) that have a `/` or an extension,
 * URLs and the note in parentheses left out.
 */
function namedPaths(command: string): string[] {
  const words = command.replace(/\(.*$/, '').split(/\s+/);
  return words
    .filter((word) => !word.includes('://'))
    .flatMap((word) => word.replace(/["']/g, '').split(/[:=,]/))
    .filter((piece) => piece.includes('/') || /\.(md|json|jsonl|ya?ml|ts|mjs)$/.test(piece));
}

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

  it('names in each command only files that exist from the folder that holds examples/, with no cd', () => {
    const scripts = (JSON.parse(readFileSync(join(RUN_FROM, 'package.json'), 'utf8')) as { scripts: object }).scripts;
    for (const entry of EXAMPLES) {
      // A `cd` would make the run's .weft home a second one inside the example.
      expect(entry.command, entry.name).not.toMatch(/\bcd\b/);
      const npmScript = /^npm run (\S+)/.exec(entry.command)?.[1];
      if (npmScript) {
        expect(Object.keys(scripts), entry.name).toContain(npmScript);
        continue;
      }
      const paths = namedPaths(entry.command);
      expect(paths.length, entry.name).toBeGreaterThan(0);
      for (const path of paths) expect(existsSync(join(RUN_FROM, path)), `${entry.name}: ${path}`).toBe(true);
    }
    // The check itself: a command written as run from inside examples/ names files that are not there.
    expect(namedPaths('weft run gobang/task.md --model scripted:gobang/replies.json')).toEqual([
      'gobang/task.md',
      'gobang/replies.json',
    ]);
    expect(existsSync(join(RUN_FROM, 'gobang/task.md'))).toBe(false);
    expect(namedPaths('weft run --plan plan.json --model "sim:answers=teams/x.jsonl"')).toEqual([
      'plan.json',
      'teams/x.jsonl',
    ]);
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
    const document = JSON.parse(json.stdout) as { folder: string; runFrom: string; examples: typeof EXAMPLES };
    expect(document.examples.map((entry) => entry.name)).toEqual(EXAMPLES.map((entry) => entry.name));
    expect(existsSync(join(document.folder, 'gobang', 'task.md'))).toBe(true);
    expect(existsSync(join(document.runFrom, 'examples', 'gobang', 'task.md'))).toBe(true);
    expect(text.stdout).toContain(`commands run from ${document.runFrom},`);
  });

  it('copy keeps the layout, so the copied gobang runs from its folder as listed', async () => {
    const dir = join(scratch(), 'new-folder');
    const copied = await cli(['examples', 'copy', 'gobang', dir, '--json']);
    expect(copied.code).toBe(0);
    const document = JSON.parse(copied.stdout) as { folder: string; files: string[]; command: string };
    expect(document.files).toContain('examples/gobang/task.md');
    expect(document.command).toBe(EXAMPLES.find((entry) => entry.name === 'gobang')?.command);
    expect(readFileSync(join(dir, 'examples', 'gobang', 'replies.json'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'gobang', 'replies.json'), 'utf8'),
    );
    // The listed command, its paths taken from the copy's folder.
    const [, ...args] = document.command.split(' ');
    const fromCopy = args.map((arg) =>
      arg.replace(/^(scripted:)?(examples\/.*)$/, (_, prefix = '', path) => prefix + join(dir, path)),
    );
    const run = await cli([...fromCopy, '--home', scratch()]);
    expect(run.code, run.stderr).toBe(0);
  });

  it('workflow-tools brings the distillation workflows its tools file points at', async () => {
    const dir = scratch();
    expect((await cli(['examples', 'copy', 'workflow-tools', dir])).code).toBe(0);
    const call = await cli([
      'tools',
      'call',
      'basket_total',
      '--tools',
      join(dir, 'examples/workflow-tools/tools.yaml'),
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
    expect(existsSync(join(dir, 'examples'))).toBe(false);
    const forced = await cli(['examples', 'copy', 'plans', dir, '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'mine.txt'), 'utf8')).toBe('keep me');
    expect(existsSync(join(dir, 'examples', 'plans', 'diamond.json'))).toBe(true);
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
    expect(existsSync(join(target, 'examples', 'plans', 'leak.txt'))).toBe(false);
    // A link that stays inside is copied as what it points at.
    const inside = scratch();
    mkdirSync(join(inside, 'plans'));
    writeFileSync(join(inside, 'plans', 'diamond.json'), '{"a":1}');
    symlinkSync(join(inside, 'plans', 'diamond.json'), join(inside, 'plans', 'same.json'));
    symlinkSync(join(inside, 'plans'), join(inside, 'plans', 'loop'));
    const copy = scratch();
    examplesCopyCommand('plans', copy, {}, output, inside);
    expect(readFileSync(join(copy, 'examples', 'plans', 'same.json'), 'utf8')).toBe('{"a":1}');
  });
});
