/** How a command reports a batch that a budget stopped: the located BUDGET error, for stderr and for `--json`. */
import { type BudgetStop, WeftError } from '../index.js';

export function budgetStopError(stopped: BudgetStop | undefined): WeftError | undefined {
  return (
    stopped && new WeftError('BUDGET', `Budget exhausted: ${stopped.exceeded}`, { location: { field: stopped.field } })
  );
}

/** The error as `--json` documents carry one (as main.ts reports any other). */
export function budgetErrorJson(error: WeftError): { code: string; message: string; location?: object } {
  return { code: error.code, message: error.message, ...(error.location ? { location: error.location } : {}) };
}
