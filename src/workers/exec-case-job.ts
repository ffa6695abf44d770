/**
 * The exec-case job kind (issue 14): one case of a `weft exec --inputs` batch run by a `weft worker`. The job
 * carries the case (id, attempt, input), the hash of the workflow document and what tools it needs; the document
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
  readonly caseId: string | number;
  readonly attempt: number;
  readonly input: Readonly<Record<string, unknown>>;
  readonly maxVisits?: number;
}

export interface ExecCaseJobResult {
  readonly output?: unknown;
  readonly steps?: number;
  readonly toolCalls?: number;
  readonly error?: JobFailure & { readonly field?: string };
  /** Refused: the batch's coordinator is gone (no live key). */
  readonly cancelled?: boolean;
  readonly worker: string;
}

/** `batch:case:attempt` (BullMQ job ids hold at most two colons: the parts have theirs escaped). */
export function execCaseJobId(batchId: string, caseKey: string, attempt: number): string {
  const escapePart = (part: string) => part.replace(/%/g, '%25').replace(/:/g, '%3A');
  return `${escapePart(batchId)}:${escapePart(caseKey)}:${attempt}`;
}

export function workflowKey(queueName: string, hash: string): string {
  return `weft:${queueName}:workflow:${hash}`;
}

export function isExecCaseJob(data: unknown): data is ExecCaseJobData {
  return typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === EXEC_CASE_JOB;
}
