/**
 * The exec-case job kind: cases of a `weft exec --inputs` batch run by a `weft worker`. The job
 * carries a chunk of cases (id, attempt, input), the hash of the workflow document and what tools it needs; the document
 * itself is stored once per batch in Redis under its hash (`workflowKey`), so 100k jobs do not carry 100k
 * copies. A worker checks the hash of what it reads, validates the workflow once per hash, and runs it with its
 * own tools file (`weft worker --tools`, secrets in its own environment; never a file named by the job).
 */
import type { JobTools } from '../run/run-tools.js';
import type { JobFailure } from './attempt-job.js';

export const EXEC_CASE_JOB = 'exec-case';

export interface ExecCaseJobData {
  readonly kind: typeof EXEC_CASE_JOB;
  readonly batchId: string;
  /** sha256 of the workflow document text stored at `workflowKey(queue, hash)`. */
  readonly workflowHash: string;
  /** The tools the workflow calls, with their schemas (the worker's tools must match), and the batch's tools file. */
  readonly tools: Pick<JobTools, 'declarations'> & { readonly path?: string };
  /**
   * The cases, run one after another: a case is often well under a millisecond of work, less than a queue round
   * trip, so cases travel in chunks (the coordinator's `chunkSize`).
   */
  readonly cases: readonly ExecCase[];
  readonly maxVisits?: number;
}

export interface ExecCase {
  readonly id: string | number;
  readonly attempt: number;
  readonly input: Readonly<Record<string, unknown>>;
}

export type ExecCaseOutcome =
  | { readonly output: unknown; readonly steps: number; readonly toolCalls: number }
  | { readonly error: JobFailure & { readonly field?: string } }
  /** Started by an earlier attempt of this job whose worker died: it may have called tools, so not run again. */
  | { readonly interrupted: true };

export interface ExecCaseJobResult {
  /** One per case, in the job's order. */
  readonly results?: readonly ExecCaseOutcome[];
  /** A failure of the whole job (its workflow or tools): every case gets it. */
  readonly error?: JobFailure & { readonly field?: string };
  /** Refused: the batch's coordinator is gone (no live key). */
  readonly cancelled?: boolean;
  readonly worker: string;
}

/** `batch:chunk:1` (BullMQ job ids hold at most two colons: the batch id has none). */
export function execCaseJobId(batchId: string, chunk: string): string {
  return `${batchId}:${chunk}:1`;
}

/** The cases of a job started so far (their indexes), kept across the job's attempts. */
export function execCaseJournalKey(queueName: string, jobId: string): string {
  return `weft:${queueName}:exec-journal:${jobId}`;
}

export function workflowKey(queueName: string, hash: string): string {
  return `weft:${queueName}:workflow:${hash}`;
}

export function isExecCaseJob(data: unknown): data is ExecCaseJobData {
  return typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === EXEC_CASE_JOB;
}
