/**
 * The knobs of a run that `weft run` takes as flags and `weft mcp`'s weft_run as arguments: strategy, concurrency,
 * budgets, attempts. Their bounds live here once; the CLI parses flag strings against them (errors name the flag),
 * the MCP server builds its input schema from them (errors name the argument), and both turn the values into the
 * same runTask options.
 */
import { z } from 'zod';
import { updatePolicyNames, type Budget, type ExecutionStrategy } from '../internal.js';
import { choiceFlag, integerFlag, numberFlag } from './flags.js';
import type { BudgetFlags } from './budget-options.js';

/** A numeric knob: its flag's name, and whether it is an integer with a minimum or any number > 0. */
type NumberBound = { readonly flag: string; readonly describe: string } & (
  | { readonly integer: true; readonly min: number }
  | { readonly integer: false }
);

export const RUN_NUMBER_CHOICES = {
  concurrency: { flag: 'concurrency', integer: true, min: 1, describe: 'subtasks running at once' },
  candidates: { flag: 'candidates', integer: true, min: 1, describe: 'candidate plans to generate (default 3)' },
  updateCandidates: {
    flag: 'update-candidates',
    integer: true,
    min: 1,
    describe: 'candidate revisions per plan update (default: candidates)',
  },
  maxCalls: { flag: 'max-calls', integer: true, min: 1, describe: 'budget: model calls for the whole run' },
  maxTokens: { flag: 'max-tokens', integer: true, min: 1, describe: 'budget: tokens (input + output)' },
  maxCostUsd: { flag: 'max-cost', integer: false, describe: 'budget: cost in USD' },
  timeoutSeconds: { flag: 'timeout', integer: false, describe: "deadline: the run's wall time in seconds" },
  maxAttempts: { flag: 'max-attempts', integer: true, min: 1, describe: 'attempts per subtask' },
  maxToolSteps: {
    flag: 'max-tool-steps',
    integer: true,
    min: 1,
    describe: 'model calls per tool loop that may ask for tools (default 8)',
  },
  maxToolCalls: { flag: 'max-tool-calls', integer: true, min: 0, describe: 'budget: tool calls for the whole run' },
} as const satisfies Record<string, NumberBound>;

export type RunNumberChoice = keyof typeof RUN_NUMBER_CHOICES;

export type RunChoices = { readonly strategy?: ExecutionStrategy } & {
  readonly [K in RunNumberChoice]?: number;
};

/** The choices from `weft run`'s (or `weft resume`'s) flag strings; a bad value is BAD_INPUT naming its flag. */
export function runChoicesFromFlags(
  flags: { readonly strategy?: string | undefined } & { readonly [K in RunNumberChoice]?: string | undefined },
): RunChoices {
  const choices: { strategy?: ExecutionStrategy } & { [K in RunNumberChoice]?: number } = {};
  const strategy = choiceFlag<ExecutionStrategy>('strategy', flags.strategy, updatePolicyNames());
  if (strategy !== undefined) choices.strategy = strategy;
  for (const key of Object.keys(RUN_NUMBER_CHOICES) as RunNumberChoice[]) {
    const value = runNumberFlag(key, flags[key]);
    if (value !== undefined) choices[key] = value;
  }
  return choices;
}

/** One knob's flag string against its bounds; a bad value is BAD_INPUT naming the flag. */
function runNumberFlag(key: RunNumberChoice, text: string | undefined): number | undefined {
  const bound: NumberBound = RUN_NUMBER_CHOICES[key];
  return bound.integer
    ? integerFlag(bound.flag, text, { min: bound.min })
    : numberFlag(bound.flag, text, { positive: true });
}

/** The budget knobs every engine's command takes (`weft run`, `weft chat`, `weft simulate`, `weft dialog eval`). */
export const BUDGET_CHOICES = ['maxCalls', 'maxTokens', 'maxCostUsd', 'timeoutSeconds'] as const;

