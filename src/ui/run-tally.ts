/**
 * The runs list's numbers for one run (duration, calls, tokens, cost), folded from its events. Incremental: the
 * list is refreshed every few seconds, and a run's tally only reads the events after the ones already counted.
 */
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

export function addToTally(tally: RunTally, events: readonly StoredEvent[]): RunTally {
  for (const { seq, event } of events) {
    tally.lastSeq = Math.max(tally.lastSeq, seq);
    tally.durationMs = Math.max(tally.durationMs, event.at);
    const record = event as unknown as { type: string } & Record<string, unknown>;
    if (record.type === 'call') {
      tally.calls += 1;
      tally.inputTokens += numberOr0(record['inputTokens']);
      tally.outputTokens += numberOr0(record['outputTokens']);
      tally.costUsd += numberOr0(record['costUsd']);
    } else if (record.type === 'tool-call') tally.toolCalls += 1;
    else if (record.type === 'tool-result' && record['ok'] === false) tally.toolCallsFailed += 1;
    else if (record.type === 'plan-chosen' || record.type === 'plan-update') {
      const workflow = record['workflow'] as { subtasks?: unknown[] } | undefined;
      tally.subtasks = Array.isArray(workflow?.subtasks) ? workflow.subtasks.length : tally.subtasks;
    }
  }
  return tally;
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
