/**
 * The commands `weft examples` lists, and the shell blocks of the team-workflow and workflow-tools READMEs, run as
 * written from the folder that holds examples/ (a temporary copy of it, like the README's quick starts), on the
 * built CLI with the default home. Each completes, and the only `.weft` home is the one in that folder: none
 * appears inside an example, as one did when a command began with `cd <example>`.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../src/cli/ops/example-catalogue.js';
import { ROOT } from '../e2e/weft-cli.js';
import { fencedBlocks } from './readme-quickstarts.js';

const BIN = join(ROOT, 'bin', 'weft.js');
const COMMAND_TIMEOUT_MS = 60_000;

let work: string;
beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('these commands run the built CLI: run `npm run build` first');
  }
  work = mkdtempSync(join(tmpdir(), 'weft-catalogue-'));
  cpSync(join(ROOT, 'examples'), join(work, 'examples'), { recursive: true });
  // As in a checkout: the tools example's policy server imports the MCP SDK, a dependency of weft.
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'junction');
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs a shell script in the work folder, `weft` being the built CLI and the home the default one (./.weft). */
function runScript(text: string): Promise<{ code: number; output: string }> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), NO_COLOR: '1' };
  delete env.WEFT_HOME;
  const script = `set -e\nweft() { node ${JSON.stringify(BIN)} "$@"; }\n${text}`;
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      { cwd: work, env, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
          output: `${stdout}\n${stderr}`,
        });
      },
    );
  });
}

/** Every `.weft` folder under dir, relative to the work folder. */
function weftHomes(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.name === '.weft') found.push(relative(work, path));
    else found.push(...weftHomes(path));
  }
  return found;
}

/** The `sh` blocks of an example's README, as one script. */
function readmeScript(example: string): string {
  const readme = readFileSync(join(ROOT, 'examples', example, 'README.md'), 'utf8');
  return fencedBlocks(readme)
    .filter((block) => block.lang === 'sh')
    .map((block) => block.body)
    .join('\n');
}

describe('the commands of `weft examples`, from the folder that holds examples/', () => {
  it('team-workflow completes with the team answer, its run in the home of that folder', async () => {
    const entry = EXAMPLES.find((candidate) => candidate.name === 'team-workflow');
    const result = await runScript(entry?.command ?? 'false');
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/^run \S+: completed/m);
    expect(result.output).toMatch(/^result \(from days\):\n8$/m);
    expect(result.output).toContain(`${join(work, '.weft', 'runs')}`);
    expect(weftHomes(join(work, 'examples'))).toEqual([]);
  });

  it.each(
    EXAMPLES.filter((entry) => /^(\w+=\S+ )*weft /.test(entry.command)).map((entry) => [entry.name, entry] as const),
  )(
    '%s runs as listed',
    async (_name, entry) => {
      const result = await runScript(entry.command);
      expect(result.code, `${entry.command}\n${result.output}`).toBe(0);
      expect(weftHomes(join(work, 'examples'))).toEqual([]);
    },
    120_000,
  );

  it.each(['team-workflow', 'workflow-tools'])(
    "the %s README's commands run from there",
    async (example) => {
      const script = readmeScript(example);
      expect(script).not.toMatch(/^\s*cd\b/m);
      const result = await runScript(script);
      expect(result.code, `${script}\n${result.output}`).toBe(0);
      expect(result.output).toMatch(/^run \S+: completed/m);
      expect(weftHomes(join(work, 'examples'))).toEqual([]);
      expect(weftHomes(work)).toEqual(['.weft']);
    },
    120_000,
  );
});
