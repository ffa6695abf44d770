/**
 * The batches of `weft exec --inputs` as the stores keep them (the BatchStore contract; docs/contracts.md#batches):
 * a batch row (its manifest, its owner) and an append-only log of per-case records — a `case-start` before a case runs,
 * a `case-end` after. Both stores implement it and testing/describe-batch-store.ts (`weft/test`) checks both. The
 * store knows the record envelope (type, case id, status) so it can count and page results; the manifest is the
 * caller's JSON.
 */
import { WeftError } from '../errors.js';
import { deflate } from './json-blobs.js';
import type { RunOwner } from './run-store.js';

export type BatchCaseStatus = 'passed' | 'failed' | 'error';

export const BATCH_CASE_STATUSES: readonly BatchCaseStatus[] = ['passed', 'failed', 'error'];

export interface BatchRecordError {
  readonly code: string;
  readonly message: string;
  /** Where in the workflow: e.g. `nodes.add`, `node add (args).a`. */
  readonly field?: string;
}

export type BatchRecord =
  | { readonly type: 'case-start'; readonly id: string | number; readonly attempt: number; readonly worker?: string }
  | {
      readonly type: 'case-end';
      readonly id: string | number;
      readonly status: BatchCaseStatus;
      readonly output?: unknown;
      readonly error?: BatchRecordError;
      /** Written for a case found started without a result: reported, not run again. */
      readonly interrupted?: true;
      readonly steps?: number;
      readonly toolCalls?: number;
    };

export type BatchResultRecord = Extract<BatchRecord, { type: 'case-end' }>;

export interface StoredBatchRecord {
  /** 1-based position in the batch's log. */
  readonly seq: number;
  readonly record: BatchRecord;
}

export interface NewBatch {
  readonly batchId: string;
  /** What the batch was started with (plain JSON; `weft exec` writes its BatchManifest). */
  readonly manifest: Readonly<Record<string, unknown>>;
  /**
   * A batch being copied in from an older version's folder: it is shown as importing until `finishBatchImport`,
   * so an import cut off half-way is seen as such (and done again), never taken for a batch with fewer records.
   */
  readonly importing?: boolean;
}

export interface BatchInfo {
  readonly batchId: string;
  /** ISO-8601. */
  readonly createdAt: string;
  readonly manifest: Record<string, unknown>;
  /** The process that runs it now; absent when none does. */
  readonly owner?: RunOwner;
  readonly importing?: true;
  /** Records in its log. */
  readonly records: number;
}

/** A batch's cases by their last result (`results` = passed + failed + errors). */
export interface BatchCounts {
  readonly results: number;
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
  /** Last results that say the case was interrupted (counted in `errors` too). */
  readonly interrupted: number;
  /** Cases started with no result yet (running now, or cut off by a kill). */
  readonly startedWithoutResult: number;
}

export interface BatchResultsQuery {
  readonly status?: BatchCaseStatus;
  readonly offset?: number;
  readonly limit?: number;
}

/**
 * Behaviour both stores share (testing/describe-batch-store.ts checks it):
 * - `createBatch` is exclusive: a second create of one id is WeftError('STORE') and changes nothing.
 * - `appendBatchRecords` writes all its records in one transaction, in order, or none (a bad record or a failure
 *   writes nothing); seq numbers continue the batch's log without gaps, also across store handles.
 * - Naming a batch that does not exist is WeftError('NOT_FOUND'), except `getBatch` (undefined) and
 *   `deleteBatch` (false).
 * - Ownership is compare-and-set: `takeOverBatch` records `owner` only if the owner is still `previous`
 *   (undefined: none), so of several processes exactly one gets true. `releaseBatch` clears it only if it is
 *   still `owner`. Whether an owner is gone is the caller's judgement (run-owner.ts).
 * - A closed store rejects every call with WeftError('STORE').
 */
export interface BatchStore {
  createBatch(batch: NewBatch): Promise<void>;
  getBatch(batchId: string): Promise<BatchInfo | undefined>;
  /** Newest first (by creation, then id). */
  listBatches(): Promise<BatchInfo[]>;
  appendBatchRecords(batchId: string, records: readonly BatchRecord[]): Promise<void>;
  /** Records with seq > afterSeq (default 0), in order, at most `limit` (default 1000, at most 10000). */
  batchRecords(batchId: string, afterSeq?: number, limit?: number): Promise<StoredBatchRecord[]>;
  batchCounts(batchId: string): Promise<BatchCounts>;
  /** Each case's last result, in log order, filtered by status, one page (limit default 50, at most 10000). */
  batchResults(batchId: string, query?: BatchResultsQuery): Promise<{ total: number; results: StoredBatchRecord[] }>;
  takeOverBatch(batchId: string, owner: RunOwner, previous: RunOwner | undefined): Promise<boolean>;
  releaseBatch(batchId: string, owner: RunOwner): Promise<void>;
  finishBatchImport(batchId: string): Promise<void>;
  /** Deletes the batch and its log; false when there was none. */
  deleteBatch(batchId: string): Promise<boolean>;
}

/** The batch ids `weft exec` makes and the stores accept. */
export const BATCH_ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

export function isBatchId(batchId: unknown): batchId is string {
  return typeof batchId === 'string' && BATCH_ID_PATTERN.test(batchId);
}

export function displayBatchId(batchId: unknown): string {
  if (isBatchId(batchId)) return batchId;
  if (typeof batchId !== 'string') return `(a ${typeof batchId})`;
  return JSON.stringify(batchId.length > 40 ? `${batchId.slice(0, 40)}…` : batchId);
}

