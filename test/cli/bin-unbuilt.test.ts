/** `node bin/weft.js` in a clone that was not built or installed says what to run, not a stack trace. */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/weft.js', import.meta.url);

/** A folder laid out like the repository, with bin/weft.js and whatever `dist` gives. */
function checkout(dist?: string): string {
  const root = mkdtempSync(join(tmpdir(), 'weft-bin-'));
  mkdirSync(join(root, 'bin'));
  copyFileSync(BIN, join(root, 'bin', 'weft.js'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}');
  if (dist !== undefined) {
    mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
    writeFileSync(join(root, 'dist', 'cli', 'main.js'), dist);
  }
  return root;
}

function run(root: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(root, 'bin', 'weft.js'), '--version'], (error, _stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stderr });
    });
  });
}

describe('bin/weft.js before a build', () => {
  it('says the CLI is not built and what to run, exit 2, no stack trace', async () => {
    const root = checkout();
    const result = await run(root);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Weft is not built');
    expect(result.stderr).toContain('npm ci');
    expect(result.stderr).toContain('npm run build');
    expect(result.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|\n\s+at /);
  });

  it('says a dependency is missing when the build is there but node_modules is not', async () => {
    const root = checkout("import 'commander-that-is-not-installed';\nexport async function main() { return 0; }\n");
    const result = await run(root);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "a dependency is not installed (Cannot find package 'commander-that-is-not-installed'",
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('runs the built CLI', async () => {
    const root = checkout(
      'export async function main(args) { process.stderr.write(`ran ${args.join(" ")}`); return 3; }\n',
    );
    expect(await run(root)).toEqual({ code: 3, stderr: 'ran --version' });
  });
});
