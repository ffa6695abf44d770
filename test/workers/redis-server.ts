/**
 * A Redis for the distributed tests: WEFT_TEST_REDIS_URL when set (CI), else our own redis-server on a free
 * port of 127.0.0.1, stopped afterwards. `skipReason` says why there is none.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestRedis {
  readonly url: string | undefined;
  readonly skipReason: string | undefined;
  stop(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startTestRedis(): Promise<TestRedis> {
  const given = process.env['WEFT_TEST_REDIS_URL'];
  if (given) return { url: given, skipReason: undefined, stop: () => {} };
  const port = await freePort();
  const pidFile = join(tmpdir(), `weft-test-redis-${port}.pid`);
  const started = spawnSync(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'yes',
      '--pidfile',
      pidFile,
    ],
    { encoding: 'utf8' },
  );
  if (started.error || started.status !== 0) {
    const reason = `redis-server could not start: ${started.error?.message ?? started.stderr.trim() ?? `exit ${started.status}`}`;
    console.warn(`skipping distributed tests: ${reason}`);
    return { url: undefined, skipReason: reason, stop: () => {} };
  }
  for (let i = 0; i < 100; i++) {
    if (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() === 'PONG') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    skipReason: undefined,
    stop() {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
      } catch {
        /* already gone */
      }
      rmSync(pidFile, { force: true });
    },
  };
}
