/**
 * Execution traces (FlowMind's execute stage) as the stores keep them: what an agent did to solve one concrete instance
 * of a task with business tools (`weft solve`, or a tool-using `weft run`) — its tool calls with arguments, results
 * and errors, and its final answer. `weft distill` summarizes one or more of them into a workflow. A trace is written
 * once, whole, when the agent has finished (or failed); it is never changed after. Kept apart from runs: `weft runs`
 * and `weft prune` do not see traces. Distillation (src/distill) owns the meaning; this file has the shape both
 * stores share.
 */
import { randomBytes } from 'node:crypto';
import { WeftError } from '../errors.js';
import { deflate, parseJson } from './json-blobs.js';
import { newRunId } from './run-id.js';
import type { RunOwner } from './run-store.js';
import { checkOwner } from './store-validation.js';

/** How the trace came about: the execute stage's two strategies, or a run of a plan with tool-using roles. */
export type TraceMode = 'react' | 'plan-execute' | 'run';

export const TRACE_MODES: readonly TraceMode[] = ['react', 'plan-execute', 'run'];

/** One business tool call of the agent, in the order it was made. */
export interface TraceToolCall {
  readonly tool: string;
  /** The arguments as the tool got them (secret ones redacted, as in run logs), or the text the model sent. */
  readonly args: unknown;
  readonly ok: boolean;
  readonly result?: unknown;
  /** The error the agent saw, when `ok` is false. */
  readonly error?: string;
  readonly durationMs: number;
  /**
   * For plan-execute, the plan step (from 0) it was made in; for react, the model reply (from 0) that asked for it;
   * for a run, the subtask id.
   */
  readonly step?: number | string;
}

export interface TraceUsage {
  /** Model calls. */
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** US dollars, when the model's price is known. */
  readonly costUsd?: number;
}

export interface NewTrace {
  /** `t-` followed by the time and randomness (the alphabet of run ids). */
  readonly traceId: string;
  /** The task as the agent was given it. */
  readonly task: string;
  /** Groups traces of one task (a suite's task name, or what `--task-key` gave); `weft traces --task` filters on it. */
  readonly taskKey?: string;
  readonly mode: TraceMode;
  /** The model spec. */
  readonly model: string;
  /** The instance's inputs (a JSON object). */
  readonly input: unknown;
  /** The tools file as given, when there was one. */
  readonly toolsPath?: string;
  /** Plan-execute: the steps of the plan. */
  readonly plan?: readonly string[];
  readonly calls: readonly TraceToolCall[];
  /** The final answer: JSON when the agent's answer parsed as JSON, else its text. */
  readonly answer?: unknown;
  /** What the answer should have been, when the caller knew (a suite's train case). */
  readonly expected?: unknown;
  /** The agent gave an answer (and it equals `expected`, when that was given). */
  readonly success: boolean;
  /** Why it did not succeed. */
  readonly error?: string;
  readonly usage: TraceUsage;
  /** The run it was taken from (mode `run`). */
  readonly runId?: string;
  readonly owner?: RunOwner;
}

export interface TraceRecord extends NewTrace {
  /** ISO-8601. */
  readonly createdAt: string;
}

export interface TraceFilter {
  readonly taskKey?: string;
  /** Only successful traces. */
  readonly success?: boolean;
  /** Newest first, at most this many. */
  readonly limit?: number;
}

export interface TraceStore {
  /** Saves a finished trace; a trace id that exists already is an error (traces are never overwritten). */
  saveTrace(trace: NewTrace): Promise<void>;
  getTrace(traceId: string): Promise<TraceRecord | undefined>;
  /** Newest first. */
  listTraces(filter?: TraceFilter): Promise<TraceRecord[]>;
}

/**
 * What a trace id may be: `t-` then the run-id alphabet (digits, `a`-`f`, `-`), up to 64 characters after the
 * prefix; `newTraceId` makes `t-YYYYMMDD-HHMMSS-xxxxxxxx`. Ids are printed and typed after `weft traces show`, so
 * nothing that needs quoting.
 */
export const TRACE_ID_PATTERN = /^t-[0-9a-f][0-9a-f-]{0,63}$/;

/** `t-` + a run id's time and randomness, with two more random bytes (a suite solves many instances a second). */
export function newTraceId(date: Date = new Date()): string {
  return `t-${newRunId(date)}${randomBytes(2).toString('hex')}`;
}

export function isTraceId(traceId: unknown): traceId is string {
  return typeof traceId === 'string' && TRACE_ID_PATTERN.test(traceId);
}

