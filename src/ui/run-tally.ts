/**
 * The runs list's numbers for one run (duration, calls, tokens, cost), folded from its events. Incremental: the
 * list is refreshed every few seconds, and a run's tally only reads the events after the ones already counted.
 */
import type { WeftEvent } from '../run/events.js';
import type { StoredEvent } from '../store/run-store.js';

export interface RunTally {
  lastSeq: number;
  durationMs: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  subtasks: number;
  toolCalls: number;
  /** Tool calls that ended in an error (`tool-result` with `ok: false`). */
  toolCallsFailed: number;
}

export function emptyTally(): RunTally {
  return {
    lastSeq: 0,
    durationMs: 0,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    subtasks: 0,
    toolCalls: 0,
    toolCallsFailed: 0,
  };
}

export function addToTally(tally: RunTally, events: readonly StoredEvent<WeftEvent>[]): RunTally {
  for (const { seq, event } of events) {
    tally.lastSeq = Math.max(tally.lastSeq, seq);
    tally.durationMs = Math.max(tally.durationMs, event.at);
    // The fields are checked although typed: a log written by an earlier version may lack some of them.
    if (event.type === 'model-call') {
      tally.calls += 1;
      tally.inputTokens += numberOr0(event.inputTokens);
      tally.outputTokens += numberOr0(event.outputTokens);
      tally.costUsd += numberOr0(event.costUsd);
    } else if (event.type === 'tool-call') tally.toolCalls += 1;
    else if (event.type === 'tool-result' && event.ok === false) tally.toolCallsFailed += 1;
    else if (event.type === 'plan-chosen' || event.type === 'plan-update') {
      const subtasks: unknown = event.workflow?.subtasks;
      tally.subtasks = Array.isArray(subtasks) ? subtasks.length : tally.subtasks;
    }
  }
  return tally;
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
