/**
 * The BatchStore (batch-records.ts) on the Postgres run store's pool: tables `batches` and `batch_records`
 * (schema 6, postgres-run-store.ts). An append is one transaction: `UPDATE … RETURNING last_seq` locks the batch's
 * row, so writers in several processes get a gap-free log; the cases' earlier results lose their `latest` mark in
 * the same transaction, and all records go in with one INSERT (unnest), whatever their number.
 */
import type PG from 'pg';
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

export interface PostgresBatchContext {
  readonly pool: PG.Pool;
  /** The schema, quoted for SQL. */
  readonly quotedSchema: string;
  /** For messages: `Postgres at URL (schema "name")`. */
  readonly where: string;
  /** The store's own error handling (closed store, Postgres failures → WeftError('STORE')). */
  readonly use: <T>(action: string, body: () => Promise<T>) => Promise<T>;
  readonly transaction: <T>(body: (client: PG.PoolClient) => Promise<T>) => Promise<T>;
  readonly now: () => Date;
}

const BATCH_COLUMNS = 'batch_id, created_at, manifest, importing, owner_pid, owner_host, last_seq';

export function createPostgresBatchStore(context: PostgresBatchContext): BatchStore {
  const { pool, use, transaction, now } = context;
  const s = context.quotedSchema;
  const sql = {
    insert: `INSERT INTO ${s}.batches (batch_id, created_at, manifest, importing) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING`,
    get: `SELECT ${BATCH_COLUMNS} FROM ${s}.batches WHERE batch_id = $1`,
    list: `SELECT ${BATCH_COLUMNS} FROM ${s}.batches ORDER BY created_at DESC, batch_id DESC`,
    reserve: `UPDATE ${s}.batches SET last_seq = last_seq + $1 WHERE batch_id = $2 RETURNING last_seq`,
    unmark: `UPDATE ${s}.batch_records SET latest = false
       WHERE batch_id = $1 AND case_key = ANY($2::text[]) AND latest AND seq < $3`,
    insertRecords: `INSERT INTO ${s}.batch_records (batch_id, seq, type, case_key, status, interrupted, latest, data)
       SELECT $1::text, * FROM unnest($2::integer[], $3::text[], $4::text[], $5::text[], $6::boolean[],
         $7::boolean[], $8::text[])`,
    // One statement: an unknown batch gives no row, one without (later) records a null seq.
    records: `SELECT r.seq, r.data FROM ${s}.batches b
       LEFT JOIN ${s}.batch_records r ON r.batch_id = b.batch_id AND r.seq > $2::double precision
       WHERE b.batch_id = $1 ORDER BY r.seq LIMIT $3::bigint`,
    counts: `SELECT status, interrupted, count(*)::double precision AS n FROM ${s}.batch_records
       WHERE batch_id = $1 AND latest GROUP BY status, interrupted`,
    startedWithoutResult: `SELECT count(DISTINCT s.case_key)::double precision AS n FROM ${s}.batch_records s
       WHERE s.batch_id = $1 AND s.type = 'case-start' AND NOT EXISTS (SELECT 1 FROM ${s}.batch_records r
         WHERE r.batch_id = s.batch_id AND r.case_key = s.case_key AND r.latest)`,
    resultsTotal: `SELECT count(*)::double precision AS n FROM ${s}.batch_records
       WHERE batch_id = $1 AND latest AND ($2::text IS NULL OR status = $2::text)`,
    results: `SELECT seq, data FROM ${s}.batch_records WHERE batch_id = $1 AND latest
       AND ($2::text IS NULL OR status = $2::text) ORDER BY seq LIMIT $3::bigint OFFSET $4::bigint`,
    // One statement: under READ COMMITTED a concurrent UPDATE of the row re-checks the condition after the other
    // commits, so of several takeovers of the same owner exactly one matches.
    takeOver: `UPDATE ${s}.batches SET owner_pid = $1, owner_host = $2 WHERE batch_id = $3
       AND owner_pid IS NOT DISTINCT FROM $4::integer AND owner_host IS NOT DISTINCT FROM $5::text`,
    release: `UPDATE ${s}.batches SET owner_pid = NULL, owner_host = NULL
       WHERE batch_id = $1 AND owner_pid = $2 AND owner_host = $3`,
    finishImport: `UPDATE ${s}.batches SET importing = false WHERE batch_id = $1`,
    deleteRecords: `DELETE FROM ${s}.batch_records WHERE batch_id = $1`,
    delete: `DELETE FROM ${s}.batches WHERE batch_id = $1`,
  };
  const notFound = (batchId: string) =>
    new WeftError('NOT_FOUND', `No batch with id ${displayBatchId(batchId)} in ${context.where}`);
  const require = async (client: Pick<PG.PoolClient, 'query'>, batchId: string): Promise<void> => {
    if (!isBatchId(batchId) || (await client.query(sql.get, [batchId])).rowCount === 0) throw notFound(batchId);
  };
  /** A consistent snapshot for reads that take more than one statement. */
  const snapshot = <T>(body: (client: PG.PoolClient) => Promise<T>): Promise<T> =>
    transaction(async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      return body(client);
    });
  const maxOwnerPid = 2_147_483_647;

  return {
    createBatch(batch: NewBatch) {
      return use(`create batch ${displayBatchId(batch?.batchId)}`, async () => {
        const prepared = prepareBatch(batch);
        const result = await pool.query(sql.insert, [
          prepared.batchId,
          now().toISOString(),
          prepared.manifest,
          prepared.importing,
        ]);
        if (result.rowCount === 0)
          throw new WeftError('STORE', `A batch with id ${prepared.batchId} already exists in ${context.where}`);
      });
    },
    getBatch(batchId: string): Promise<BatchInfo | undefined> {
      return use(`read batch ${displayBatchId(batchId)}`, async () => {
        if (!isBatchId(batchId)) return undefined;
        const row = (await pool.query<BatchRow>(sql.get, [batchId])).rows[0];
        return row ? batchInfoFromRow(row) : undefined;
      });
    },
    listBatches() {
      return use('list batches', async () => (await pool.query<BatchRow>(sql.list)).rows.map(batchInfoFromRow));
    },
    appendBatchRecords(batchId: string, records: readonly BatchRecord[]) {
      return use(`append to batch ${displayBatchId(batchId)}`, async () => {
        if (!isBatchId(batchId)) throw notFound(batchId);
        const prepared = prepareBatchRecords(batchId, records);
        if (prepared.length === 0) return require(pool, batchId);
        await transaction(async (client) => {
          const reserved = await client.query<{ last_seq: number }>(sql.reserve, [prepared.length, batchId]);
          const last = reserved.rows[0]?.last_seq;
          if (last === undefined) throw notFound(batchId);
          const first = last - prepared.length + 1;
          const lastResult = new Map<string, number>();
          prepared.forEach((record, index) => {
            if (record.type === 'case-end') lastResult.set(record.caseKey, index);
          });
          if (lastResult.size > 0) await client.query(sql.unmark, [batchId, [...lastResult.keys()], first]);
          await client.query(sql.insertRecords, [
            batchId,
            prepared.map((_record, index) => first + index),
            prepared.map((record) => record.type),
            prepared.map((record) => record.caseKey),
            prepared.map((record) => record.status),
            prepared.map((record) => record.interrupted),
            prepared.map((record, index) => record.type === 'case-end' && lastResult.get(record.caseKey) === index),
            prepared.map((record) => record.data),
          ]);
        });
      });
    },
    batchRecords(batchId: string, afterSeq = 0, limit?: number): Promise<StoredBatchRecord[]> {
      return use(`read batch ${displayBatchId(batchId)}`, async () => {
        const page = batchPageLimit(limit, 1000);
        if (!isBatchId(batchId)) throw notFound(batchId);
        const rows = (
          await pool.query<{ seq: number | null; data: string | null }>(sql.records, [batchId, afterSeq, page])
        ).rows;
        if (rows.length === 0) throw notFound(batchId);
        return rows
          .filter((row): row is { seq: number; data: string } => row.seq !== null && row.data !== null)
          .map(storedBatchRecord);
      });
    },
    batchCounts(batchId: string): Promise<BatchCounts> {
      return use(`count batch ${displayBatchId(batchId)}`, () =>
        snapshot(async (client) => {
          await require(client, batchId);
          const counts = await client.query<{ status: string; interrupted: boolean; n: number }>(sql.counts, [batchId]);
          const started = await client.query<{ n: number }>(sql.startedWithoutResult, [batchId]);
          return countsFromRows(counts.rows, started.rows[0]?.n ?? 0);
        }),
      );
    },
    batchResults(batchId: string, query: BatchResultsQuery = {}) {
      return use(`read batch ${displayBatchId(batchId)}`, async () => {
        const limit = batchPageLimit(query.limit, 50);
        const status = query.status ?? null;
        return snapshot(async (client) => {
          await require(client, batchId);
          const total = (await client.query<{ n: number }>(sql.resultsTotal, [batchId, status])).rows[0]?.n ?? 0;
          const rows = await client.query<{ seq: number; data: string }>(sql.results, [
            batchId,
            status,
            limit,
            query.offset ?? 0,
          ]);
          return { total, results: rows.rows.map(storedBatchRecord) };
        });
      });
    },
    takeOverBatch(batchId: string, owner: RunOwner, previous: RunOwner | undefined) {
      return use(`take over batch ${displayBatchId(batchId)}`, async () => {
        const next = checkOwner(owner, `the owner of batch ${batchId}`, maxOwnerPid);
        if (!isBatchId(batchId)) throw notFound(batchId);
        const result = await pool.query(sql.takeOver, [
          next.pid,
          next.host,
          batchId,
          previous?.pid ?? null,
          previous?.host ?? null,
        ]);
        if (result.rowCount === 0) await require(pool, batchId);
        return (result.rowCount ?? 0) > 0;
      });
    },
    releaseBatch(batchId: string, owner: RunOwner) {
      return use(`release batch ${displayBatchId(batchId)}`, async () => {
        const checked = checkOwner(owner, `the owner of batch ${batchId}`, maxOwnerPid);
        if (!isBatchId(batchId)) throw notFound(batchId);
        const result = await pool.query(sql.release, [batchId, checked.pid, checked.host]);
        if (result.rowCount === 0) await require(pool, batchId);
      });
    },
    finishBatchImport(batchId: string) {
      return use(`finish importing batch ${displayBatchId(batchId)}`, async () => {
        if (!isBatchId(batchId) || (await pool.query(sql.finishImport, [batchId])).rowCount === 0)
          throw notFound(batchId);
      });
    },
    deleteBatch(batchId: string) {
      return use(`delete batch ${displayBatchId(batchId)}`, async () => {
        if (!isBatchId(batchId)) return false;
        return transaction(async (client) => {
          await client.query(sql.deleteRecords, [batchId]);
          return ((await client.query(sql.delete, [batchId])).rowCount ?? 0) > 0;
        });
      });
    },
  };
}
