/** How a command reports a batch that a budget stopped: the located BUDGET error, for stderr and for `--json`. */
import {
  type BatchBudgetReport,
  type Budget,
  type BudgetScope,
  type BudgetStop,
  type ChatModel,
  type ChatResult,
  createBudgetScope,
  formatError,
  isWeftError,
  type RunSummary,
  wallTimeExceeded,
  WeftError,
  type WeftEvent,
  wrapModel,
} from '../internal.js';
import type { Output } from './output.js';
import { BUDGET_FLAG_FIELDS, budgetFromFlags } from './run-choices.js';

export function budgetStopError(stopped: BudgetStop | undefined): WeftError | undefined {
  return (
    stopped && new WeftError('BUDGET', `Budget exhausted: ${stopped.exceeded}`, { location: { field: stopped.field } })
  );
}

/** The error as `--json` documents carry one (as main.ts reports any other). */
export function budgetErrorJson(error: WeftError): { code: string; message: string; location?: object } {
  return { code: error.code, message: error.message, ...(error.location ? { location: error.location } : {}) };
}

/**
 * A batch command's report of a budget stop: one line on stderr naming what finished and what was cut short
 * (`simulate stopped by the budget: … sessions …`), and the error for the exit status and `--json`.
 */
export function reportBudgetStop(
  budget: BatchBudgetReport | undefined,
  output: Output,
  command: string,
  items: string,
): WeftError | undefined {
  const stopped = budget?.stopped;
  const error = budgetStopError(stopped);
  if (error && stopped) {
    const { finished, of, unfinished } = stopped;
    output.log(
      `${command} stopped by the budget: the report covers the ${finished} of ${of} ${items} that finished${unfinished.length > 0 ? `; cut short: ${unfinished.join(', ')}` : ''}`,
    );
  }
  return error;
}

/** A command's budget from its flags (`--max-calls` …): one scope every model of the command is charged to. */
export function budgetScopeOf(flags: Parameters<typeof budgetFromFlags>[0]): BudgetScope | undefined {
  const budget = budgetFromFlags(flags);
  return budget ? createBudgetScope({ budget, fields: BUDGET_FLAG_FIELDS }) : undefined;
}

/** What a command's `--json` document adds for its budget: the limits, the usage and, once spent, which one. */
export function budgetJson(scope: BudgetScope | undefined): { budget?: object } {
  if (!scope) return {};
  const stopped = scope.stop();
  return { budget: { limits: scope.budget, usage: scope.usage(), ...(stopped ? { stopped } : {}) } };
}

/**
 * The end of a command a budget may have stopped: the timer stopped, and, if the budget was spent, its located
 * error told on stderr with what was kept (`kept`), for the exit status and the `--json` document.
 */
export function endBudget(scope: BudgetScope | undefined, output: Output, kept: string): WeftError | undefined {
  scope?.close();
  const error = scope?.error();
  if (error) output.log(`weft: ${formatError(error)}; ${kept}`);
  return error;
}

/** A command's budget over a batch of items (team eval, team optimize) or a single run (team). */
export interface CommandBudget {
  readonly scope: BudgetScope;
  /** The caller's signal, aborted too once the budget is spent or its wall time passes: no item starts after. */
  readonly signal: AbortSignal;
  /** `model` charged to the budget; a call it refuses also aborts `signal`. */
  charge(model: ChatModel, costOf?: (result: ChatResult) => number): ChatModel;
}

/**
 * Every model of a command charged to one budget, and a signal that stops the command's items once it is spent:
 * the engines that carry on past a failed item (a team evaluation) stop as on a cancel, keeping what finished.
 */
export function commandBudget(scope: BudgetScope, signal: AbortSignal | undefined): CommandBudget {
  const spent = new AbortController();
  const signals = [signal, scope.signal, spent.signal].filter((one): one is AbortSignal => one !== undefined);
  return {
    scope,
    signal: AbortSignal.any(signals),
    charge(model, costOf) {
      return wrapModel(scope.metered(model, costOf), {
        async wrapGenerate({ call, signal: callSignal, next }) {
          try {
            return await next(call, callSignal);
          } catch (error) {
            if (isWeftError(error) && error.code === 'BUDGET' && !spent.signal.aborted) spent.abort(error);
            throw error;
          }
        },
      });
    },
  };
}

/**
 * Follows a run's events (`weft run`, `weft resume`) for the `budget-stop` event that ended it, passing each on to `next`;
 * `error` is then the located BUDGET error of a failed run a budget ended (not of one that finished and then had its
 * judge refused), against the budget the run had.
 */
export function watchRunBudget(next: (event: WeftEvent) => void): {
  readonly onEvent: (event: WeftEvent) => void;
  readonly error: (
    status: RunSummary['status'],
    budget: Budget & { readonly maxToolCalls?: number },
  ) => WeftError | undefined;
} {
  let exceeded: string | undefined;
  return {
    onEvent: (event) => {
      if (event.type === 'budget-stop') exceeded ??= event.exceeded;
      next(event);
    },
    error: (status, budget) => (status === 'failed' ? runBudgetError(exceeded, budget) : undefined),
  };
}

/**
 * The located BUDGET error of a run a budget ended: `exceeded` is what its `budget-stop` event said (`call budget of 3
 * reached`), matched against each budget the flags set to name the flag. Undefined when no flag's budget says so.
 */
export function runBudgetError(
  exceeded: string | undefined,
  budget: Budget & { readonly maxToolCalls?: number },
): WeftError | undefined {
  if (exceeded === undefined) return undefined;
  const fields: [string, string | undefined][] = [
    ['--max-calls', budget.maxCalls !== undefined ? `call budget of ${budget.maxCalls} reached` : undefined],
    ['--max-tokens', budget.maxTokens !== undefined ? `token budget of ${budget.maxTokens} reached` : undefined],
    ['--max-cost', budget.maxCostUsd !== undefined ? `cost budget of $${budget.maxCostUsd} reached` : undefined],
    ['--timeout', budget.maxWallMs !== undefined ? wallTimeExceeded(budget.maxWallMs) : undefined],
    [
      '--max-tool-calls',
      budget.maxToolCalls !== undefined ? `tool call budget of ${budget.maxToolCalls} reached` : undefined,
    ],
  ];
  const field = fields.find(([, text]) => text === exceeded)?.[0];
  return new WeftError('BUDGET', `Budget exhausted: ${exceeded}`, field ? { location: { field } } : {});
}
