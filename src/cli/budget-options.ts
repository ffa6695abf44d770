/**
 * The budget flags as commander options, with the same help on every command that takes them (`weft run`, `weft
 * chat`, `weft simulate`, `weft dialog eval`). Light, like main.ts: their values are parsed by run-choices.ts's
 * `budgetFromFlags` when the command runs.
 */
import type { Command } from 'commander';

/** The budget flags' raw values, as commander gives them to a command that took `addBudgetOptions`. */
export interface BudgetFlags {
  readonly maxCalls?: string | undefined;
  readonly maxTokens?: string | undefined;
  readonly maxCost?: string | undefined;
  readonly timeout?: string | undefined;
}

export function addBudgetOptions(command: Command): Command {
  return command
    .option('--max-calls <N>', 'budget: model calls')
    .option('--max-tokens <N>', 'budget: tokens')
    .option('--max-cost <USD>', 'budget: cost in US dollars')
    .option('--timeout <S>', 'budget: wall time in seconds');
}
