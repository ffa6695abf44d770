/**
 * Sessions in one SQLite file written by several processes at once (real child processes running the sources
 * through tsx): of the processes taking a session over from the same owner exactly one wins, and their appends
 * get gap-free seq numbers with each batch contiguous. Two `weft chat --session ID` at once rely on this.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.js';

const WRITER = fileURLToPath(new URL('../fixtures/store/session-writer.ts', import.meta.url));
const PROCESSES = 4;
const BATCHES = 15;

const children: ChildProcess[] = [];
let dir: string | undefined;

afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

function startWriter(path: string, index: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, path, 's-1', String(index), String(BATCHES)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout?.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
    if (stdout.includes('ready\n')) onReady();
  });
  const ended = new Promise<{ tookOver: boolean }>((resolve, reject) => {
    child.once('exit', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as { tookOver: boolean });
      else reject(new Error(`writer ${index} ended with ${code}: ${stderr}`));
    });
  });
  // A writer that dies before it is ready fails the test through `ended` rather than hanging on `ready`.
  return { child, ready: Promise.race([ready, ended.then(() => undefined)]), ended };
}

describe('sessions in one SQLite file, several processes', () => {
  it('lets exactly one process take the session over, and keeps every batch whole and in seq order', async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-sessions-'));
    const path = join(dir, 'weft.db');
    const store = openSqliteRunStore(path);
    await store.createSession({
      sessionId: 's-1',
      procedure: 'P',
      pdlPath: '',
      model: 'sim:',
      options: {},
      owner: { pid: 1, host: 'first' },
    });
    const writers = Array.from({ length: PROCESSES }, (_, index) => startWriter(path, index));
    await Promise.all(writers.map((writer) => writer.ready));
    for (const writer of writers) writer.child.stdin?.write('go\n');
    const results = await Promise.all(writers.map((writer) => writer.ended));

    expect(results.filter((result) => result.tookOver)).toHaveLength(1);
    const winner = writers[results.findIndex((result) => result.tookOver)]?.child.pid;
    expect((await store.getSession('s-1'))?.owner).toEqual({ pid: winner, host: 'writer' });

    const events = await store.sessionEvents('s-1');
    expect(events.map((stored) => stored.seq)).toEqual(
      Array.from({ length: PROCESSES * BATCHES * 2 }, (_, index) => index + 1),
    );
    for (let index = 0; index < events.length; index += 2)
      expect(events[index + 1]?.event.type).toBe(`${events[index]?.event.type}b`);
    // Each process's batches are in its own order.
    const firsts = events.map((stored) => stored.event.type).filter((type) => !type.endsWith('b'));
    for (let writer = 0; writer < PROCESSES; writer += 1) {
      const mine = firsts.filter((type) => type.startsWith(`p${writer}-`));
      expect(mine).toEqual(Array.from({ length: BATCHES }, (_, batch) => `p${writer}-${batch}`));
    }
    await store.close();
  }, 120_000);
});
