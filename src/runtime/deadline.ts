/**
 * The wall-time budget as a deadline. `budgetGate` refuses calls once the time is spent, but a call or a queued job
 * already in flight would run on to its own end (a `--workers` run with no worker running, forever): the deadline
 * aborts them when the time passes, and the run ends `failed` with the budget's reason.
 */
import { WeftError } from '../errors.js';
import { wallTimeExceeded, type RunBudgetGate } from './budget.js';

export interface Deadline {
  /** Aborts (reason: WeftError ABORTED carrying `reason`) when the deadline passes; never without a wall budget. */
  readonly signal: AbortSignal | undefined;
  /** The run's reason once the deadline has passed, else undefined. */
  readonly reason: () => string | undefined;
  /** Stops the timer (the run is over). */
  clear(): void;
}

/** A deadline `maxWallMs` after the run's start, `elapsedMs` of which have passed (a resumed run continues). */
export function startDeadline(maxWallMs: number | undefined, elapsedMs: number, gate: RunBudgetGate): Deadline {
  if (maxWallMs === undefined) return { signal: undefined, reason: () => undefined, clear() {} };
  const controller = new AbortController();
  let reason: string | undefined;
  const expire = () => {
    reason = gate.refuse(wallTimeExceeded(maxWallMs)).message;
    controller.abort(new WeftError('ABORTED', reason));
  };
  // setTimeout's limit is about 24.8 days; a longer budget is left to the check before each call.
  const delay = Math.max(0, maxWallMs - elapsedMs);
  const timer = delay <= 2 ** 31 - 1 ? setTimeout(expire, delay) : undefined;
  // The deadline alone must not keep a finished process alive.
  timer?.unref();
  return { signal: controller.signal, reason: () => reason, clear: () => clearTimeout(timer) };
}
