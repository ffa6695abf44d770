/**
 * The batch half of a run store (the BatchStore contract of batch-records.ts), handed to the store's own batch
 * module (sqlite-batch-store.ts, postgres-batch-store.ts), made on first use on the store's connection.
 */
import type {
  BatchCounts,
  BatchInfo,
  BatchRecord,
  BatchResultsQuery,
  BatchStore,
  NewBatch,
  StoredBatchRecord,
} from './batch-records.js';
import type { RunOwner } from './run-store.js';

export abstract class BatchDelegatingStore implements BatchStore {
  private batchStore: BatchStore | undefined;

  /** The store's batch module; called once, when a batch method is first used. */
  protected abstract openBatchStore(): BatchStore;

  private get batches(): BatchStore {
    this.batchStore ??= this.openBatchStore();
    return this.batchStore;
  }
  createBatch(batch: NewBatch): Promise<void> {
    return this.batches.createBatch(batch);
  }
  getBatch(batchId: string): Promise<BatchInfo | undefined> {
    return this.batches.getBatch(batchId);
  }
  listBatches(): Promise<BatchInfo[]> {
    return this.batches.listBatches();
  }
  appendBatchRecords(batchId: string, records: readonly BatchRecord[]): Promise<void> {
    return this.batches.appendBatchRecords(batchId, records);
  }
  batchRecords(batchId: string, afterSeq?: number, limit?: number): Promise<StoredBatchRecord[]> {
    return this.batches.batchRecords(batchId, afterSeq, limit);
  }
  batchCounts(batchId: string): Promise<BatchCounts> {
    return this.batches.batchCounts(batchId);
  }
  batchResults(batchId: string, query?: BatchResultsQuery): Promise<{ total: number; results: StoredBatchRecord[] }> {
    return this.batches.batchResults(batchId, query);
  }
  takeOverBatch(batchId: string, owner: RunOwner, previous: RunOwner | undefined): Promise<boolean> {
    return this.batches.takeOverBatch(batchId, owner, previous);
  }
  releaseBatch(batchId: string, owner: RunOwner): Promise<void> {
    return this.batches.releaseBatch(batchId, owner);
  }
  finishBatchImport(batchId: string): Promise<void> {
    return this.batches.finishBatchImport(batchId);
  }
  deleteBatch(batchId: string): Promise<boolean> {
    return this.batches.deleteBatch(batchId);
  }
}
