/**
 * What users read cites no tracker issue numbers, no private spec sections and no folder outside the repository:
 * a user's clone has none of them. Covers the sources, docs, README, scripts, examples, benches, tests and web
 * pages, and the help of every command as `weft` prints it.
 */
import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/cli-harness.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** A tracker issue by number (one or several, with or without #), a spec section, a folder beside the repository. */
const FORBIDDEN = [/\bissues? (?:#|\d)/i, /\bSPEC §/, new RegExp(['\\.\\.', 'shared'].join('/'))];
const ROOTS = ['src', 'docs', 'README.md', 'scripts', 'examples', 'bench', 'test', 'web'];
const TEXT = /\.(?:ts|tsx|mts|mjs|js|md|ya?ml|pdl|html|css)$/;
const SKIPPED = new Set(['node_modules', 'dist']);

function filesUnder(path: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return TEXT.test(path) ? [path] : [];
  }
  return entries.flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const child = join(path, entry.name);
    return entry.isDirectory() ? filesUnder(child) : TEXT.test(entry.name) ? [child] : [];
  });
}

/** `file:line: text` for every line that matches a forbidden pattern. */
function offendingLines(name: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      FORBIDDEN.some((pattern) => pattern.test(line)) ? [`${name}:${index + 1}: ${line.trim()}`] : [],
    );
}

/** The subcommand names in a help text's "Commands:" list (`help` left out). */
/** The commands a help lists: under `Commands:` and under the group headings of `weft --help` (not options, not the example). */
function subcommands(help: string): string[] {
  const blocks = help
    .split(/\n(?=\S[^\n]*:\n)/)
    .filter((block) => !/^(Usage|Options|Arguments|Examples?):/.test(block));
  return blocks
    .flatMap((block) => [...block.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((match) => match[1] ?? ''))
    .filter((name) => name !== 'help');
}

describe('no issue numbers, spec sections or outside folders in what users read', () => {
  it('the patterns catch what they are meant to catch', () => {
    const caught = (line: string) => offendingLines('x', line).length > 0;
    // Samples are put together from parts, so that this file does not match its own scan.
    const word = (name: string) => name.replace('_', '');
    expect(caught(`Tools (${word('iss_ue')} 12): http tools`)).toBe(true);
    expect(caught(`business service (${word('iss_ues')} 12 and 13)`)).toBe(true);
    expect(caught(`${word('Iss_ue')} #3 says`)).toBe(true);
    expect(caught(`implements FlowAgent (${word('SP_EC')} §4)`)).toBe(true);
    expect(caught(`data in ${['..', 'shared'].join('/')}/data`)).toBe(true);
    expect(caught('result.issues.map((issue) => issue.line)')).toBe(false);
    expect(caught('DyLAN §3.4 as the paper computes it')).toBe(false);
  });

  it('no file in the repository cites them', () => {
    const files = ROOTS.flatMap((root) => filesUnder(join(REPO, root)));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => offendingLines(relative(REPO, file), readFileSync(file, 'utf8')));
    expect(found).toEqual([]);
  });

  it('no command help cites them', async () => {
    const found: string[] = [];
    const queue: string[][] = [[]];
    let visited = 0;
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      const result = await cli([...path, '--help']);
      expect(result.code, `weft ${path.join(' ')} --help`).toBe(0);
      visited += 1;
      found.push(...offendingLines(`weft ${path.join(' ')} --help`.replace('  ', ' '), result.stdout));
      for (const name of subcommands(result.stdout)) queue.push([...path, name]);
    }
    expect(visited).toBeGreaterThan(20);
    expect(found).toEqual([]);
  });
});
