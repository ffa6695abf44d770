/** How a command reports a batch that a budget stopped: the located BUDGET error, for stderr and for `--json`. */
import { type BatchBudgetReport, type BudgetStop, WeftError } from '../internal.js';
import type { Output } from './output.js';

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
