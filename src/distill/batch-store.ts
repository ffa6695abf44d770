/**
 * A batch of `weft exec --inputs` kept in the run store (the BatchStore of store/batch-records.ts; SQLite or
 * Postgres, docs/contracts.md#batches): its manifest (what it was started with), an append-only log of per-case
 * records — a `case-start` before a case runs, a `case-end` after — and its owner (the process running it, while it runs).
 *
 * Decisions:
 * - A `case-start` record is committed before the case can call a tool (batch-writer.ts groups the starts and the
 *   pending results of concurrent cases into one transaction), so a killed process leaves its running cases
 *   visibly started. A result lost to a kill leaves its case started without a result, reported interrupted on
 *   the resume, never run twice.
 * - Ownership is a compare-and-set on the store's batch row: an owner whose process is gone (on this host) is taken
 *   over, one on another host is never judged gone (as for runs: run-owner.ts).
 * - Batches of older versions live in `<home>/batches/<id>/` folders: the first `--resume` imports them into the
 *   store (import-batch-folder.ts).
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { isWeftError, WeftError } from '../errors.js';
import {
  type BatchCaseStatus,
  type BatchRecord,
  type BatchRecordError,
  type BatchResultRecord,
  type BatchStore,
  isBatchId,
  MAX_BATCH_PAGE,
} from '../store/batch-records.js';
import { currentOwner, ownerState } from '../store/run-owner.js';

export interface BatchManifest {
  readonly version: 1;
  readonly batchId: string;
  readonly createdAt: string;
  readonly workflow: { readonly path: string; readonly sha256: string };
  readonly tools?: { readonly path: string };
  readonly inputs: { readonly path: string; readonly sha256: string; readonly cases: number };
  readonly options: {
    readonly concurrency: number;
    readonly maxVisits?: number;
    readonly out?: string;
    /** The redis URL of `--workers`, credentials redacted (a resume asks for the URL again). */
    readonly workers?: string;
  };
}

export type BatchError = BatchRecordError;
export type CaseStatus = BatchCaseStatus;
export type BatchLogRecord = BatchRecord;

/** Throws BAD_INPUT (naming `--resume`) unless `batchId` is an id a batch can have. */
export function checkBatchId(batchId: string): string {
  if (!isBatchId(batchId))
    throw new WeftError(
      'BAD_INPUT',
      `Invalid batch id ${JSON.stringify(batchId)}: expected letters, digits, '.', '_' or '-'`,
      { location: { field: '--resume' } },
    );
  return batchId;
}

/** `b-20261125-060830-3fa9c2`: sortable by time, unique enough for one store. */
export function newBatchId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `b-${stamp}-${Math.random().toString(16).slice(2, 8)}`;
}

/** Records a new batch; BAD_INPUT when one of its id exists already (creation is exclusive). */
export async function createBatch(store: BatchStore, manifest: BatchManifest): Promise<void> {
  try {
    await store.createBatch({ batchId: manifest.batchId, manifest: { ...manifest } });
  } catch (error) {
    if (isWeftError(error) && error.code === 'STORE' && /already exists/.test(error.message))
      throw new WeftError('BAD_INPUT', `batch ${manifest.batchId} already exists`, { location: { field: '--inputs' } });
    throw error;
  }
}

/** A stored manifest checked against this version's shape; `where` names the store for the message. */
export function parseBatchManifest(batchId: string, value: unknown, where: string): BatchManifest {
  const parsed = batchManifestSchema.safeParse(value);
  if (!parsed.success || parsed.data.batchId !== batchId) {
    const issue = parsed.success ? undefined : parsed.error.issues[0];
    const why = issue ? `: ${issue.path.join('.') || 'the document'}: ${issue.message}` : `: it names another batch`;
    throw new WeftError(
      'BAD_INPUT',
      `the manifest of batch ${batchId} in ${where} is not a batch manifest of this version of Weft, or it is damaged${why}`,
      { location: { file: where, field: '--resume' } },
    );
  }
  return parsed.data as BatchManifest;
}

/** The manifest's shape; the dashboard reads manifests with it too. */
export const batchManifestSchema = z.object({
  version: z.literal(1),
  batchId: z.string(),
  createdAt: z.string(),
  workflow: z.object({ path: z.string().min(1), sha256: z.string() }),
  tools: z.object({ path: z.string().min(1) }).optional(),
  inputs: z.object({ path: z.string().min(1), sha256: z.string(), cases: z.number().int().min(0) }),
  options: z.object({
    concurrency: z.number().int().min(1),
    maxVisits: z.number().int().min(1).optional(),
    out: z.string().min(1).optional(),
    workers: z.string().optional(),
  }),
});

