/**
 * Runs a batch of cases through one workflow (`weft exec --inputs`), durably: each case's `case-start` is in the batch
 * log (in the store) before it runs and its `case-end` after, so a resume runs no case twice. A case error (tool, JSONata, visit
 * cap, bad input) ends that case, never the batch. Where a case runs is the caller's `runCase`: in this process
 * (`runWorkflow`) or on a BullMQ worker.
 *
 * Memory: the cases stream from the file; what is kept is one status per case id (to count and to resume) and at
 * most `resultLimit` full results for the summary. Every result goes to `out` (JSONL, completion order) as it
 * finishes; a resume first writes `out` again from the log's results.
 *
 * A case found started without a result was interrupted: it may have called tools, so it is not run again unless
 * `rerunInterrupted`; it gets a result record `interrupted; not run again` (code INTERRUPTED), which a later
 * resume with `rerunInterrupted` replaces by running it.
 */
import { setMaxListeners } from 'node:events';
import { WeftError, isWeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { sameJson } from '../text/same-json.js';
import type { BatchCase } from './batch-cases.js';
import type { BatchStore } from '../store/batch-records.js';
import {
  type AppendLog,
  type BatchError,
  type BatchLogRecord,
  type CaseStatus,
  openAppendLog,
  readBatchLog,
} from './batch-store.js';
import { type BatchWriter, openBatchWriter } from './batch-writer.js';

export const DEFAULT_RESULT_LIMIT = 1000;
/**
 * The largest output a case may have, in characters of JSON: a case's result is one line of the log and of `out`,
 * and the summary holds many. (An expected value is on a cases line of at most MAX_CASE_LINE_BYTES.) Larger is the
 * case's error OUTPUT_TOO_LARGE — a 20 MB output per case took 3.7 GB and ended the batch unrecorded.
 */
export const MAX_CASE_OUTPUT_CHARS = 1_000_000;
/** Outputs kept for the summary stop at this many characters (the rest are in `out`), whatever `resultLimit`. */
const RESULT_CHARS_BUDGET = 32_000_000;
export const DEFAULT_DRAIN_MS = 10_000;
/** Results not followed by a start record are written after at most this long. */
const FLUSH_MS = 200;

export interface CaseRun {
  readonly output: unknown;
  readonly steps: number;
  readonly toolCalls: number;
}

/**
 * Thrown by a case runner for a case that may have run partly somewhere it can no longer be asked about (a worker
 * that died mid-case): recorded like a case found interrupted on a resume, and rerun only with `rerunInterrupted`.
 */
export class CaseInterrupted extends Error {}

/** Runs one case; throws its error (a WeftError names the node and field). `attempt` is 1, or more on a rerun. */
export type CaseRunner = (item: BatchCase, attempt: number, signal: AbortSignal) => Promise<CaseRun>;

export interface BatchResult {
  readonly id: string | number;
  readonly output: unknown;
  readonly ok: boolean;
  readonly error?: BatchError;
}

export interface BatchProgress {
  readonly done: number;
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
}

export interface RunBatchOptions {
  readonly batchId: string;
  /** Where the batch is kept (created, and owned by this process, before the call). */
  readonly store: BatchStore;
  /** The cases, in file order (read again on each call). */
  readonly cases: () => AsyncIterable<BatchCase>;
  readonly total: number;
  readonly runCase: CaseRunner;
  readonly concurrency: number;
  /**
   * Results JSONL, completion order. Written anew on every run from the log's results, then the new ones: a resume
   * leaves it listing each result as the log has it.
   */
  readonly out?: { readonly path: string };
  readonly rerunInterrupted?: boolean;
  /** Full results kept for the summary (default 1000, and outputs of at most 32M characters); the rest are only in `out`. */
  readonly resultLimit?: number;
  readonly onProgress?: (progress: BatchProgress) => void;
  /** Stops taking cases; running ones get `drainMs` to finish, then are cancelled and left unrecorded. */
  readonly signal?: AbortSignal;
  readonly drainMs?: number;
}

export interface BatchSummary {
  readonly batchId: string;
  readonly cases: number;
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
  /** Cases with no result yet (a stopped batch): `cases = passed + failed + errors + notRun`. */
  readonly notRun: number;
  readonly ranNow: number;
  readonly results: readonly BatchResult[];
  /** Results not in `results` (over the limit): they are in the `out` file. */
  readonly resultsOmitted: number;
  readonly stopped: boolean;
}

export async function runBatch(options: RunBatchOptions): Promise<BatchSummary> {
  const limit = options.resultLimit ?? DEFAULT_RESULT_LIMIT;
  integerOption(options.concurrency, '--concurrency', { min: 1 });
  const kept = new Map<string, BatchResult>();
  let keptChars = 0;
  const keep = (key: string, result: BatchResult) => {
    if (kept.has(key)) {
      kept.set(key, result);
      return;
    }
    if (kept.size >= limit || keptChars >= RESULT_CHARS_BUDGET) return;
    keptChars += JSON.stringify(result.output)?.length ?? 0;
    kept.set(key, result);
  };
  let out: AppendLog | undefined;
  try {
    out = options.out ? openAppendLog(options.out.path, { truncate: true }) : undefined;
  } catch (error) {
    throw new WeftError('BAD_INPUT', `cannot write ${options.out?.path}: ${(error as Error).message}`, {
      location: { field: '--out' },
    });
  }
  let prior: Awaited<ReturnType<typeof readBatchLog>>;
  try {
    // The results file is written again from the log: a kill can lose results it had not written yet but the log
    // had (the two files are written apart), and those cases are not run again.
    prior = await readBatchLog(options.store, options.batchId, (record) => {
      const key = String(record.id);
      const result = resultOf(record);
      keep(key, result);
      out?.appendLater(result);
    });
  } catch (error) {
    out?.close();
    throw error;
  }
  const statuses = new Map(prior.results);
  const counts = { passed: 0, failed: 0, errors: 0 };
  const bump = (status: CaseStatus, by: number) => {
    if (status === 'passed') counts.passed += by;
    else if (status === 'failed') counts.failed += by;
    else counts.errors += by;
  };
  for (const status of statuses.values()) bump(status, 1);

  const log: BatchWriter = openBatchWriter(options.store, options.batchId);
  const progress = () => options.onProgress?.({ done: statuses.size, total: options.total, ...counts });
  const record = (
    item: BatchCase,
    status: CaseStatus,
    fields: Omit<BatchLogRecord & { type: 'case-end' }, 'type' | 'id' | 'status'>,
  ) => {
    const previous = statuses.get(item.key);
    if (previous !== undefined) bump(previous, -1);
    statuses.set(item.key, status);
    bump(status, 1);
    log.later({ type: 'case-end', id: item.id, status, ...fields });
    const result = resultOf({ type: 'case-end', id: item.id, status, ...fields });
    out?.appendLater(result);
    keep(item.key, result);
    progress();
  };

  const stop = new AbortController(); // cancels running cases once the drain time is over
  // Every running case (and each of its tool calls) listens on it: as many as the concurrency, by design. Infinity,
  // not 0: on Node 20, 0 turns the warning off too, but `getMaxListeners` then throws on the signal (the tool loop reads it).
  setMaxListeners(Number.POSITIVE_INFINITY, stop.signal);
  let stopping = options.signal?.aborted ?? false;
  let drainTimer: NodeJS.Timeout | undefined;
  const onAbort = () => {
    stopping = true;
    drainTimer = setTimeout(
      () => stop.abort(new WeftError('ABORTED', 'the batch was stopped')),
      options.drainMs ?? DEFAULT_DRAIN_MS,
    );
    drainTimer.unref?.();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // Results wait for the next start record (one write for both); this writes them when no case starts for a while.
  const flusher = setInterval(() => {
    // A failed append is seen by the next start (and by close): the batch stops there.
    log.flush().catch(() => {});
    out?.flush();
  }, FLUSH_MS);
  flusher.unref?.();
  let ranNow = 0;
  const iterator = options.cases()[Symbol.asyncIterator]();
  const worker = async () => {
    while (!stopping) {
      const next = await iterator.next();
      if (next.done) return;
      const item = next.value;
      const done = statuses.has(item.key);
      const interrupted = prior.interrupted.has(item.key) || (!done && (prior.starts.get(item.key) ?? 0) > 0);
      if (done && !(interrupted && options.rerunInterrupted)) continue;
      if (interrupted && !options.rerunInterrupted) {
        if (!done)
          record(item, 'error', {
            interrupted: true,
            error: { code: 'INTERRUPTED', message: 'interrupted; not run again (it may have called tools)' },
          });
        continue;
      }
      const attempt = (prior.starts.get(item.key) ?? 0) + 1;
      await log.start({ type: 'case-start', id: item.id, attempt });
      ranNow += 1;
      try {
        const run = await options.runCase(item, attempt, stop.signal);
        const output = run.output === undefined ? null : run.output;
        const size = JSON.stringify(output)?.length ?? 0;
        if (size > MAX_CASE_OUTPUT_CHARS) {
          record(item, 'error', {
            steps: run.steps,
            toolCalls: run.toolCalls,
            error: {
              code: 'OUTPUT_TOO_LARGE',
              message: `the output is ${size} characters of JSON; at most ${MAX_CASE_OUTPUT_CHARS} are recorded`,
            },
          });
          continue;
        }
        const ok = item.expected === undefined || sameJson(output, item.expected.value);
        record(item, ok ? 'passed' : 'failed', { output, steps: run.steps, toolCalls: run.toolCalls });
      } catch (error) {
        // Cancelled by our own stop: left started without a result, so a resume reports it interrupted.
        if (stop.signal.aborted && isWeftError(error) && error.code === 'ABORTED') continue;
        if (error instanceof CaseInterrupted)
          record(item, 'error', { interrupted: true, error: { code: 'INTERRUPTED', message: error.message } });
        else record(item, 'error', { error: batchErrorOf(error) });
      }
    }
  };
  try {
    progress();
    // No more loops than cases: the rest would only wait for an iterator that has nothing left.
    await Promise.all(Array.from({ length: Math.min(options.concurrency, Math.max(1, options.total)) }, worker));
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    clearInterval(flusher);
    if (drainTimer) clearTimeout(drainTimer);
    await iterator.return?.();
    out?.close();
    await log.close();
  }
  const finished = counts.passed + counts.failed + counts.errors;
  return {
    batchId: options.batchId,
    cases: options.total,
    ...counts,
    notRun: Math.max(0, options.total - finished),
    ranNow,
    results: [...kept.values()],
    resultsOmitted: finished - kept.size,
    stopped: stopping,
  };
}

function resultOf(record: Extract<BatchLogRecord, { type: 'case-end' }>): BatchResult {
  return {
    id: record.id,
    output: record.output === undefined ? null : record.output,
    ok: record.status === 'passed',
    ...(record.error ? { error: record.error } : {}),
  };
}

/** A case's error as the log and the results show it: code, message (naming node and expression), field. */
export function batchErrorOf(error: unknown): BatchError {
  if (isWeftError(error)) {
    const field = error.location?.field;
    return { code: error.code, message: error.message, ...(field ? { field } : {}) };
  }
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}
