/**
 * Writes a batch's log to the store in chunks: `start` records of cases starting together, and the results that
 * finished meanwhile, go in one transaction (one append), not one per case.
 *
 * - `start(record)` resolves once the record is committed: the caller runs the case only then (write-ahead), so a
 *   kill never leaves a case that ran without its start on record.
 * - `later(record)` (a result) waits for the next commit: the next start, `flush`, every MAX_PENDING results, or
 *   the caller's timer. A result lost to a kill leaves its case started without a result: reported interrupted.
 * - Appends are sequential (one at a time, in order); a failed append fails the starts waiting on it and every
 *   later call, so the batch stops instead of running cases whose start is not recorded.
 */
import type { BatchRecord, BatchStore } from '../store/batch-records.js';

/** Results kept by `later` before they are written anyway. */
const MAX_PENDING = 256;

export interface BatchWriter {
  start(record: BatchRecord): Promise<void>;
  later(record: BatchRecord): void;
  /** Commits whatever is pending (resolves once it is). */
  flush(): Promise<void>;
  /** Flushes, then refuses further records. Throws the first failure, if any. */
  close(): Promise<void>;
}

const afterThisTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Milliseconds between the end of one append and the start of the next. A commit costs about the same for one
 * record as for twenty (its pages), and cases finish one message at a time: without a gap nearly every case was a
 * transaction of its own. Within the gap, starts and results gather; the cases already started keep the workers
 * busy meanwhile.
 */
const APPEND_GAP_MS = 1;

export function openBatchWriter(store: Pick<BatchStore, 'appendBatchRecords'>, batchId: string): BatchWriter {
  let pending: BatchRecord[] = [];
  let failure: unknown;
  let closed = false;
  // The append in progress (or the last one); the next waits for it, so records stay in order.
  let chain: Promise<void> = Promise.resolve();
  // The append not started yet, which new records join.
  let next: Promise<void> | undefined;
  let lastAppend = Number.NEGATIVE_INFINITY;
  // The next loop turn at least (the starts of every case that got ready in this one join), and the gap.
  const afterGap = async (): Promise<void> => {
    await afterThisTurn();
    const wait = APPEND_GAP_MS - (performance.now() - lastAppend);
    if (wait > 0) await new Promise<void>((resolve) => setTimeout(resolve, wait));
  };
  const flush = (): Promise<void> => {
    if (failure !== undefined) return Promise.reject(failure);
    if (next) return next;
    // The append waits for the loop's next turn: the starts of every case that got ready in this one (and the
    // results that finished meanwhile) join it. Without that wait each start was a transaction of its own, as
    // SQLite appends complete synchronously, and a batch ran at a tenth of its speed.
    const run = chain.then(afterGap).then(async () => {
      next = undefined;
      if (failure !== undefined) throw failure;
      const records = pending;
      pending = [];
      if (records.length === 0) return;
      try {
        await store.appendBatchRecords(batchId, records);
      } catch (error) {
        failure ??= error;
        throw error;
      } finally {
        lastAppend = performance.now();
      }
    });
    next = run;
    chain = run.catch(() => {});
    return run;
  };
  return {
    start(record) {
      if (closed) return Promise.reject(new Error('the batch log is closed'));
      pending.push(record);
      return flush();
    },
    later(record) {
      if (closed) return;
      pending.push(record);
      if (pending.length >= MAX_PENDING) flush().catch(() => {});
    },
    flush,
    async close() {
      if (closed) {
        if (failure !== undefined) throw failure;
        return;
      }
      await flush();
      closed = true;
    },
  };
}