/** A trace id as messages show it: as is when valid, otherwise quoted and cut to 40 characters. */
export function displayTraceId(traceId: unknown): string {
  if (isTraceId(traceId)) return traceId;
  if (typeof traceId !== 'string') return `(a ${typeof traceId})`;
  return traceId.length > 40
    ? `${JSON.stringify(traceId.slice(0, 40))}… (${traceId.length} characters)`
    : JSON.stringify(traceId);
}

export function isTraceStore(store: unknown): store is TraceStore {
  if (typeof store !== 'object' || store === null) return false;
  const candidate = store as Partial<Record<keyof TraceStore, unknown>>;
  return (
    typeof candidate.saveTrace === 'function' &&
    typeof candidate.getTrace === 'function' &&
    typeof candidate.listTraces === 'function'
  );
}

/** The store as a TraceStore, for commands that keep traces (`weft solve`, `weft traces`); a STORE error otherwise. */
export function traceStoreOf<S>(store: S): S & TraceStore {
  if (!isTraceStore(store))
    throw new WeftError('STORE', 'This run store keeps no traces (it does not implement TraceStore)');
  return store;
}

/** A trace as it is written: the columns the filters use, and the whole record as checked JSON text. */
export interface PreparedTrace {
  readonly traceId: string;
  readonly taskKey: string | null;
  readonly mode: TraceMode;
  readonly success: boolean;
  readonly model: string;
  readonly record: string;
}

function nonNegative(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * Checks a new trace before anything is written and serialises it whole. The record is plain JSON (json-blobs.ts
 * `deflate`, no blobs: a trace reads back on its own); anything else is a WeftError('STORE') naming the field.
 */
export function prepareTrace(trace: NewTrace, maxInteger: number): PreparedTrace {
  if (typeof trace !== 'object' || trace === null)
    throw new WeftError('STORE', 'Cannot store a trace: expected { traceId, task, mode, model, calls, success, … }');
  const traceId = trace.traceId;
  if (!isTraceId(traceId)) {
    throw new WeftError(
      'STORE',
      `Cannot store a trace with id ${displayTraceId(traceId)}: ids are 't-' then up to 64 digits, 'a'-'f' or '-'`,
    );
  }
  const fail = (reason: string): never => {
    throw new WeftError('STORE', `Cannot store trace ${traceId}: ${reason}`);
  };
  for (const field of ['task', 'model'] as const)
    if (typeof trace[field] !== 'string') fail(`${field} must be a string`);
  if (trace.taskKey !== undefined && typeof trace.taskKey !== 'string') fail('taskKey must be a string');
  if (!TRACE_MODES.includes(trace.mode)) {
    fail(`unknown mode ${JSON.stringify(trace.mode)}; expected one of ${TRACE_MODES.join(', ')}`);
  }
  if (typeof trace.success !== 'boolean') fail('success must be true or false');
  if (!Array.isArray(trace.calls)) fail('calls must be a list');
  const usage = trace.usage as Partial<TraceUsage> | undefined;
  if (
    typeof usage !== 'object' ||
    usage === null ||
    !nonNegative(usage.calls) ||
    !nonNegative(usage.inputTokens) ||
    !nonNegative(usage.outputTokens) ||
    (usage.costUsd !== undefined && !nonNegative(usage.costUsd))
  ) {
    fail('usage must have calls, inputTokens and outputTokens (and maybe costUsd) as numbers from 0');
  }
  if (trace.owner !== undefined) checkOwner(trace.owner, `the owner of trace ${traceId}`, maxInteger);
  const record = deflate(trace, `trace ${traceId}`, Number.POSITIVE_INFINITY).json;
  return {
    traceId,
    taskKey: trace.taskKey ?? null,
    mode: trace.mode,
    success: trace.success,
    model: trace.model,
    record,
  };
}

/** The trace row both stores keep (`success` is 0/1 in SQLite, a boolean in Postgres). */
export interface TraceRow {
  trace_id: string;
  created_at: string;
  record: string;
}

export function traceRecordFromRow(row: TraceRow): TraceRecord {
  const record = parseJson(row.record, `trace ${row.trace_id}`);
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    throw new WeftError('STORE', `The run store holds a trace ${row.trace_id} that is not an object`);
  return { ...(record as NewTrace), traceId: row.trace_id, createdAt: row.created_at };
}

/** A `listTraces` limit as a store passes it to SQL: a whole number from 0, or -1/null for none. */
export function checkTraceLimit(limit: unknown): number | undefined {
  if (limit === undefined) return undefined;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0)
    throw new WeftError('STORE', `Cannot list traces: limit must be a whole number from 0, got ${String(limit)}`);
  return limit;
}
