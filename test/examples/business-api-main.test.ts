/**
 * `npm run example:api` (examples/business-api/main.ts) as a user starts it: a second start on a port already in use
 * prints one clear line and exits non-zero instead of a stack trace; a bad --port is refused the same way.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BusinessApi, startBusinessApi } from '../../examples/business-api/business-api.js';
import { ROOT } from '../e2e/weft-cli.js';

function startMain(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'examples/business-api/main.ts', ...args],
      { cwd: ROOT, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

let running: BusinessApi;
beforeAll(async () => {
  running = await startBusinessApi({ port: 0 });
});
afterAll(async () => {
  await running.close();
});

describe('npm run example:api', () => {
  it('on a port already in use: one line naming the port, exit 1', async () => {
    const { code, stdout, stderr } = await startMain(['--port', String(running.port)]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `business API: cannot start: port ${running.port} is already in use (is the example API already running? pass --port to pick another)\n`,
    );
  });

  it('refuses a --port that is not a port number, exit 2', async () => {
    const { code, stderr } = await startMain(['--port', 'eighty']);
    expect(code).toBe(2);
    expect(stderr).toBe('--port expects a port number, got "eighty"\n');
  });
});
