/**
 * The BatchStore (batch-records.ts) on the SQLite run store's connection: tables `batches` and `batch_records`
 * (schema 7, sqlite-run-store.ts). An append is one immediate transaction: seq numbers come from
 * `batches.last_seq`, and a case's earlier result loses its `latest` mark in the same transaction, so counts and
 * result pages read each case's last result without scanning the log.
 */
import type Database from 'better-sqlite3';
import { WeftError } from '../errors.js';
import {
  type BatchCounts,
  type BatchInfo,
  type BatchRecord,
  type BatchResultsQuery,
  type BatchRow,
  type BatchStore,
  batchInfoFromRow,
  batchPageLimit,
  countsFromRows,
  displayBatchId,
  isBatchId,
  type NewBatch,
  prepareBatch,
  prepareBatchRecords,
  type StoredBatchRecord,
  storedBatchRecord,
} from './batch-records.js';
import type { RunOwner } from './run-store.js';
import { checkOwner } from './store-validation.js';

/** The store's own error handling (closed store, SQLite failures → WeftError('STORE')). */
export type SqliteUse = <T>(action: string, body: () => T) => Promise<T>;

const BATCH_COLUMNS = 'batch_id, created_at, manifest, importing, owner_pid, owner_host, last_seq';

export function createSqliteBatchStore(
  db: Database.Database,
  path: string,
  use: SqliteUse,
  now: () => Date,
): BatchStore {
  const sql = {
    insert: db.prepare(
      `INSERT INTO batches (batch_id, created_at, manifest, importing) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
    get: db.prepare<[string], BatchRow>(`SELECT ${BATCH_COLUMNS} FROM batches WHERE batch_id = ?`),
    list: db.prepare<[], BatchRow>(`SELECT ${BATCH_COLUMNS} FROM batches ORDER BY created_at DESC, batch_id DESC`),
    reserve: db.prepare<[number, string], { last_seq: number }>(
      'UPDATE batches SET last_seq = last_seq + ? WHERE batch_id = ? RETURNING last_seq',
    ),
    // Found through the case index, then cleared by key: an UPDATE filtering on `latest` would not use an index
    // holding the column it changes, and scanned the batch's whole log per result (quadratic in a batch's size).
    latestOf: db.prepare<[string, string], { seq: number }>(
      'SELECT seq FROM batch_records WHERE batch_id = ? AND case_key = ? AND latest = 1',
    ),
    unmark: db.prepare('UPDATE batch_records SET latest = 0 WHERE batch_id = ? AND seq = ?'),
    insertRecord: db.prepare(
      `INSERT INTO batch_records (batch_id, seq, type, case_key, status, interrupted, latest, data)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    records: db.prepare<[string, number, number], { seq: number; data: string }>(
      'SELECT seq, data FROM batch_records WHERE batch_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    counts: db.prepare<[string], { status: string; interrupted: number; n: number }>(
      `SELECT status, interrupted, count(*) AS n FROM batch_records WHERE batch_id = ? AND latest = 1
       GROUP BY status, interrupted`,
    ),
    startedWithoutResult: db.prepare<[string], { n: number }>(
      `SELECT count(DISTINCT s.case_key) AS n FROM batch_records s WHERE s.batch_id = ? AND s.type = 'case-start'
       AND NOT EXISTS (SELECT 1 FROM batch_records r
         WHERE r.batch_id = s.batch_id AND r.case_key = s.case_key AND r.latest = 1)`,
    ),
    resultsTotal: db.prepare<[string, string | null, string | null], { n: number }>(
      'SELECT count(*) AS n FROM batch_records WHERE batch_id = ? AND latest = 1 AND (? IS NULL OR status = ?)',
    ),
    results: db.prepare<[string, string | null, string | null, number, number], { seq: number; data: string }>(
      `SELECT seq, data FROM batch_records WHERE batch_id = ? AND latest = 1 AND (? IS NULL OR status = ?)
       ORDER BY seq LIMIT ? OFFSET ?`,
    ),
    // One statement, as for runs: of several processes, exactly one matches the owner it read (`IS` matches NULL).
    takeOver: db.prepare(
      `UPDATE batches SET owner_pid = ?, owner_host = ? WHERE batch_id = ? AND owner_pid IS ? AND owner_host IS ?`,
    ),
    release: db.prepare(
      'UPDATE batches SET owner_pid = NULL, owner_host = NULL WHERE batch_id = ? AND owner_pid = ? AND owner_host = ?',
    ),
    finishImport: db.prepare('UPDATE batches SET importing = 0 WHERE batch_id = ?'),
    delete: db.prepare('DELETE FROM batches WHERE batch_id = ?'),
    deleteRecords: db.prepare('DELETE FROM batch_records WHERE batch_id = ?'),
  };
  const notFound = (batchId: string) =>
    new WeftError('NOT_FOUND', `No batch with id ${displayBatchId(batchId)} in ${path}`);
  const require = (batchId: string): BatchRow => {
    const row = isBatchId(batchId) ? sql.get.get(batchId) : undefined;
    if (!row) throw notFound(batchId);
    return row;
  };
  const append = db.transaction((batchId: string, records: ReturnType<typeof prepareBatchRecords>) => {
    const reserved = sql.reserve.get(records.length, batchId);
    if (!reserved) throw notFound(batchId);
    let seq = reserved.last_seq - records.length;
    // A case's last result is the one marked latest: within this append, the last result of each case.
    const lastResult = new Map<string, number>();
    records.forEach((record, index) => {
      if (record.type === 'case-end') lastResult.set(record.caseKey, index);
    });
    records.forEach((record, index) => {
      seq += 1;
      const latest = record.type === 'case-end' && lastResult.get(record.caseKey) === index;
      if (latest) for (const earlier of sql.latestOf.all(batchId, record.caseKey)) sql.unmark.run(batchId, earlier.seq);
      sql.insertRecord.run(
        batchId,
        seq,
        record.type,
        record.caseKey,
        record.status,
        record.interrupted ? 1 : 0,
        latest ? 1 : 0,
        record.data,
      );
    });
  });

  return {
    createBatch(batch: NewBatch) {
      return use(`create batch ${displayBatchId(batch?.batchId)}`, () => {
        const prepared = prepareBatch(batch);
        const result = sql.insert.run(
          prepared.batchId,
          now().toISOString(),
          prepared.manifest,
          prepared.importing ? 1 : 0,
        );
        if (result.changes === 0)
          throw new WeftError('STORE', `A batch with id ${prepared.batchId} already exists in ${path}`);
      });
    },
    getBatch(batchId: string): Promise<BatchInfo | undefined> {
      return use(`read batch ${displayBatchId(batchId)}`, () => {
        const row = isBatchId(batchId) ? sql.get.get(batchId) : undefined;
        return row ? batchInfoFromRow(row) : undefined;
      });
    },
    listBatches() {
      return use('list batches', () => sql.list.all().map(batchInfoFromRow));
    },
    appendBatchRecords(batchId: string, records: readonly BatchRecord[]) {
      return use(`append to batch ${displayBatchId(batchId)}`, () => {
        if (!isBatchId(batchId)) throw notFound(batchId);
        const prepared = prepareBatchRecords(batchId, records);
        if (prepared.length === 0) {
          require(batchId);
          return;
        }
        append.immediate(batchId, prepared);
      });
    },
    batchRecords(batchId: string, afterSeq = 0, limit?: number): Promise<StoredBatchRecord[]> {
      return use(`read batch ${displayBatchId(batchId)}`, () => {
        const page = batchPageLimit(limit, 1000);
        // One read transaction: the existence check and the rows come from one snapshot.
        return db.transaction(() => {
          require(batchId);
          return sql.records.all(batchId, afterSeq, page).map(storedBatchRecord);
        })();
      });
    },
    batchCounts(batchId: string): Promise<BatchCounts> {
      return use(`count batch ${displayBatchId(batchId)}`, () =>
        db.transaction(() => {
          require(batchId);
          return countsFromRows(sql.counts.all(batchId), sql.startedWithoutResult.get(batchId)?.n ?? 0);
        })(),
      );
    },
    batchResults(batchId: string, query: BatchResultsQuery = {}) {
      return use(`read batch ${displayBatchId(batchId)}`, () => {
        const limit = batchPageLimit(query.limit, 50);
        const offset = query.offset ?? 0;
        const status = query.status ?? null;
        return db.transaction(() => {
          require(batchId);
          const total = sql.resultsTotal.get(batchId, status, status)?.n ?? 0;
          const results = sql.results.all(batchId, status, status, limit, offset).map(storedBatchRecord);
          return { total, results };
        })();
      });
    },
    takeOverBatch(batchId: string, owner: RunOwner, previous: RunOwner | undefined) {
      return use(`take over batch ${displayBatchId(batchId)}`, () => {
        const next = checkOwner(owner, `the owner of batch ${batchId}`, Number.POSITIVE_INFINITY);
        const result = sql.takeOver.run(next.pid, next.host, batchId, previous?.pid ?? null, previous?.host ?? null);
        if (result.changes === 0) require(batchId);
        return result.changes > 0;
      });
    },
    releaseBatch(batchId: string, owner: RunOwner) {
      return use(`release batch ${displayBatchId(batchId)}`, () => {
        const checked = checkOwner(owner, `the owner of batch ${batchId}`, Number.POSITIVE_INFINITY);
        if (sql.release.run(batchId, checked.pid, checked.host).changes === 0) require(batchId);
      });
    },
    finishBatchImport(batchId: string) {
      return use(`finish importing batch ${displayBatchId(batchId)}`, () => {
        if (!isBatchId(batchId) || sql.finishImport.run(batchId).changes === 0) throw notFound(batchId);
      });
    },
    deleteBatch(batchId: string) {
      return use(`delete batch ${displayBatchId(batchId)}`, () => {
        if (!isBatchId(batchId)) return false;
        return db
          .transaction(() => {
            sql.deleteRecords.run(batchId);
            return sql.delete.run(batchId).changes > 0;
          })
          .immediate();
      });
    },
  };
}
