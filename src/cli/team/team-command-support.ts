/** What the `weft team` commands share: flags, team and model loading, member selection, progress, sim warnings. */
import {
  isTeamScoreStore,
  buildTeam,
  isWeftError,
  parseSimOptions,
  redactModelSpec,
  resolveModelSpec,
  selectStoredTeamMembers,
  SIM_RIGHT_ANSWER,
  STOP_CHECKS,
  traceAgent,
  tracedModel,
  WeftError,
  type BuiltTeam,
  type ChatModel,
  type StopCheck,
  type TeamEvent,
  type TeamSelection,
  type TeamSpec,
} from '../../internal.js';
import type { CommandBudget } from '../budget-stop.js';
import { loadModel, openStore, type Context } from '../context.js';
import type { Output } from '../output.js';
import type { ModelUse, TeamModels } from './team-output.js';
import type { BudgetFlags } from '../budget-options.js';

/** The task type scores are kept under when none is given (TeamQuery's default). */
export const DEFAULT_TASK_TYPE = 'general';

/** The flags every `weft team` command takes. */
export interface TeamCommonFlags {
  readonly team?: string;
  readonly model?: string;
  readonly seed?: string;
  readonly taskType?: string;
  readonly home?: string;
  readonly store?: string;
  readonly json?: boolean;
  /** `answer` or `layer`: when consensus is checked. */
  readonly stopCheck?: string;
}

/** The budget flags (`--max-calls` …) of the team commands that call models. */

export interface TeamFlags extends TeamCommonFlags, BudgetFlags {
  readonly maxSteps?: string;
  /** False with `--no-optimized`. */
  readonly optimized?: boolean;
}

/** One stderr line per consensus check and per reformation, so a slow team shows where it is. */
export function logTeamEvent(event: TeamEvent, output: Pick<Output, 'log'>): void {
  if (event.type === 'consensus-check') output.log(`step ${event.step}: ${event.reason}`);
  else if (event.type === 'reformation')
    output.log(`reformation after step ${event.reformation.afterStep}: kept ${event.reformation.kept.join(', ')}`);
  else if (event.type === 'ranker-fallback') output.log(`step ${event.step}: ${event.reason}`);
}

/** `--task-type`: a non-empty name; default `general`. */
export function taskTypeFlag(value: string | undefined): string {
  if (value === undefined) return DEFAULT_TASK_TYPE;
  if (value.trim() === '')
    throw new WeftError('BAD_INPUT', '--task-type needs a name, e.g. mmlu or code', {
      location: { field: '--task-type' },
    });
  return value.trim();
}

/**
 * Which agents run: the saved scores' top k (the size `weft team optimize --k` recorded, else 4) when there are
 * enough, else all (the reason says which, and where k came from).
 */
export async function selectMembers(
  context: Context,
  spec: TeamSpec,
  taskType: string,
): Promise<{ members: string[]; selection: TeamSelection }> {
  const store = await openStore(context);
  try {
    const choice = await selectStoredTeamMembers(isTeamScoreStore(store) ? store : undefined, spec, taskType);
    return { members: choice.members, selection: choice.selection };
  } finally {
    await store.close();
  }
}

/** The team file with only `members` (kept in the file's order). */
export function subset(spec: TeamSpec, members: readonly string[]): TeamSpec {
  const keep = new Set(members);
  return { ...spec, agents: spec.agents.filter((agent) => keep.has(agent.name)) };
}

export interface LoadedTeam {
  readonly built: BuiltTeam;
  readonly models: TeamModels;
}

/**
 * Builds the team's agents and ranker. The default model (`--model`, then config, WEFT_MODEL, API keys,
 * Ollama) is resolved only when an agent or the ranker has no model of its own in the team file.
 */
export async function buildTeamWithModels(
  spec: TeamSpec,
  file: string,
  modelFlag: string | undefined,
  context: Pick<Context, 'config'>,
  seed: number,
  env: NodeJS.ProcessEnv,
  budget?: Pick<CommandBudget, 'charge'>,
): Promise<LoadedTeam> {
  const needsDefault =
    spec.model === undefined &&
    (modelFlag !== undefined || spec.agents.some((agent) => agent.kind === 'llm' && agent.model === undefined));
  let defaultModel: string | undefined;
  if (needsDefault) {
    try {
      defaultModel = (
        await resolveModelSpec({
          ...(modelFlag !== undefined ? { flag: modelFlag } : {}),
          config: { ...(context.config.model !== undefined ? { model: context.config.model } : {}) },
          env,
        })
      ).spec;
    } catch (error) {
      // No default anywhere: buildTeam's error names the agents of the file that have no model, which says more.
      if (!(modelFlag === undefined && isWeftError(error) && error.code === 'MODEL_CONFIG')) throw error;
    }
  }
  const kinds = new Map<string, ChatModel['kind']>();
  const built = await buildTeam(spec, {
    createModel: async (modelSpec) => {
      const { model, costOf } = await loadModel(modelSpec, context.config, env);
      kinds.set(model.id, model.kind);
      // With tracing on, a `chat` span per call (the agents' and the ranker's); with a budget, every model of the
      // team (agents and ranker) is charged to the command's one budget.
      const traced = tracedModel(model, { costOf });
      return budget ? budget.charge(traced, (result) => costOf(result, model.id)) : traced;
    },
    ...(defaultModel !== undefined ? { defaultModel } : {}),
    file,
    seed,
  });
  const use = (id: string): ModelUse => ({ model: redactModelSpec(id), kind: kinds.get(id) ?? 'real' });
  return {
    // With tracing on, each agent's response at each step is an `invoke_agent {agent}` span.
    built: {
      ...built,
      agents: built.agents.map((agent) => ({
        ...agent,
        respond: (input, signal) =>
          traceAgent(
            {
              agent: agent.name,
              attributes: { 'weft.team.agent.kind': agent.kind, 'weft.team.step': input.step },
            },
            () => agent.respond(input, signal),
          ),
      })),
    },
    models: {
      agents: Object.fromEntries(Object.entries(built.models).map(([agent, id]) => [agent, use(id)])),
      ranker: use(built.rankerModel),
    },
  };
}

