/**
 * What a subtask's next attempt is told of its earlier ones (docs/algorithms.md#retries-that-learn): each attempt
 * that produced a result that was not accepted, with the verifier's reason (or the agent's "cannot proceed"). Pure.
 *
 * Two places keep it and must agree: the executor's reducer (run-state.ts), as attempts settle, and the fold of a
 * run's log (`foldEarlierAttempts`, for resume), from `task-end` and `task-verify` events. Both forget a
 * subtask's earlier attempts when a plan update changes its objective or drops it, and both keep only the latest
 * MAX_EARLIER_ATTEMPTS with each output cut, so what a retry is told after a resume is what it would have been told.
 */
import { clip, MAX_EARLIER_ATTEMPTS, MAX_EARLIER_OUTPUT_CHARS, type EarlierAttempt } from '../plan/prompts.js';
import type { AttemptFeedback, WeftEvent } from './events.js';

export interface EarlierAttempts {
  /** The latest attempts, oldest first, outputs cut. */
  readonly shown: readonly EarlierAttempt[];
  /** Earlier attempts left out of `shown`. */
  readonly leftOut: number;
}

export const NO_EARLIER_ATTEMPTS: EarlierAttempts = Object.freeze({ shown: Object.freeze([]), leftOut: 0 });

/** The reason a blocked attempt's `task-end` records, and the one its next attempt is told. */
export function blockedReason(reason: string): string {
  return `cannot proceed: ${reason}`;
}

/** `earlier` with one more attempt, the oldest dropped past the limit. */
export function withEarlierAttempt(earlier: EarlierAttempts, entry: EarlierAttempt): EarlierAttempts {
  const all = [...earlier.shown, { ...entry, output: clip(entry.output, MAX_EARLIER_OUTPUT_CHARS) }];
  const drop = Math.max(0, all.length - MAX_EARLIER_ATTEMPTS);
  return { shown: all.slice(drop), leftOut: earlier.leftOut + drop };
}

/** What the `task-start` event records of what an attempt was told (the outputs are in the earlier `task-end`s). */
export function feedbackOf(earlier: EarlierAttempts): AttemptFeedback[] {
  return earlier.shown.map((entry) => ({ attempt: entry.attempt, verdict: entry.verdict, reason: entry.reason }));
}

/** The fold's state: each subtask's objective under the latest plan version, its earlier attempts, its open output. */
export interface EarlierAttemptsFold {
  readonly objectives: Map<string, string>;
  readonly earlier: Map<string, EarlierAttempts>;
  /** An attempt's output until its verdict. */
  readonly pending: Map<string, { readonly attempt: number; readonly output: string }>;
  /** The whole output of each subtask's latest attempt that was not accepted (what the inspector is shown). */
  readonly lastRejected: Map<string, { readonly attempt: number; readonly output: string }>;
}

export function newEarlierAttemptsFold(): EarlierAttemptsFold {
  return { objectives: new Map(), earlier: new Map(), pending: new Map(), lastRejected: new Map() };
}

/** Folds one event; events that say nothing of attempts are ignored. */
export function foldEarlierAttempts(fold: EarlierAttemptsFold, event: WeftEvent): void {
  switch (event.type) {
    case 'plan-chosen':
    case 'plan-update': {
      // As the reducer's load: a subtask keeps its earlier attempts only under the same objective.
      const kept = new Set<string>();
      for (const subtask of event.workflow.subtasks) {
        kept.add(subtask.id);
        if (fold.objectives.get(subtask.id) !== subtask.objective) forget(fold, subtask.id);
        fold.objectives.set(subtask.id, subtask.objective);
      }
      for (const id of [...fold.objectives.keys()]) {
        if (kept.has(id)) continue;
        fold.objectives.delete(id);
        forget(fold, id);
      }
      break;
    }
    case 'task-end':
      if (event.outcome !== undefined || event.output === undefined) break;
      if (event.status === 'completed') {
        fold.pending.set(event.taskId, { attempt: event.attempt, output: event.output });
      } else {
        // A failed end that carries an output is an agent that said it cannot proceed.
        add(fold, event.taskId, {
          attempt: event.attempt,
          verdict: 'blocked',
          output: event.output,
          reason: event.error ?? '',
        });
      }
      break;
    case 'task-verify': {
      const pending = fold.pending.get(event.taskId);
      fold.pending.delete(event.taskId);
      if (event.verdict === 'accept' || pending?.attempt !== event.attempt) break;
      add(fold, event.taskId, {
        attempt: event.attempt,
        verdict: event.verdict,
        output: pending.output,
        reason: event.reason,
      });
      break;
    }
    default:
      break;
  }
}

function forget(fold: EarlierAttemptsFold, id: string): void {
  fold.earlier.delete(id);
  fold.lastRejected.delete(id);
}

function add(fold: EarlierAttemptsFold, id: string, entry: EarlierAttempt): void {
  fold.earlier.set(id, withEarlierAttempt(fold.earlier.get(id) ?? NO_EARLIER_ATTEMPTS, entry));
  fold.lastRejected.set(id, { attempt: entry.attempt, output: entry.output });
}
