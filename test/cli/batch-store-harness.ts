/**
 * What tests of `weft exec` batches read and change in a home's store (`<home>/weft.db`): a batch's log records, the
 * batch ids, its owner, and a log cut back to what a kill leaves. Each call opens the store and closes it again, so
 * no handle stays open while the command under test runs.
 */
import { join } from 'node:path';
import { batchRecordsOf } from '../../src/distill/batch-store.js';
import type { BatchInfo, BatchRecord } from '../../src/store/batch-records.js';
import { openSqliteRunStore, type SqliteRunStore } from '../../src/store/sqlite-run-store.js';

export async function withHomeStore<T>(home: string, body: (store: SqliteRunStore) => Promise<T>): Promise<T> {
  const store = await openSqliteRunStore(join(home, 'weft.db'));
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

/** The batch's whole log, in order. */
export function batchLog(home: string, batchId: string): Promise<BatchRecord[]> {
  return withHomeStore(home, async (store) => {
    const records: BatchRecord[] = [];
    for await (const record of batchRecordsOf(store, batchId)) records.push(record);
    return records;
  });
}

/** Every batch in the home's store, newest first. */
export function homeBatches(home: string): Promise<BatchInfo[]> {
  return withHomeStore(home, (store) => store.listBatches());
}

/**
 * Replaces the batch's log by the records `keep` keeps, as a kill would have left it (the manifest stays): the
 * batch is written again through the store's contract, not edited in place.
 */
export function cutBatchLog(home: string, batchId: string, keep: (record: BatchRecord) => boolean): Promise<void> {
  return withHomeStore(home, async (store) => {
    const info = await store.getBatch(batchId);
    if (!info) throw new Error(`no batch ${batchId} in ${home}`);
    const kept: BatchRecord[] = [];
    for await (const record of batchRecordsOf(store, batchId)) if (keep(record)) kept.push(record);
    await store.deleteBatch(batchId);
    await store.createBatch({ batchId, manifest: info.manifest });
    if (kept.length > 0) await store.appendBatchRecords(batchId, kept);
  });
}
