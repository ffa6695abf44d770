/**
 * The BatchStore conformance suite (`weft/test`; the contract is store/batch-records.ts): SQLite and Postgres run it,
 * so they keep `weft exec` batches (manifest, per-case start and result records, ownership) the same way; a store of
 * your own that keeps batches can run it too.
 */
import { batchRecordsOf, readBatchLog } from '../distill/batch-store.js';
import { openBatchWriter } from '../distill/batch-writer.js';
import type { BatchRecord, BatchStore } from '../store/batch-records.js';
import { rejectionWith } from './rejection.js';
import type { StoreSuiteApi } from './store-suite-api.js';

type Store = BatchStore & { close(): Promise<void> };

export interface BatchStoreLocation {
  /** A handle on the location's database; two calls give two handles on one database. */
  open(): Promise<Store>;
  dispose(): Promise<void>;
}

export interface BatchStoreFactory {
  fresh(): Promise<BatchStoreLocation>;
}

const manifest = (batchId: string, cases = 3) => ({
  version: 1,
  batchId,
  createdAt: '2026-11-28T07:00:00.000Z',
  workflow: { path: '/w/sum.workflow.json', sha256: 'ab'.repeat(32) },
  inputs: { path: '/w/cases.jsonl', sha256: 'cd'.repeat(32), cases },
  options: { concurrency: 8 },
});

const start = (id: string | number, attempt = 1): BatchRecord => ({ type: 'case-start', id, attempt });
const passed = (id: string | number, output: unknown = 1): BatchRecord => ({
  type: 'case-end',
  id,
  status: 'passed',
  output,
  steps: 2,
  toolCalls: 1,
});

