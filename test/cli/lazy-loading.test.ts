/**
 * Start-up loads what it uses: `weft --version`, `weft runs` on an empty home and importing the
 * library load neither provider SDK nor a store driver; they load on first use. Checked by the packages a child
 * process resolves (test/fixtures/load-log), not by time.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REGISTER = fileURLToPath(new URL('../fixtures/load-log/register.mjs', import.meta.url));
const REQUIRE_HOOK = fileURLToPath(new URL('../fixtures/load-log/require-hook.cjs', import.meta.url));
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
/** What tsx itself loads to run the sources. */
const TOOLING = new Set(['tsx', 'esbuild']);
const HEAVY = ['openai', '@anthropic-ai/sdk', 'better-sqlite3', 'pg', 'bullmq', 'ioredis', 'node-llama-cpp'];
const scratch = mkdtempSync(join(tmpdir(), 'weft-load-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let runs = 0;
/** The packages (bare specifiers, by name) a `node` child resolves, with the sources run through tsx. */
function packagesLoaded(args: readonly string[], cwd = ROOT): Promise<{ packages: Set<string>; stdout: string }> {
  const log = join(scratch, `load-${(runs += 1)}.log`);
  writeFileSync(log, '');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--require', REQUIRE_HOOK, '--import', 'tsx', '--import', REGISTER, ...args],
      { cwd, env: { ...process.env, WEFT_LOAD_LOG: log, WEFT_HOME: '' } },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        const names = readFileSync(log, 'utf8').split('\n').filter(Boolean);
        // `openai/resources/x` is the package `openai`; `@scope/name/x` is `@scope/name`.
        resolve({
          packages: new Set(
            names.map((name) =>
              name
                .split('/')
                .slice(0, name.startsWith('@') ? 2 : 1)
                .join('/'),
            ),
          ),
          stdout,
        });
      },
    );
  });
}

describe('start-up loads only what it uses', () => {
  it('the log sees a package loaded by import and one loaded by require (the checks can fail)', async () => {
    const { packages } = await packagesLoaded([
      '-e',
      `await import(${JSON.stringify(join(ROOT, 'src/llm/providers/openai-compatible.ts'))})`,
    ]);
    expect(packages).toContain('openai');
    const viaRequire = await packagesLoaded([
      '-e',
      `(await import(${JSON.stringify(join(ROOT, 'src/text/yaml.ts'))})).yaml()`,
    ]);
    expect(viaRequire.packages).toContain('yaml');
  });

  it('weft --version loads the command line parser and nothing else; --help adds weft/core for the policy names', async () => {
    const version = await packagesLoaded([MAIN, '--version']);
    expect(version.stdout).not.toBe('');
    expect([...version.packages].filter((name) => !TOOLING.has(name))).toEqual(['commander']);
    // `--strategy`'s help lists the registered update policies, which come from weft/core (src/core.ts); core's
    // model wrappers bring p-queue (and its two dependencies). No SDK, store driver, zod or yaml.
    const LIMITER = ['p-queue', 'eventemitter3', 'p-timeout'];
    const help = await packagesLoaded([MAIN, '--help']);
    expect(help.stdout).not.toBe('');
    expect([...help.packages].filter((name) => !TOOLING.has(name) && !LIMITER.includes(name))).toEqual(['commander']);
  });

  it('weft run --help still lists every option of the command', async () => {
    const { packages, stdout } = await packagesLoaded([MAIN, 'run', '--help']);
    for (const option of ['--plan', '--strategy', '--max-cost', '--workers', '--model', '--store'])
      expect(stdout).toContain(option);
    for (const name of HEAVY) expect(packages).not.toContain(name);
  });

  it('weft runs on an empty home loads no SDK, no store driver and no config parser', async () => {
    const home = mkdtempSync(join(scratch, 'home-'));
    const { packages, stdout } = await packagesLoaded([MAIN, 'runs', '--home', home]);
    expect(stdout).toContain('no runs');
    for (const name of [...HEAVY, 'zod', 'yaml']) expect(packages).not.toContain(name);
  });

  it('importing the library loads no provider SDK and no store driver', async () => {
    const { packages } = await packagesLoaded(['-e', `await import(${JSON.stringify(join(ROOT, 'src/index.ts'))})`]);
    expect(packages.size).toBeGreaterThan(0);
    for (const name of [...HEAVY, 'yaml']) expect(packages).not.toContain(name);
  });

  it('importing weft/test does not load vitest (an optional peer: the suites take the test functions)', async () => {
    const { packages } = await packagesLoaded(['-e', `await import(${JSON.stringify(join(ROOT, 'src/test.ts'))})`]);
    expect(packages.size).toBeGreaterThan(0);
    for (const name of ['vitest', ...HEAVY]) expect(packages).not.toContain(name);
  });
});