/**
 * Takes the batch for this process; BAD_INPUT when another live process has it (or one on another host: it cannot
 * be checked). Returns the release function.
 */
export async function acquireBatch(store: BatchStore, batchId: string): Promise<() => Promise<void>> {
  const me = currentOwner();
  const release = async () => {
    await store.releaseBatch(batchId, me).catch(() => {});
  };
  for (let tries = 0; tries < 3; tries++) {
    const info = await store.getBatch(batchId);
    if (!info) throw new WeftError('BAD_INPUT', `no batch ${batchId}`, { location: { field: '--resume' } });
    const owner = info.owner;
    if (owner && ownerState(owner) !== 'gone')
      throw new WeftError(
        'BAD_INPUT',
        `batch ${batchId} is being run by process ${owner.pid} on ${owner.host}; wait for it to end (or stop it)`,
        { location: { field: '--resume' } },
      );
    // No owner, or a dead one: take it, unless another process took it in between (then look again).
    if (await store.takeOverBatch(batchId, me, owner)) return release;
  }
  throw new WeftError('BAD_INPUT', `batch ${batchId}: could not take it over (other processes keep taking it)`, {
    location: { field: '--resume' },
  });
}

/** Records read per page when a log is read through. */
const READ_PAGE = 1000;

/** A batch's log, record by record, a page at a time: 100,000 records are never one array. */
export async function* batchRecordsOf(
  store: BatchStore,
  batchId: string,
  pageSize = READ_PAGE,
): AsyncGenerator<BatchRecord> {
  const size = Math.min(MAX_BATCH_PAGE, Math.max(1, pageSize));
  let after = 0;
  for (;;) {
    const page = await store.batchRecords(batchId, after, size);
    for (const stored of page) yield stored.record;
    if (page.length < size) return;
    after = page[page.length - 1]!.seq;
  }
}

/**
 * An append-only JSONL file (the `--out` results). `append` writes at once (with whatever is pending before it,
 * in one write); `appendLater` keeps the record until the next `append`, `flush` or `close`, or until enough are
 * pending.
 */
export interface AppendLog {
  append(record: unknown): void;
  appendLater(record: unknown): void;
  flush(): void;
  close(): void;
}

/** Records kept by `appendLater` before they are written anyway. */
const MAX_PENDING = 64;

export function openAppendLog(path: string, { truncate = false }: { truncate?: boolean } = {}): AppendLog {
  const fd = openSync(
    path,
    (truncate ? constants.O_WRONLY | constants.O_TRUNC : constants.O_RDWR | constants.O_APPEND) |
      constants.O_CREAT |
      (constants.O_NOFOLLOW ?? 0),
    0o644,
  );
  let open = true;
  // A torn last line is ended here, so the first record appended starts a line of its own.
  let pending = truncate || endsLine(fd) ? '' : '\n';
  let count = 0;
  const write = (text: string) => {
    if (text !== '') writeSync(fd, text);
  };
  const flush = () => {
    const text = pending;
    pending = '';
    count = 0;
    write(text);
  };
  return {
    append(record) {
      const text = `${pending}${JSON.stringify(record)}\n`;
      pending = '';
      count = 0;
      write(text);
    },
    appendLater(record) {
      pending += `${JSON.stringify(record)}\n`;
      if (++count >= MAX_PENDING) flush();
    },
    flush,
    close() {
      if (!open) return;
      flush();
      closeSync(fd);
      open = false;
    },
  };
}

/** Whether an open file is empty or ends with a line break. */
function endsLine(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 10;
}

/** What the log says so far: the last result of each case and how many times each was started. */
export interface BatchLogState {
  /** Case key → final status; `interrupted` results are listed in `interrupted` too. */
  readonly results: Map<string, CaseStatus>;
  readonly interrupted: Set<string>;
  /** Case key → starts recorded. */
  readonly starts: Map<string, number>;
}

/** Reads the batch's log through, a page at a time; `onResult` sees each case's result records in order. */
export async function readBatchLog(
  store: BatchStore,
  batchId: string,
  onResult?: (record: BatchResultRecord) => void,
): Promise<BatchLogState> {
  const state: BatchLogState = { results: new Map(), interrupted: new Set(), starts: new Map() };
  for await (const record of batchRecordsOf(store, batchId)) {
    const key = String(record.id);
    if (record.type === 'case-start') state.starts.set(key, (state.starts.get(key) ?? 0) + 1);
    else {
      state.results.set(key, record.status);
      if (record.interrupted) state.interrupted.add(key);
      else state.interrupted.delete(key);
      onResult?.(record);
    }
  }
  return state;
}