/** How a command names each model budget in its errors and `--json`: by its flag. */
export const BUDGET_FLAG_FIELDS = {
  maxCalls: `--${RUN_NUMBER_CHOICES.maxCalls.flag}`,
  maxTokens: `--${RUN_NUMBER_CHOICES.maxTokens.flag}`,
  maxCostUsd: `--${RUN_NUMBER_CHOICES.maxCostUsd.flag}`,
  maxWallMs: `--${RUN_NUMBER_CHOICES.timeoutSeconds.flag}`,
} as const;

/**
 * `--max-calls`, `--max-tokens`, `--max-cost` and `--timeout` as a Budget, parsed as `weft run` parses them;
 * undefined when none is given.
 */
export function budgetFromFlags(flags: BudgetFlags): Budget | undefined {
  const choices: { [K in (typeof BUDGET_CHOICES)[number]]?: number } = {};
  const texts = {
    maxCalls: flags.maxCalls,
    maxTokens: flags.maxTokens,
    maxCostUsd: flags.maxCost,
    timeoutSeconds: flags.timeout,
  };
  for (const key of BUDGET_CHOICES) {
    const value = runNumberFlag(key, texts[key]);
    if (value !== undefined) choices[key] = value;
  }
  const budget = budgetOf(choices);
  return Object.keys(budget).length > 0 ? budget : undefined;
}

function budgetOf(choices: { readonly [K in RunNumberChoice]?: number }): Budget {
  return {
    ...(choices.maxCalls !== undefined ? { maxCalls: choices.maxCalls } : {}),
    ...(choices.maxTokens !== undefined ? { maxTokens: choices.maxTokens } : {}),
    ...(choices.maxCostUsd !== undefined ? { maxCostUsd: choices.maxCostUsd } : {}),
    ...(choices.timeoutSeconds !== undefined ? { maxWallMs: choices.timeoutSeconds * 1000 } : {}),
  };
}

/** The same choices as a zod shape (an MCP tool's input schema): the bounds above, described for the client. */
export function runChoicesShape() {
  const number = (key: RunNumberChoice) => {
    const bound: NumberBound = RUN_NUMBER_CHOICES[key];
    return (bound.integer ? z.number().int().min(bound.min) : z.number().positive())
      .optional()
      .describe(bound.describe);
  };
  return {
    strategy: z
      .enum(updatePolicyNames() as [ExecutionStrategy, ...ExecutionStrategy[]])
      .optional()
      .describe('how the plan is revised while the run goes'),
    concurrency: number('concurrency'),
    candidates: number('candidates'),
    updateCandidates: number('updateCandidates'),
    maxCalls: number('maxCalls'),
    maxTokens: number('maxTokens'),
    maxCostUsd: number('maxCostUsd'),
    timeoutSeconds: number('timeoutSeconds'),
    maxAttempts: number('maxAttempts'),
    maxToolSteps: number('maxToolSteps'),
    maxToolCalls: number('maxToolCalls'),
  } satisfies Record<'strategy' | RunNumberChoice, z.ZodType>;
}

/**
 * The runTask option groups the choices stand for (a deadline is the budget's wall time); `maxToolSteps` goes in
 * the `tools` group with the tools themselves.
 */
export function runChoicesOptions(choices: RunChoices): {
  run: {
    strategy?: ExecutionStrategy;
    concurrency?: number;
    candidates?: number;
    updateCandidates?: number;
    maxAttempts?: number;
  };
  maxToolSteps?: number;
  budget: Budget;
} {
  const { strategy, concurrency, candidates, updateCandidates, maxAttempts, maxToolSteps } = choices;
  return {
    run: {
      ...(strategy !== undefined ? { strategy } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(candidates !== undefined ? { candidates } : {}),
      ...(updateCandidates !== undefined ? { updateCandidates } : {}),
      ...(maxAttempts !== undefined ? { maxAttempts } : {}),
    },
    ...(maxToolSteps !== undefined ? { maxToolSteps } : {}),
    budget: {
      ...budgetOf(choices),
      ...(choices.maxToolCalls !== undefined ? { maxToolCalls: choices.maxToolCalls } : {}),
    },
  };
}
