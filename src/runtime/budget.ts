/**
 * Budgets on model calls, tokens, cost and wall time, shared by every engine (docs/algorithms.md#budgets): the meter
 * that counts, the check before each call, and the gate that refuses with WeftError BUDGET once a budget is spent.
 */
import { WeftError } from '../errors.js';
import type { MeterEmit } from './meter-events.js';

export interface Budget {
  readonly maxCalls?: number;
  readonly maxTokens?: number;
  readonly maxCostUsd?: number;
  readonly maxWallMs?: number;
  /** Tool calls a run may make (checked before each tool call; run/run-tools.ts). */
  readonly maxToolCalls?: number;
}

export interface Meter {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export function createMeter(): Meter {
  return { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
}

/** The budgets a model call is checked against (tool calls are a run's own). */
export type ModelBudgetName = 'maxCalls' | 'maxTokens' | 'maxCostUsd' | 'maxWallMs';

/** Which budget the next call would break, and why, or undefined when it may go ahead. */
export function spentBudget(
  budget: Budget,
  meter: Meter,
  elapsedMs: number,
): { readonly budget: ModelBudgetName; readonly exceeded: string } | undefined {
  if (budget.maxCalls !== undefined && meter.calls >= budget.maxCalls)
    return { budget: 'maxCalls', exceeded: `call budget of ${budget.maxCalls} reached` };
  if (budget.maxTokens !== undefined && meter.inputTokens + meter.outputTokens >= budget.maxTokens)
    return { budget: 'maxTokens', exceeded: `token budget of ${budget.maxTokens} reached` };
  if (budget.maxCostUsd !== undefined && meter.costUsd >= budget.maxCostUsd)
    return { budget: 'maxCostUsd', exceeded: `cost budget of $${budget.maxCostUsd} reached` };
  if (budget.maxWallMs !== undefined && elapsedMs >= budget.maxWallMs)
    return { budget: 'maxWallMs', exceeded: wallTimeExceeded(budget.maxWallMs) };
  return undefined;
}

/** Why the next call would break the budget, or undefined when it may go ahead. */
export function budgetExceeded(budget: Budget, meter: Meter, elapsedMs: number): string | undefined {
  return spentBudget(budget, meter, elapsedMs)?.exceeded;
}

/** What a spent wall-time budget reports (in `budget-stop` events and, prefixed, as the run's reason). */
export function wallTimeExceeded(maxWallMs: number): string {
  return `wall-time budget of ${maxWallMs / 1000}s reached`;
}

/**
 * The budget check before a call, shared by the in-process model and work sent elsewhere (a queue): throws
 * WeftError('BUDGET') once the budget is spent, and emits the `budget-stop` event that says so only once.
 */
export interface BudgetGate {
  admit(): void;
}

/** A gate that can also refuse from outside a call: the deadline (deadline.ts) reports through it. */
export interface RunBudgetGate extends BudgetGate {
  /** Reports `exceeded` (the `budget-stop` event, once per gate like `admit`) and returns the error that says so. */
  refuse(exceeded: string): WeftError;
}

export interface GateOptions {
  readonly budget: Budget;
  readonly meter: Meter;
  /** Milliseconds since the metered work started. */
  readonly now: () => number;
  readonly emit?: MeterEmit;
}

export function budgetGate(options: GateOptions): RunBudgetGate {
  const { meter } = options;
  let reported = false;
  const refuse = (exceeded: string) => {
    if (!reported) {
      reported = true;
      options.emit?.({
        type: 'budget-stop',
        calls: meter.calls,
        tokens: { input: meter.inputTokens, output: meter.outputTokens },
        costUsd: meter.costUsd,
        exceeded,
      });
    }
    return new WeftError('BUDGET', `Budget exhausted: ${exceeded}`);
  };
  return {
    admit() {
      const exceeded = budgetExceeded(options.budget, meter, options.now());
      if (exceeded) throw refuse(exceeded);
    },
    refuse,
  };
}