export function describeBatchStore(name: string, factory: BatchStoreFactory, test: StoreSuiteApi): void {
  const { afterEach, beforeEach, describe, expect, it } = test;
  const rejection = rejectionWith(expect);
  describe(`BatchStore conformance: ${name}`, () => {
    let location: BatchStoreLocation;
    let store: Store;
    const others: Store[] = [];
    const another = async () => {
      const handle = await location.open();
      others.push(handle);
      return handle;
    };

    beforeEach(async () => {
      location = await factory.fresh();
      store = await location.open();
    });
    afterEach(async () => {
      for (const handle of others.splice(0)) await handle.close();
      await store.close();
      await location.dispose();
    });

    it('creates a batch once: a second create of the id fails and changes nothing', async () => {
      await store.createBatch({ batchId: 'b-1', manifest: manifest('b-1') });
      const error = await rejection(store.createBatch({ batchId: 'b-1', manifest: { other: true } }));
      expect(error.code).toBe('STORE');
      expect(error.message).toContain('already exists');
      const info = await store.getBatch('b-1');
      expect(info).toMatchObject({ batchId: 'b-1', manifest: manifest('b-1'), records: 0 });
      expect(info?.owner).toBeUndefined();
      expect(info?.importing).toBeUndefined();
      expect(await store.getBatch('b-none')).toBeUndefined();
      expect(await store.getBatch('../etc')).toBeUndefined();
      expect((await rejection(store.createBatch({ batchId: '../x', manifest: {} }))).code).toBe('STORE');
      expect((await rejection(store.createBatch({ batchId: 'b-2', manifest: [] as never }))).code).toBe('STORE');
    });

    it('lists batches newest first', async () => {
      const first = await another();
      await first.createBatch({ batchId: 'b-a', manifest: manifest('b-a') });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.createBatch({ batchId: 'b-b', manifest: manifest('b-b') });
      expect((await store.listBatches()).map((batch) => batch.batchId)).toEqual(['b-b', 'b-a']);
    });

    it('keeps records in append order with gap-free seq numbers, across appends and handles', async () => {
      await store.createBatch({ batchId: 'b-1', manifest: manifest('b-1') });
      const other = await another();
      await store.appendBatchRecords('b-1', [start('a'), start(7)]);
      await other.appendBatchRecords('b-1', [passed(7, { n: [1, 'x'] }), start('c')]);
      await store.appendBatchRecords('b-1', [passed('a', null)]);
      const records = await other.batchRecords('b-1');
      expect(records.map((stored) => stored.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(records.map((stored) => stored.record)).toEqual([
        start('a'),
        start(7),
        passed(7, { n: [1, 'x'] }),
        start('c'),
        passed('a', null),
      ]);
      expect((await store.batchRecords('b-1', 2, 2)).map((stored) => stored.seq)).toEqual([3, 4]);
      expect(await store.batchRecords('b-1', 5)).toEqual([]);
      expect((await store.getBatch('b-1'))?.records).toBe(5);
      expect((await rejection(store.batchRecords('b-none'))).code).toBe('NOT_FOUND');
      expect((await rejection(store.appendBatchRecords('b-none', [start('a')]))).code).toBe('NOT_FOUND');
      expect((await rejection(store.batchRecords('b-1', 0, 0))).code).toBe('STORE');
    });

    it('reads the same state on every resume: reading changes nothing', async () => {
      await store.createBatch({ batchId: 'b-1', manifest: manifest('b-1') });
      await store.appendBatchRecords('b-1', [start('a'), passed('a'), start('b'), start('c'), passed('c')]);
      const first = await readBatchLog(store, 'b-1');
      const second = await readBatchLog(await another(), 'b-1');
      expect(second).toEqual(first);
      expect([...first.results.keys()]).toEqual(['a', 'c']);
      expect(first.starts.get('b')).toBe(1);
      expect((await store.getBatch('b-1'))?.records).toBe(5);
    });

    it('writes an append whole or not at all: a bad record in it leaves the log as it was', async () => {
      await store.createBatch({ batchId: 'b-1', manifest: manifest('b-1') });
      await store.appendBatchRecords('b-1', [start('a')]);
      const bad = [start('b'), { type: 'case-end', id: 'b', status: 'weird' } as unknown as BatchRecord, start('c')];
      expect((await rejection(store.appendBatchRecords('b-1', bad))).code).toBe('STORE');
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = cyclic;
      expect((await rejection(store.appendBatchRecords('b-1', [start('d'), passed('d', cyclic)]))).code).toBe('STORE');
      expect((await store.batchRecords('b-1')).map((stored) => stored.record)).toEqual([start('a')]);
      await store.appendBatchRecords('b-1', [start('e')]);
      expect((await store.batchRecords('b-1')).map((stored) => stored.seq)).toEqual([1, 2]);
    });

    it("counts and pages each case's last result, and the cases started without one", async () => {
      await store.createBatch({ batchId: 'b-1', manifest: manifest('b-1', 5) });
      await store.appendBatchRecords('b-1', [
        start('a'),
        passed('a'),
        start('b'),
        { type: 'case-end', id: 'b', status: 'failed', output: 3 },
        start('c'),
        { type: 'case-end', id: 'd', status: 'error', interrupted: true, error: { code: 'INTERRUPTED', message: 'x' } },
        start('e'),
      ]);
      expect(await store.batchCounts('b-1')).toEqual({
        results: 3,
        passed: 1,
        failed: 1,
        errors: 1,
        interrupted: 1,
        startedWithoutResult: 2,
      });
      // A rerun of the interrupted case, then of c and e in one append: the last result of each case counts.
      await store.appendBatchRecords('b-1', [start('d', 2), passed('d', 'again')]);
      await store.appendBatchRecords('b-1', [
        passed('c', 'first'),
        { type: 'case-end', id: 'c', status: 'failed', output: 'second' },
        passed('e'),
      ]);
      expect(await store.batchCounts('b-1')).toEqual({
        results: 5,
        passed: 3,
        failed: 2,
        errors: 0,
        interrupted: 0,
        startedWithoutResult: 0,
      });
      const all = await store.batchResults('b-1');
      expect(all.total).toBe(5);
      expect(all.results.map((stored) => [stored.record.id, (stored.record as { output?: unknown }).output])).toEqual([
        ['a', 1],
        ['b', 3],
        ['d', 'again'],
        ['c', 'second'],
        ['e', 1],
      ]);
      const failed = await store.batchResults('b-1', { status: 'failed', offset: 1, limit: 5 });
      expect(failed.total).toBe(2);
      expect(failed.results.map((stored) => stored.record.id)).toEqual(['c']);
      expect((await rejection(store.batchCounts('b-none'))).code).toBe('NOT_FOUND');
    });

    it('gives a batch to exactly one of two handles on one database, and back only through its owner', async () => {
      await store.createBatch({ batchId: 'b-1', manifest: manifest('b-1') });
      const other = await another();
      const one = { pid: 101, host: 'host-a' };
      const two = { pid: 202, host: 'host-b' };
      const wins = await Promise.all([
        store.takeOverBatch('b-1', one, undefined),
        other.takeOverBatch('b-1', two, undefined),
      ]);
      expect(wins.filter(Boolean)).toHaveLength(1);
      const winner = wins[0] ? one : two;
      const loser = wins[0] ? two : one;
      expect((await other.getBatch('b-1'))?.owner).toEqual(winner);
      // The loser cannot release it, nor take it without naming the owner it found.
      await (wins[0] ? other : store).releaseBatch('b-1', loser);
      expect((await store.getBatch('b-1'))?.owner).toEqual(winner);
      expect(await other.takeOverBatch('b-1', loser, undefined)).toBe(false);
      // Taking over an owner found gone is a compare-and-set on that owner: one of two succeeds.
      const again = await Promise.all([
        store.takeOverBatch('b-1', { pid: 303, host: 'h' }, winner),
        other.takeOverBatch('b-1', { pid: 404, host: 'h' }, winner),
      ]);
      expect(again.filter(Boolean)).toHaveLength(1);
      const holder = again[0] ? { pid: 303, host: 'h' } : { pid: 404, host: 'h' };
      await store.releaseBatch('b-1', holder);
      expect((await other.getBatch('b-1'))?.owner).toBeUndefined();
      expect(await other.takeOverBatch('b-1', loser, undefined)).toBe(true);
      expect((await rejection(store.takeOverBatch('b-none', one, undefined))).code).toBe('NOT_FOUND');
      expect((await rejection(store.takeOverBatch('b-1', { pid: -1, host: '' }, undefined))).code).toBe('STORE');
    });

    it('commits the writer’s grouped results on flush: another handle sees them only then', async () => {
      await store.createBatch({ batchId: 'b-1', manifest: manifest('b-1') });
      const reader = await another();
      const writer = openBatchWriter(store, 'b-1');
      await writer.start(start('a'));
      // The start is committed before the case may run.
      expect((await reader.batchRecords('b-1')).map((stored) => stored.record)).toEqual([start('a')]);
      writer.later(passed('a'));
      writer.later(passed('b'));
      expect(await reader.batchRecords('b-1')).toHaveLength(1);
      await writer.flush();
      expect((await reader.batchRecords('b-1')).map((stored) => stored.record)).toEqual([
        start('a'),
        passed('a'),
        passed('b'),
      ]);
      // Results waiting when the next case starts go in with its start, in order.
      writer.later(passed('c'));
      await writer.start(start('d'));
      expect((await reader.batchRecords('b-1', 3)).map((stored) => stored.record)).toEqual([passed('c'), start('d')]);
      await writer.close();
    });

    it('fails a start whose append fails, and every later call: no case runs unrecorded', async () => {
      const writer = openBatchWriter(store, 'b-none');
      writer.later(passed('a'));
      expect((await rejection(writer.start(start('b')))).code).toBe('NOT_FOUND');
      expect((await rejection(writer.flush())).code).toBe('NOT_FOUND');
      expect((await rejection(writer.close())).code).toBe('NOT_FOUND');
    });

    it('reads 100,000 records a page at a time, never as one array', async () => {
      await store.createBatch({ batchId: 'b-big', manifest: manifest('b-big', 50_000) });
      const chunk: BatchRecord[] = [];
      for (let index = 0; index < 50_000; index++) {
        chunk.push(start(index), passed(index, index));
        if (chunk.length === 10_000) await store.appendBatchRecords('b-big', chunk.splice(0));
      }
      let largestPage = 0;
      const counting: BatchStore = Object.create(store, {
        batchRecords: {
          value: async (batchId: string, afterSeq?: number, limit?: number) => {
            const page = await store.batchRecords(batchId, afterSeq, limit);
            largestPage = Math.max(largestPage, page.length);
            return page;
          },
        },
      });
      let seen = 0;
      let lastId = -1;
      for await (const record of batchRecordsOf(counting, 'b-big')) {
        seen += 1;
        if (record.type === 'case-end') {
          expect(record.id).toBe(lastId + 1);
          lastId = record.id as number;
        }
      }
      expect(seen).toBe(100_000);
      expect(largestPage).toBeLessThanOrEqual(1000);
      expect((await store.batchCounts('b-big')).passed).toBe(50_000);
      const page = await store.batchResults('b-big', { offset: 40_000, limit: 2 });
      expect(page.results.map((stored) => stored.record.id)).toEqual([40_000, 40_001]);
    }, 120_000);

    it('deletes a batch with its log, and marks an import until it is finished', async () => {
      await store.createBatch({ batchId: 'b-1', manifest: manifest('b-1') });
      await store.appendBatchRecords('b-1', [start('a'), passed('a')]);
      await store.createBatch({ batchId: 'b-2', manifest: manifest('b-2'), importing: true });
      expect((await store.getBatch('b-2'))?.importing).toBe(true);
      await store.finishBatchImport('b-2');
      expect((await store.getBatch('b-2'))?.importing).toBeUndefined();
      expect(await store.deleteBatch('b-1')).toBe(true);
      expect(await store.getBatch('b-1')).toBeUndefined();
      expect(await store.deleteBatch('b-1')).toBe(false);
      // The id is free again, with an empty log.
      await store.createBatch({ batchId: 'b-1', manifest: manifest('b-1') });
      expect(await store.batchRecords('b-1')).toEqual([]);
      expect((await rejection(store.finishBatchImport('b-none'))).code).toBe('NOT_FOUND');
    });

    it('rejects every call once closed', async () => {
      await store.createBatch({ batchId: 'b-1', manifest: manifest('b-1') });
      await store.close();
      expect((await rejection(store.getBatch('b-1'))).code).toBe('STORE');
      expect((await rejection(store.appendBatchRecords('b-1', [start('a')]))).code).toBe('STORE');
      store = await location.open();
    });
  });
}
