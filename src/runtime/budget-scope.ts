/**
 * One budget shared by every model of a piece of work that is not a run: a conversation (the bot, the simulated
 * APIs), a batch of simulated sessions (also the simulated users and the judge) or a turn-level evaluation. Each
 * model is wrapped by the same meter and gate, so together they spend one budget; the wall time is a deadline whose
 * signal aborts the calls in flight, and a call cut short by it fails with the budget's error, not as a cancel.
 */
import { WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import { costOf as priceOf } from '../llm/pricing.js';
import { anySignal } from '../llm/timeout.js';
import { wrapModel } from '../llm/wrap-model.js';
import {
  budgetGate,
  createMeter,
  spentBudget,
  wallTimeExceeded,
  type Budget,
  type Meter,
  type ModelBudgetName,
} from './budget.js';
import { startDeadline } from './deadline.js';
import { meteredModel } from './metered-model.js';

export interface BudgetUsage {
  readonly calls: number;
  readonly tokens: { readonly input: number; readonly output: number };
  readonly costUsd: number;
  /** Wall time of this scope (a resumed conversation's time starts again; its calls, tokens and cost go on). */
  readonly elapsedMs: number;
}

/** Which budget stopped the work, named as the caller names it (`--max-calls`, `budget.maxCalls`), and the usage. */
export interface BudgetStop {
  readonly budget: ModelBudgetName;
  readonly field: string;
  /** `call budget of 3 reached`. */
  readonly exceeded: string;
  readonly usage: BudgetUsage;
}

/** A batch's budget (simulated sessions, evaluated moves), as its report gives it. */
export interface BatchBudgetReport {
  readonly limits: Budget;
  readonly usage: BudgetUsage;
  /** Set when a budget stopped the batch: which one, and the items it cut short (session or move ids). */
  readonly stopped?: BudgetStop & {
    readonly finished: number;
    readonly of: number;
    readonly unfinished: readonly string[];
  };
}

/**
 * A batch's budget report: the limits, what was used and, when a budget stopped the batch, which one and the
 * items it cut short. Undefined without a budget.
 */
export function batchBudgetReport(
  scope: BudgetScope | undefined,
  limits: Budget | undefined,
  progress: { readonly finished: number; readonly of: number; readonly unfinished: readonly string[] },
): BatchBudgetReport | undefined {
  if (!scope || !limits) return undefined;
  const spent = scope.stop();
  return {
    limits,
    usage: scope.usage(),
    ...(spent ? { stopped: { ...spent, ...progress, unfinished: [...progress.unfinished].sort() } } : {}),
  };
}

export interface BudgetScopeOptions {
  readonly budget: Budget;
  /** How the caller names each budget in its errors; default `budget.<name>`. */
  readonly fields?: Partial<Record<ModelBudgetName, string>>;
}

export interface BudgetScope {
  readonly budget: Budget;
  /** Aborts when the wall-time budget passes (undefined without one). */
  readonly signal: AbortSignal | undefined;
  /** `model` charged to this budget; `costOf` prices its calls (default: the built-in prices). */
  metered(model: ChatModel, costOf?: (result: ChatResult) => number): ChatModel;
  /** Counts what was used before (a resumed session's recorded calls), so the budget goes on from there. */
  charge(used: Readonly<Meter>): void;
  usage(): BudgetUsage;
  /** The budget that was spent, once one was. */
  stop(): BudgetStop | undefined;
  /** The located BUDGET error of the spent budget, once one was. */
  error(): WeftError | undefined;
  /** Stops the deadline's timer (the work is over). */
  close(): void;
}

/** Rejects a budget that is not a positive number (a calls or tokens budget: a whole one), naming its field. */
export function checkBudget(budget: Budget, fields: BudgetScopeOptions['fields'] = {}): void {
  for (const name of ['maxCalls', 'maxTokens', 'maxCostUsd', 'maxWallMs'] as const) {
    const value = budget[name];
    if (value === undefined) continue;
    const field = fields[name] ?? `budget.${name}`;
    // Calls and tokens are counted: a whole number. Cost and wall time may be fractional.
    if (name === 'maxCalls' || name === 'maxTokens') integerOption(value, field, { min: 1 });
    else if (!(typeof value === 'number' && Number.isFinite(value) && value > 0))
      throw new WeftError('BAD_INPUT', `Expected ${field} to be a number > 0, got ${String(value)}`, {
        location: { field },
      });
  }
}

export function createBudgetScope(options: BudgetScopeOptions): BudgetScope {
  const { budget } = options;
  checkBudget(budget, options.fields);
  const meter = createMeter();
  const started = performance.now();
  const now = () => performance.now() - started;
  let spent: { budget: ModelBudgetName; exceeded: string; usage: BudgetUsage } | undefined;
  const usage = (): BudgetUsage => ({
    calls: meter.calls,
    tokens: { input: meter.inputTokens, output: meter.outputTokens },
    costUsd: meter.costUsd,
    elapsedMs: Math.round(now()),
  });
  const gate = budgetGate({
    budget,
    meter,
    now,
    emit: (event) => {
      if (event.type !== 'budget-stop' || spent) return;
      // The gate says why; which budget that is comes from the same check (the deadline's is the wall time).
      const which =
        budget.maxWallMs !== undefined && event.exceeded === wallTimeExceeded(budget.maxWallMs)
          ? 'maxWallMs'
          : (spentBudget(budget, meter, now())?.budget ?? 'maxWallMs');
      spent = { budget: which, exceeded: event.exceeded, usage: usage() };
    },
  });
  const deadline = startDeadline(budget.maxWallMs, 0, gate);
  const stop = (): BudgetStop | undefined =>
    spent && { ...spent, field: options.fields?.[spent.budget] ?? `budget.${spent.budget}` };
  const error = (): WeftError | undefined => {
    const stopped = stop();
    return (
      stopped &&
      new WeftError('BUDGET', `Budget exhausted: ${stopped.exceeded}`, { location: { field: stopped.field } })
    );
  };
  return {
    budget,
    signal: deadline.signal,
    metered(model, costOf) {
      const inner = meteredModel(
        model,
        {
          budget,
          meter,
          now,
          // The engines' callers trace their models themselves (the CLI's tracedModel).
          trace: false,
          costOf: (result, modelId) =>
            costOf ? costOf(result) : priceOf([modelId ?? model.id, result.model], result.usage),
        },
        {
          admit() {
            try {
              gate.admit();
            } catch {
              // The located error, naming the budget as the caller does.
              throw error() ?? new WeftError('BUDGET', 'Budget exhausted');
            }
          },
        },
      );
      return wrapModel(inner, {
        async wrapGenerate({ call, signal, next }) {
          try {
            return await next(call, anySignal(signal, deadline.signal));
          } catch (caught) {
            // Cut short by the deadline (not by the caller's own cancel): the budget's error, not an abort.
            const spentError = signal?.aborted ? undefined : deadline.reason() !== undefined ? error() : undefined;
            throw spentError ?? caught;
          }
        },
      });
    },
    charge(used) {
      meter.calls += used.calls;
      meter.inputTokens += used.inputTokens;
      meter.outputTokens += used.outputTokens;
      meter.costUsd += used.costUsd;
    },
    usage,
    stop,
    error,
    close: () => deadline.clear(),
  };
}
