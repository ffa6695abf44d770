/**
 * The knobs of a run that `weft run` takes as flags and `weft mcp`'s weft_run as arguments: strategy, concurrency,
 * budgets, attempts. Their bounds live here once; the CLI parses flag strings against them (errors name the flag),
 * the MCP server builds its input schema from them (errors name the argument), and both turn the values into the
 * same runTask options.
 */
import { z } from 'zod';
import { updatePolicyNames, type Budget, type ExecutionStrategy } from '../index.js';
import { choiceFlag, integerFlag, numberFlag } from './flags.js';

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
  for (const [key, bound] of Object.entries(RUN_NUMBER_CHOICES) as [RunNumberChoice, NumberBound][]) {
    const value = bound.integer
      ? integerFlag(bound.flag, flags[key], { min: bound.min })
      : numberFlag(bound.flag, flags[key], { positive: true });
    if (value !== undefined) choices[key] = value;
  }
  return choices;
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

/** The runTask options the choices stand for (a deadline is the budget's wall time). */
export function runChoicesOptions(choices: RunChoices): {
  strategy?: ExecutionStrategy;
  concurrency?: number;
  candidates?: number;
  updateCandidates?: number;
  maxAttempts?: number;
  maxToolSteps?: number;
  budget: Budget;
} {
  const { strategy, concurrency, candidates, updateCandidates, maxAttempts, maxToolSteps } = choices;
  return {
    ...(strategy !== undefined ? { strategy } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(candidates !== undefined ? { candidates } : {}),
    ...(updateCandidates !== undefined ? { updateCandidates } : {}),
    ...(maxAttempts !== undefined ? { maxAttempts } : {}),
    ...(maxToolSteps !== undefined ? { maxToolSteps } : {}),
    budget: {
      ...(choices.maxCalls !== undefined ? { maxCalls: choices.maxCalls } : {}),
      ...(choices.maxTokens !== undefined ? { maxTokens: choices.maxTokens } : {}),
      ...(choices.maxCostUsd !== undefined ? { maxCostUsd: choices.maxCostUsd } : {}),
      ...(choices.timeoutSeconds !== undefined ? { maxWallMs: choices.timeoutSeconds * 1000 } : {}),
      ...(choices.maxToolCalls !== undefined ? { maxToolCalls: choices.maxToolCalls } : {}),
    },
  };
}