export function optionalNumber<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}

/** `--stop-check answer|layer`; undefined when not given (the team file's, else the engine's default). */
export function stopCheckFlag(value: string | undefined): StopCheck | undefined {
  if (value === undefined) return undefined;
  const found = STOP_CHECKS.find((check) => check === value.trim());
  if (found === undefined)
    throw new WeftError(
      'BAD_INPUT',
      `--stop-check must be ${STOP_CHECKS.join(' or ')}, got ${JSON.stringify(value)}: answer checks consensus after each answer (the authors' code), layer after each whole layer`,
      { location: { field: '--stop-check' } },
    );
  return found;
}

/** The engine settings a team file and the flags give (unset ones keep the engine's defaults). */
export function runSettings(
  spec: TeamSpec,
  maxSteps: number | undefined,
  seed: number,
  stopCheck: StopCheck | undefined = undefined,
) {
  const check = stopCheck ?? spec.stopCheck;
  return {
    ...optionalNumber('maxSteps', maxSteps ?? spec.maxSteps),
    ...optionalNumber('reformAt', spec.reformAt),
    ...optionalNumber('keep', spec.keep),
    ...(check === undefined ? {} : { stopCheck: check }),
    seed,
  };
}

/**
 * The sim model knows no truths: its right answer is the literal `correct` (src/team/sim-team.ts). On items none of whose
 * right answers is `correct`, a sim agent can never be right, so say so rather than let 0 % (or a ranking) look
 * like a result. For `optimize` without answers: sim importance follows the sim settings, not the questions.
 */
export function simDatasetWarning(
  models: TeamModels,
  items: readonly { answer?: string; choices?: readonly string[] }[],
  use: 'eval' | 'optimize',
): string | undefined {
  const simModels = Object.entries(models.agents).filter(([, model]) => model.kind === 'sim');
  const sims = simModels.map(([agent]) => agent);
  if (sims.length === 0) return undefined;
  const who = `${sims.join(', ')} ${sims.length === 1 ? 'runs' : 'run'} on a sim model`;
  const see = '(see docs/teams.md, "The simulated model in a team")';
  // Sims given an answer key (`answers=`) know the gold answers inside the simulator: say so, as the result is simulated.
  const keys = [...new Set(simModels.map(([, model]) => simAnswerKeyOf(model.model)))];
  if (keys.every((key) => key !== undefined)) {
    return `simulated: ${who} that knows the gold answers of ${keys.join(', ')} (sim option answers=) and is right with probability \`accuracy\`: these figures measure the team engine (consensus, ranking, early stop) on simulated agents, not any language model ${see}`;
  }
  const answers = items.flatMap((item) =>
    item.answer === undefined
      ? []
      : [item.choices ? (item.choices[item.answer.toUpperCase().charCodeAt(0) - 65] ?? '') : item.answer],
  );
  if (answers.length === 0) {
    return use === 'optimize'
      ? `warning: ${who}, and these queries have no answers: sim importance reflects only each agent's sim settings (accuracy, follow), not these questions ${see}`
      : undefined;
  }
  if (answers.some((answer) => answer.trim() === SIM_RIGHT_ANSWER)) return undefined;
  const measures = use === 'eval' ? 'the accuracy measures nothing' : 'the ranking measures nothing';
  return `warning: ${who}, which answers the literal "${SIM_RIGHT_ANSWER}" when right; no item of this ${use === 'eval' ? 'dataset' : 'queries file'} has that answer, so ${measures} ${see}`;
}

/** The `answers=` file of a sim model's id, if any. */
function simAnswerKeyOf(id: string): string | undefined {
  try {
    return parseSimOptions(id).answers;
  } catch {
    return undefined;
  }
}

/** Progress on stderr: the first item, then every 10 %, and the last. */
export function progressLogger(
  label: string,
  output: Pick<Output, 'log'>,
): (done: number, total: number, extra?: string) => void {
  let lastDecile = 0;
  return (done, total, extra) => {
    const decile = Math.floor((10 * done) / total);
    if (done !== 1 && done !== total && decile <= lastDecile) return;
    lastDecile = decile;
    output.log(`${label} ${done}/${total}${extra ? ` · ${extra}` : ''}`);
  };
}
