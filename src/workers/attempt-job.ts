/**
 * What travels through the queue: the serialisable part of a subtask attempt, and what the worker sends back
 * (the outcome or a failure, plus every model call it made so the coordinator can record and charge them).
 */
import type { ChatResult } from '../llm/chat-model.js';
import type { RemoteCall } from '../runtime/metered-model.js';
import type { AttemptOutcome, SubtaskAttempt } from '../run/run-subtask.js';
import type { JobTools, ToolEventRecord } from '../run/run-tools.js';
import { WeftError, isWeftError, type WeftErrorCode } from '../errors.js';

export const DEFAULT_QUEUE_NAME = 'weft-subtasks';

/** The serialisable part of a `SubtaskAttempt` (no model, no signal), plus what a worker needs to run it. */
export interface AttemptJobData extends Omit<SubtaskAttempt, 'model' | 'signal' | 'tools'> {
  /** For a role with tools: their declarations (the worker needs the same tools file), limits, what is recorded. */
  readonly tools?: JobTools;
  readonly runId: string;
  /** The coordinator's model spec; a worker started with `--model` uses it only for jobs without one. */
  readonly modelSpec?: string;
  /** Replies this attempt already got before the coordinator resumed, as `[callKey, reply]`: not asked again. */
  readonly replay?: readonly (readonly [string, ChatResult])[];
  /** The coordinator's attempt span (W3C traceparent), when it traces: the worker's `chat` spans join its trace. */
  readonly traceparent?: string;
}

export interface JobFailure {
  readonly code: WeftErrorCode;
  readonly message: string;
  readonly retryable: boolean;
}

export interface AttemptJobResult {
  readonly outcome?: AttemptOutcome;
  readonly error?: JobFailure;
  /** The job was cancelled before it started. */
  readonly cancelled?: boolean;
  readonly calls: readonly RemoteCall[];
  /** The tool calls it made (and results), in order, for the run's log. */
  readonly toolEvents?: readonly ToolEventRecord[];
  /** Which worker ran it (`host:pid`). */
  readonly worker: string;
}

/** BullMQ job ids may hold exactly two colons: `run:subtask:attempt`, with colons in the parts escaped. */
export function attemptJobId(runId: string, taskId: string, attempt: number): string {
  const escapePart = (part: string) => part.replace(/%/g, '%25').replace(/:/g, '%3A');
  return `${escapePart(runId)}:${escapePart(taskId)}:${attempt}`;
}

/**
 * The job's journal: every model call and tool event of the job, appended as it happens (a tool call before it
 * runs), so that a job run again after its worker died replays them instead of repeating a side effect.
 */
export function journalKey(queueName: string, jobId: string): string {
  return `weft:${queueName}:journal:${jobId}`;
}

/** Key a coordinator sets to tell a worker that picks the job up to return at once. */
export function cancelKey(queueName: string, jobId: string): string {
  return `weft:${queueName}:cancelled:${jobId}`;
}

/**
 * Key a coordinator holds (with an expiry it keeps renewing) while it waits for any job of the run: a worker
 * refuses a job whose run has none, so jobs left behind by a coordinator that died are not run unheard.
 */
export function liveKey(queueName: string, runId: string): string {
  return `weft:${queueName}:live:${runId}`;
}

export function toJobFailure(error: unknown): JobFailure {
  if (isWeftError(error)) return { code: error.code, message: error.message, retryable: error.retryable };
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error), retryable: false };
}

export function fromJobFailure(failure: JobFailure): WeftError {
  return new WeftError(failure.code, failure.message, { retryable: failure.retryable });
}
