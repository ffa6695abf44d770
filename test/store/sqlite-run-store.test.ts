import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import {
  openSqliteRunStore,
  SQLITE_APPLICATION_ID,
  SQLITE_SCHEMA_VERSION,
  type SqliteRunStore,
} from '../../src/store/sqlite-run-store.js';
import type { EventRecord } from '../../src/store/run-store.js';
import { describeRunStore } from './describe-run-store.js';

describeRunStore('sqlite', {
  async fresh() {
    const dir = await mkdtemp(join(tmpdir(), 'weft-store-'));
    const path = join(dir, 'weft.db');
    return {
      open: async (options) => openSqliteRunStore(path, options),
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  },
  openFile: async (path) => openSqliteRunStore(path),
});

function openError(path: string, options?: Parameters<typeof openSqliteRunStore>[1]): WeftError {
  try {
    openSqliteRunStore(path, options).close();
  } catch (error) {
    expect(error).toBeInstanceOf(WeftError);
    return error as WeftError;
  }
  throw new Error('expected openSqliteRunStore to fail');
}

describe('openSqliteRunStore', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-sqlite-'));
    path = join(dir, 'weft.db');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A store with a run, many events and a blob, closed again. */
  async function populated(): Promise<void> {
    const store = openSqliteRunStore(path);
    await store.createRun({ runId: 'r1', task: 't', model: 'sim:seed=1', options: {} });
    const events: EventRecord[] = Array.from(
      { length: 2000 },
      (_, index) => ({ type: 'task-start', at: index, taskId: `t${index}`, note: 'n'.repeat(100) }) as EventRecord,
    );
    await store.appendEvents('r1', events);
    await store.appendEvents('r1', [{ type: 'task-end', at: 1, output: 'o'.repeat(10_000) } as EventRecord]);
    await store.close();
  }

  it('creates missing parent folders, tags the file and uses WAL mode', async () => {
    const nested = join(dir, 'a', 'b', 'weft.db');
    const store = openSqliteRunStore(nested);
    expect(store.path).toBe(nested);
    await store.createRun({ runId: 'r1', task: 't', model: 'm', options: {} });
    const raw = new Database(nested, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
      expect(raw.pragma('application_id', { simple: true })).toBe(SQLITE_APPLICATION_ID);
      expect(raw.prepare('SELECT run_id FROM runs').all()).toEqual([{ run_id: 'r1' }]);
    } finally {
      raw.close();
      await store.close();
    }
  });

  it('opens an existing empty file as a new store', async () => {
    await writeFile(path, '');
    const store = openSqliteRunStore(path);
    await store.createRun({ runId: 'r1', task: 't', model: 'm', options: {} });
    expect((await store.listRuns()).map((run) => run.runId)).toEqual(['r1']);
    await store.close();
  });

  it('stores a repeated large output once, so the file does not grow per copy', async () => {
    const store = openSqliteRunStore(path);
    await store.createRun({ runId: 'r1', task: 't', model: 'm', options: {} });
    const output = Array.from({ length: 5000 }, (_, index) => `line ${index} of the generated game\n`).join(''); // ~150 KB
    for (let attempt = 0; attempt < 30; attempt += 1) {
      await store.appendEvents('r1', [{ type: 'task-end', at: attempt, output } as EventRecord]);
    }
    await store.close();
    const size = (await stat(path)).size;
    expect(size).toBeLessThan(2 * Buffer.byteLength(output));
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.prepare('SELECT count(*) AS n FROM blobs').get()).toEqual({ n: 1 });
      const longest = raw.prepare('SELECT max(length(data)) AS n FROM events').get() as { n: number };
      expect(longest.n).toBeLessThan(200);
    } finally {
      raw.close();
    }
  });

  it('refuses a newer schema with a clear error and leaves the file untouched', async () => {
    await populated();
    const raw = new Database(path);
    raw.pragma('user_version = 99');
    raw.close();
    const before = await readFile(path);
    const error = openError(path);
    expect(error.code).toBe('STORE');
    expect(error.message).toContain('schema version 99');
    expect(error.message).toContain(`up to ${SQLITE_SCHEMA_VERSION}`);
    expect((await readFile(path)).equals(before)).toBe(true);
  });

  it("refuses someone else's SQLite database without adding tables to it", async () => {
    const raw = new Database(path);
    raw.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
    raw.close();
    const before = await readFile(path);
    const error = openError(path);
    expect(error.code).toBe('STORE');
    expect(error.message).toContain('is not a Weft database or is corrupted');
    expect((await readFile(path)).equals(before)).toBe(true);
    expect(await readdir(dir)).toEqual(['weft.db']);
  });

  it('detects damaged pages in a Weft database and leaves the file and folder as they were', async () => {
    await populated();
    const bytes = await readFile(path);
    expect(bytes.length).toBeGreaterThan(4096 * 8);
    for (let offset = 4096 * 5; offset < 4096 * 5 + 400; offset += 1) bytes[offset] = 0xff;
    await writeFile(path, bytes);
    const error = openError(path);
    expect(error.code).toBe('STORE');
    expect(error.message).toContain(`is not a Weft database or is corrupted`);
    expect(error.message).toContain(`it was left untouched: ${path}`);
    expect((await readFile(path)).equals(bytes)).toBe(true);
    expect(await readdir(dir)).toEqual(['weft.db']);
  });

  it('refuses a folder where the database file should be', async () => {
    await mkdir(path);
    const error = openError(path);
    expect(error.code).toBe('STORE');
    expect(error.message).toContain(path);
  });

  it('reports a write lock held by another process as a retryable STORE error', async () => {
    const store: SqliteRunStore = openSqliteRunStore(path, { busyTimeoutMs: 20 });
    await store.createRun({ runId: 'r1', task: 't', model: 'm', options: {} });
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      const error = await store.appendEvents('r1', [{ type: 'x', at: 0 }]).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(WeftError);
      expect((error as WeftError).code).toBe('STORE');
      expect((error as WeftError).retryable).toBe(true);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await store.appendEvents('r1', [{ type: 'x', at: 0 }]);
    expect((await store.events('r1')).map((stored) => stored.seq)).toEqual([1]);
    await store.close();
  });

  it('uses the given clock for createdAt and updatedAt', async () => {
    let now = new Date('2026-11-22T04:45:01.000Z');
    const store = openSqliteRunStore(':memory:', { now: () => now });
    await store.createRun({ runId: 'r1', task: 't', model: 'm', options: {} });
    now = new Date('2026-11-22T05:00:00.000Z');
    await store.setStatus('r1', 'completed');
    expect(await store.getRun('r1')).toMatchObject({
      createdAt: '2026-11-22T04:45:01.000Z',
      updatedAt: '2026-11-22T05:00:00.000Z',
    });
    await store.close();
    expect(existsSync(join(process.cwd(), ':memory:'))).toBe(false);
  });
});