export const MAX_BATCH_PAGE = 10_000;

/** A page size: undefined gives `fallback`; else a whole number from 1 to MAX_BATCH_PAGE. */
export function batchPageLimit(limit: unknown, fallback: number): number {
  if (limit === undefined) return fallback;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_BATCH_PAGE)
    throw new WeftError('STORE', `A page of batch records is 1 to ${MAX_BATCH_PAGE} records, got ${String(limit)}`);
  return limit;
}

/** A record as it is written: the columns the store queries on, and the whole record as JSON text. */
export interface PreparedBatchRecord {
  readonly type: 'case-start' | 'case-end';
  readonly caseKey: string;
  readonly status: BatchCaseStatus | null;
  readonly interrupted: boolean;
  readonly data: string;
}

/** Checks every record before anything is written; a bad one is WeftError('STORE') naming its place. */
export function prepareBatchRecords(batchId: string, records: readonly BatchRecord[]): PreparedBatchRecord[] {
  if (!Array.isArray(records)) throw new WeftError('STORE', `Cannot append to batch ${batchId}: expected an array`);
  return records.map((record, index) => {
    const where = `record ${index + 1} for batch ${batchId}`;
    if (typeof record !== 'object' || record === null)
      throw new WeftError('STORE', `Cannot store ${where}: expected an object`);
    const id = record.id;
    if (!(typeof id === 'string' && id !== '') && !(typeof id === 'number' && Number.isSafeInteger(id)))
      throw new WeftError('STORE', `Cannot store ${where}: id must be a non-empty string or a whole number`);
    if (record.type === 'case-start') {
      if (!Number.isSafeInteger(record.attempt) || record.attempt < 1)
        throw new WeftError('STORE', `Cannot store ${where}: attempt must be a whole number from 1`);
    } else if (record.type === 'case-end') {
      if (!BATCH_CASE_STATUSES.includes(record.status))
        throw new WeftError(
          'STORE',
          `Cannot store ${where}: status must be one of ${BATCH_CASE_STATUSES.join(', ')}, got ${JSON.stringify(record.status)}`,
        );
    } else {
      throw new WeftError('STORE', `Cannot store ${where}: type must be case-start or case-end`);
    }
    return {
      type: record.type,
      caseKey: String(id),
      status: record.type === 'case-end' ? record.status : null,
      interrupted: record.type === 'case-end' && record.interrupted === true,
      data: deflate(record, where, Number.POSITIVE_INFINITY).json,
    };
  });
}

/** Checks a new batch (id, manifest) and serialises its manifest. */
export function prepareBatch(batch: NewBatch): { batchId: string; manifest: string; importing: boolean } {
  if (typeof batch !== 'object' || batch === null)
    throw new WeftError('STORE', 'Cannot store a batch: expected { batchId, manifest }');
  if (!isBatchId(batch.batchId))
    throw new WeftError(
      'STORE',
      `Cannot store a batch with id ${displayBatchId(batch.batchId)}: ids are 1 to 128 letters, digits, '.', '_' or '-', not starting with '.' or '-'`,
    );
  const { manifest } = batch;
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))
    throw new WeftError('STORE', `Cannot store batch ${batch.batchId}: its manifest must be an object`);
  return {
    batchId: batch.batchId,
    manifest: deflate(manifest, `the manifest of batch ${batch.batchId}`, Number.POSITIVE_INFINITY).json,
    importing: batch.importing === true,
  };
}

export interface BatchRow {
  readonly batch_id: string;
  readonly created_at: string;
  readonly manifest: string;
  readonly importing: number | boolean;
  readonly owner_pid: number | null;
  readonly owner_host: string | null;
  readonly last_seq: number | string;
}

export function batchInfoFromRow(row: BatchRow): BatchInfo {
  const manifest = JSON.parse(row.manifest) as Record<string, unknown>;
  return {
    batchId: row.batch_id,
    createdAt: row.created_at,
    manifest,
    ...(row.owner_pid !== null && row.owner_host !== null
      ? { owner: { pid: Number(row.owner_pid), host: row.owner_host } }
      : {}),
    ...(row.importing === 1 || row.importing === true ? { importing: true as const } : {}),
    records: Number(row.last_seq),
  };
}

export function storedBatchRecord(row: { seq: number | string; data: string }): StoredBatchRecord {
  return { seq: Number(row.seq), record: JSON.parse(row.data) as BatchRecord };
}

/** Adds up `(status, interrupted, n)` rows of last results. */
export function countsFromRows(
  rows: readonly { status: string; interrupted: number | boolean; n: number | string }[],
  startedWithoutResult: number,
): BatchCounts {
  let passed = 0;
  let failed = 0;
  let errors = 0;
  let interrupted = 0;
  for (const row of rows) {
    const n = Number(row.n);
    if (row.status === 'passed') passed += n;
    else if (row.status === 'failed') failed += n;
    else errors += n;
    if (row.interrupted === 1 || row.interrupted === true) interrupted += n;
  }
  return { results: passed + failed + errors, passed, failed, errors, interrupted, startedWithoutResult };
}

/** Whether a store has the batch methods (both of Weft's do). */
export function isBatchStore(store: unknown): store is BatchStore {
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof (store as Partial<BatchStore>).createBatch === 'function' &&
    typeof (store as Partial<BatchStore>).appendBatchRecords === 'function'
  );
}

/** The store as a BatchStore; WeftError('STORE') for a store without batches. */
export function batchStoreOf<S>(store: S): S & BatchStore {
  if (!isBatchStore(store)) throw new WeftError('STORE', 'This run store does not keep batches');
  return store as S & BatchStore;
}
