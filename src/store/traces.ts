/**
 * Execution traces (issue 14, SPEC §5.1) as the stores keep them: what an agent did to solve one concrete instance
 * of a task with business tools (`weft solve`, or a tool-using `weft run`) — its tool calls with arguments, results
 * and errors, and its final answer. `weft distill` summarizes one or more of them into a workflow. A trace is written
 * once, whole, when the agent has finished (or failed); it is never changed after. Kept apart from runs: `weft runs`
 * and `weft prune` do not see traces. Distillation (src/distill) owns the meaning; this file has the shape both
 * stores share.
 */
import type { RunOwner } from './run-store.js';

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
  /** For plan-execute, the plan step (from 0) it was made in; for a run, the subtask id. */
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
