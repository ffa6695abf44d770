/**
 * The execution trace of a run whose roles called tools (a tool-using `weft run` also yields traces),
 * from the run's log (pure): its tool calls in the order they started, each with the subtask that made it as the
 * step, and the run's result (its sink subtasks' outputs) as the answer. A run with no tool calls has no trace.
 */
import { MAX_TRACE_ARGS_CHARS, traceValue } from '../store/trace-value.js';
import type { NewTrace, TraceToolCall } from '../store/traces.js';
import type { WeftEvent } from './events.js';
import { runResult } from './run-result.js';
import type { RunSummary } from './run-summary.js';
import { toolCallViews } from './tool-call-lines.js';

export interface RunTraceSource {
  readonly traceId: string;
  readonly runId: string;
  readonly task: string;
  /** The model spec, redacted. */
  readonly model: string;
  readonly toolsPath?: string;
  readonly summary: RunSummary & { readonly reason?: string };
  readonly events: Iterable<WeftEvent>;
}

export function runTrace(source: RunTraceSource): NewTrace | undefined {
  const calls = toolCallViews(source.events).map((view): TraceToolCall => {
    const end = view.end;
    return {
      tool: view.name,
      args: traceValue(view.args, MAX_TRACE_ARGS_CHARS),
      ok: end?.ok ?? false,
      ...(end === undefined
        ? { error: 'the call did not finish (the run stopped during it)' }
        : end.ok
          ? { result: traceValue(end.result) }
          : { error: end.error ?? 'failed' }),
      durationMs: end?.durationMs ?? 0,
      step: view.taskId,
    };
  });
  if (calls.length === 0) return undefined;
  const { summary } = source;
  const result = runResult(summary.tasks);
  const success = summary.status === 'completed' && result !== undefined;
  const error = success
    ? undefined
    : summary.status !== 'completed'
      ? `the run ended ${summary.status}${summary.reason !== undefined ? `: ${summary.reason}` : ''}`
      : 'the run gave no result';
  return {
    traceId: source.traceId,
    task: source.task,
    mode: 'run',
    model: source.model,
    input: {},
    ...(source.toolsPath !== undefined ? { toolsPath: source.toolsPath } : {}),
    calls,
    ...(result !== undefined ? { answer: answerOf(result.text) } : {}),
    success,
    ...(error !== undefined ? { error } : {}),
    usage: {
      calls: summary.calls,
      inputTokens: summary.tokens.input,
      outputTokens: summary.tokens.output,
      ...(summary.costUsd > 0 ? { costUsd: summary.costUsd } : {}),
    },
    runId: source.runId,
  };
}

/** JSON when the whole result is JSON, else its text. */
function answerOf(text: string): unknown {
  try {
    return traceValue(JSON.parse(text));
  } catch {
    return text;
  }
}
