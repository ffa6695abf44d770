/**
 * Traces saved into one SQLite file by several processes at once (real child processes running the sources through
 * tsx), as a suite solving many instances in parallel would: every trace is kept, and of the processes saving one
 * id, exactly one succeeds and the others get the duplicate-id error.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.js';

const WRITER = fileURLToPath(new URL('../fixtures/store/trace-writer.ts', import.meta.url));
const PROCESSES = 3;
const COUNT = 25;

const children: ChildProcess[] = [];
let dir: string | undefined;

afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

function startWriter(path: string, index: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, path, String(index + 1), String(COUNT)], {
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
  const ended = new Promise<{ saved: number; sharedSaved: boolean }>((resolve, reject) => {
    child.once('exit', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as { saved: number; sharedSaved: boolean });
      else reject(new Error(`writer ${index} ended with ${code}: ${stderr}`));
    });
  });
  return { child, ready: Promise.race([ready, ended.then(() => undefined)]), ended };
}

describe('traces in one SQLite file, several processes', () => {
  it('keeps every trace, and exactly one process saves a shared id', async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-traces-'));
    const path = join(dir, 'weft.db');
    await openSqliteRunStore(path).close();
    const writers = Array.from({ length: PROCESSES }, (_, index) => startWriter(path, index));
    await Promise.all(writers.map((writer) => writer.ready));
    for (const writer of writers) writer.child.stdin?.write('go\n');
    const results = await Promise.all(writers.map((writer) => writer.ended));
    expect(results.map((result) => result.saved)).toEqual(Array(PROCESSES).fill(COUNT));
    expect(results.filter((result) => result.sharedSaved)).toHaveLength(1);
    const store = openSqliteRunStore(path);
    const traces = await store.listTraces();
    await store.close();
    expect(traces).toHaveLength(PROCESSES * COUNT + 1);
    expect(new Set(traces.map((trace) => trace.traceId)).size).toBe(traces.length);
    for (let index = 1; index <= PROCESSES; index += 1)
      expect(traces.filter((trace) => trace.taskKey === `w${index}`).length).toBeGreaterThanOrEqual(COUNT);
  }, 30_000);
});
