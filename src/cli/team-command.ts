/**
 * `weft team`: DyLAN teams (SPEC §3) from the command line.
 *
 *   weft team <question|file> --team team.yaml [--model M] [--max-steps N] [--seed S] [--task-type T] [--no-optimized] [--json]
 *   weft team optimize --team pool.yaml --queries q.jsonl --k 4 [--task-type T] [--model M] [--seed S] [--json]
 *   weft team eval --team team.yaml --data mc.jsonl [--model M] [--concurrency N] [--task-type T] [--no-optimized] [--json]
 *
 * `weft team run <question|file>` is the same as `weft team <question|file>` (for a question that is literally
 * "optimize" or "eval").
 *
 * Decisions:
 * - When the run store holds importance scores for (team, task type), `weft team` and `weft team eval` run the
 *   top agents by mean importance (the same rule as a workflow's team role, src/run/team-selection.ts) and say
 *   why; `--no-optimized` runs the team file as written. Only `weft team optimize` saves scores: a single
 *   question is too small a sample to change who is on the team. It also records its `--k` as the team size
 *   (latest wins), with the scores in one transaction; later runs take the top k, or 4 when none was recorded.
 * - Models: an agent's own `model`, else the team's, else `--model`, else the usual default (config,
 *   WEFT_MODEL, API keys, Ollama), resolved only when some agent needs it. One model per distinct spec.
 * - `optimize` and `eval` carry on past an item whose run fails, report it, and exit 1: finished work is kept.
 * - `team`'s options are positional (it takes a question and has subcommands), so options given before a
 *   subcommand's name would be silently ignored: refused, saying where they go.
 */
import { stat, readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { WeftError, isWeftError } from '../errors.js';
import type { ChatModel } from '../llm/chat-model.js';
import { resolveModelSpec } from '../llm/resolve-model.js';
import type { TeamSelection } from '../run/events.js';
import { llmAgentsOf, selectTeamMembers, teamSizeOf, type TeamChoice } from '../run/team-selection.js';
import { buildTeam, type BuiltTeam } from '../team/build-team.js';
import { SIM_RIGHT_ANSWER } from '../llm/sim-team.js';
import { evaluateTeam } from '../team/evaluate-team.js';
import { optimizeTeam } from '../team/optimize-team.js';
import { loadTeamFile } from '../team/parse-team-file.js';
import { runTeam, TEAM_DEFAULTS } from '../team/run-team.js';
import { readTeamDataset, readTeamQueries, teamQueryOf } from '../team/team-dataset.js';
import type { TeamQuery, TeamSpec } from '../team/team.js';
import type { TeamEvent } from '../team/team-events.js';
import { loadContext, loadModel, openStore, requireValue, type Context } from './context.js';
import { integerFlag } from './flags.js';
import type { Output } from './output.js';
import { looksLikePath } from './read-task.js';
import { formatEvaluation, formatOptimizeResult, formatTeamRun, teamRunDocument, type ModelUse, type TeamModels } from './team-output.js';

/** The task type scores are kept under when none is given (TeamQuery's default). */
export const DEFAULT_TASK_TYPE = 'general';

/** The flags every `weft team` command takes. */
interface TeamCommonFlags {
  readonly team?: string;
  readonly model?: string;
  readonly seed?: string;
  readonly taskType?: string;
  readonly home?: string;
  readonly store?: string;
  readonly json?: boolean;
}

export interface TeamFlags extends TeamCommonFlags {
  readonly maxSteps?: string;
  /** False with `--no-optimized`. */
  readonly optimized?: boolean;
}

export async function teamCommand(argument: string | undefined, flags: TeamFlags, output: Output, signal?: AbortSignal, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // Flags first: they are cheap to check and nothing is loaded or written before they are right.
  const teamFile = requireValue(flags.team, '--team');
  const maxSteps = integerFlag('max-steps', flags.maxSteps, { min: 1 });
  const seed = integerFlag('seed', flags.seed, { min: 0 }) ?? 0;
  const taskType = taskTypeFlag(flags.taskType);
  if (argument === undefined) {
    throw new WeftError('BAD_INPUT', 'give the question in words or a file that holds it: weft team <question|file> --team team.yaml', { location: { field: '<question>' } });
  }
  const question = await readQuestion(argument);
  const context = await loadContext(flags, env);
  const spec = await loadTeamFile(teamFile);
  const selection = flags.optimized === false ? undefined : await selectMembers(context, spec, taskType);
  const members = selection?.members ?? spec.agents.map((agent) => agent.name);
  const team = await buildTeamWithModels(subset(spec, members), teamFile, flags.model, context, seed, env);
  const query: TeamQuery = { question, kind: spec.answerKind ?? 'exact', taskType };
  const result = await runTeam({
    agents: team.built.agents,
    ranker: team.built.ranker,
    query,
    ...runSettings(spec, maxSteps, seed),
    ...(signal ? { signal } : {}),
    onEvent: (event) => logTeamEvent(event, output),
  });
  const document = teamRunDocument(spec.name, result, team.models, selection?.selection);
  if (output.json) output.document(document);
  else for (const line of formatTeamRun(document)) output.text(line);
  return 0;
}

/** One stderr line per layer and per reformation, so a slow team shows where it is. */
export function logTeamEvent(event: TeamEvent, output: Pick<Output, 'log'>): void {
  if (event.type === 'consensus-check') output.log(`step ${event.step}: ${event.reason}`);
  else if (event.type === 'reformation') output.log(`reformation after step ${event.reformation.afterStep}: kept ${event.reformation.kept.join(', ')}`);
  else if (event.type === 'ranker-fallback') output.log(`step ${event.step}: ${event.reason}`);
}

/** `--task-type`: a non-empty name; default `general`. */
export function taskTypeFlag(value: string | undefined): string {
  if (value === undefined) return DEFAULT_TASK_TYPE;
  if (value.trim() === '') throw new WeftError('BAD_INPUT', '--task-type needs a name, e.g. mmlu or code', { location: { field: '--task-type' } });
  return value.trim();
}

/** `<question|file>`: a readable file's text, or the question itself. */
export async function readQuestion(argument: string): Promise<string> {
  const text = argument.trim();
  if (text === '') throw new WeftError('BAD_INPUT', 'the question is empty: give it in words or a file that holds it', { location: { field: '<question>' } });
  const info = await stat(text).catch(() => undefined);
  if (info?.isDirectory()) throw new WeftError('BAD_INPUT', 'expected a question file, got a folder', { location: { file: text } });
  // The same rule as `weft run <task>`: a mistyped file name must not be asked as the question (and spend calls).
  if (!info?.isFile() && looksLikePath(text)) {
    throw new WeftError('BAD_INPUT', 'cannot read the question file: no such file (to give the question in words, use more than one word)', { location: { file: text } });
  }
  if (!info?.isFile()) return text;
  let content: string;
  try {
    content = await readFile(text, 'utf8');
  } catch (error) {
    throw new WeftError('BAD_INPUT', `cannot read the question file: ${(error as Error).message}`, { location: { file: text }, cause: error });
  }
  if (content.trim() === '') throw new WeftError('BAD_INPUT', 'the question file is empty', { location: { file: text } });
  return content.trim();
}

/**
 * Which agents run: the saved scores' top k (the size `weft team optimize --k` recorded, else 4) when there are
 * enough, else all (the reason says which, and where k came from).
 */
export async function selectMembers(context: Context, spec: TeamSpec, taskType: string): Promise<{ members: string[]; selection: TeamSelection }> {
  const store = await openStore(context);
  try {
    const scores = await store.teamScores(spec.name, taskType);
    const size = await store.teamSize(spec.name, taskType);
    const choice = selectTeamMembers(spec.agents.map((agent) => agent.name), scores, `team "${spec.name}", task type "${taskType}"`, size, llmAgentsOf(spec));
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
): Promise<LoadedTeam> {
  const needsDefault = spec.model === undefined && (modelFlag !== undefined || spec.agents.some((agent) => agent.kind === 'llm' && agent.model === undefined));
  let defaultModel: string | undefined;
  if (needsDefault) {
    try {
      defaultModel = (await resolveModelSpec({ ...(modelFlag !== undefined ? { flag: modelFlag } : {}), config: { ...(context.config.model !== undefined ? { model: context.config.model } : {}) }, env })).spec;
    } catch (error) {
      // No default anywhere: buildTeam's error names the agents of the file that have no model, which says more.
      if (!(modelFlag === undefined && isWeftError(error) && error.code === 'MODEL_CONFIG')) throw error;
    }
  }
  const kinds = new Map<string, ChatModel['kind']>();
  const built = await buildTeam(spec, {
    createModel: async (modelSpec) => {
      const { model } = await loadModel(modelSpec, context.config, env);
      kinds.set(model.id, model.kind);
      return model;
    },
    ...(defaultModel !== undefined ? { defaultModel } : {}),
    file,
    seed,
  });
  const use = (id: string): ModelUse => ({ model: id, kind: kinds.get(id) ?? 'real' });
  return {
    built,
    models: {
      agents: Object.fromEntries(Object.entries(built.models).map(([agent, id]) => [agent, use(id)])),
      ranker: use(built.rankerModel),
    },
  };
}

function optionalNumber<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}

export interface TeamOptimizeFlags extends TeamCommonFlags {
  readonly queries?: string;
  readonly k?: string;
  readonly concurrency?: string;
}

/**
 * `weft team optimize`: the whole pool answers every sample query; the top k by importance; the scores and k
 * saved, so that later runs take the top k by stored mean.
 */
export async function teamOptimizeCommand(flags: TeamOptimizeFlags, output: Output, signal?: AbortSignal, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const poolFile = requireValue(flags.team, '--team');
  const queriesFile = requireValue(flags.queries, '--queries');
  const k = requireValue(integerFlag('k', flags.k, { min: 1 }), '--k');
  const taskType = taskTypeFlag(flags.taskType);
  const seed = integerFlag('seed', flags.seed, { min: 0 }) ?? 0;
  const concurrency = integerFlag('concurrency', flags.concurrency, { min: 1 });
  const context = await loadContext(flags, env);
  const spec = await loadTeamFile(poolFile);
  if (k > spec.agents.length) {
    throw new WeftError('BAD_INPUT', `--k ${k} is larger than the pool: team "${spec.name}" has ${spec.agents.length} ${spec.agents.length === 1 ? 'agent' : 'agents'}`, {
      location: { file: poolFile, field: '--k' },
    });
  }
  const { items } = await readTeamQueries(queriesFile);
  const team = await buildTeamWithModels(spec, poolFile, flags.model, context, seed, env);
  const simWarning = simDatasetWarning(team.models, items, 'optimize');
  if (simWarning) output.log(simWarning);
  output.log(`optimising team "${spec.name}": ${spec.agents.length} agents on ${items.length} sample ${items.length === 1 ? 'query' : 'queries'}, keeping the top ${k}`);
  const progress = progressLogger('optimize', output);
  let failed = 0;
  const result = await optimizeTeam({
    pool: team.built.agents,
    queries: items.map((item) => teamQueryOf(item, spec.answerKind, taskType)),
    k,
    ranker: team.built.ranker,
    run: runSettings(spec, undefined, seed),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(signal ? { signal } : {}),
    onProgress: ({ done, total, index, error }) => {
      if (error !== undefined) {
        failed++;
        output.log(`optimize: query ${items[index]!.id} failed: ${error}`);
      }
      progress(done, total, failed > 0 ? `${failed} failed` : undefined);
    },
  });

  const finished = items.length - result.failed.length;
  let stored: { agent: string; importance: number; queries: number; mean: number }[] = [];
  let size: number | undefined;
  let later: TeamChoice;
  const store = await openStore(context);
  try {
    if (finished > 0) {
      // The scores and k in one transaction: a failure leaves neither, so running optimize again counts nothing twice.
      await store.saveTeamScores({
        team: spec.name,
        taskType,
        scores: Object.entries(result.scores)
          .filter(([, score]) => score.queries > 0)
          .map(([agent, score]) => ({ agent, importance: score.total, queries: score.queries })),
        k,
      });
    }
    const totals = await store.teamScores(spec.name, taskType);
    size = await store.teamSize(spec.name, taskType);
    stored = totals.map((score) => ({ agent: score.agent, importance: score.importance, queries: score.queries, mean: score.mean }));
    // What later runs will take, by the very rule they use (the stored totals, not this run's alone).
    later = selectTeamMembers(spec.agents.map((agent) => agent.name), totals, `team "${spec.name}", task type "${taskType}"`, size, llmAgentsOf(spec));
  } finally {
    await store.close();
  }
  const document = {
    team: spec.name,
    taskType,
    k,
    // The team size later runs take (k once saved) and the agents they take with the totals now stored.
    runsUse: teamSizeOf(size),
    runsWith: later.members,
    queries: items.length,
    chosen: result.chosen,
    dropped: result.dropped,
    scores: result.scores,
    calls: result.calls,
    callsPerQuery: result.callsPerQuery,
    failed: result.failed.length,
    failures: result.failed.map((failure) => ({ id: items[failure.index]!.id, error: failure.error })),
    stored,
    models: team.models,
  };
  if (output.json) output.document(document);
  else {
    const next = { size: teamSizeOf(size), members: later.members, optimized: later.selection.optimized };
    for (const line of formatOptimizeResult(spec.name, taskType, k, items, result, stored, next, team.models)) output.text(line);
  }
  return result.failed.length > 0 ? 1 : 0;
}

export interface TeamEvalFlags extends TeamFlags {
  readonly data?: string;
  readonly concurrency?: string;
}

/** `weft team eval`: accuracy, calls per query and early stops of a team on a dataset with answers. */
export async function teamEvalCommand(flags: TeamEvalFlags, output: Output, signal?: AbortSignal, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const teamFile = requireValue(flags.team, '--team');
  const dataFile = requireValue(flags.data, '--data');
  const concurrency = integerFlag('concurrency', flags.concurrency, { min: 1 });
  const maxSteps = integerFlag('max-steps', flags.maxSteps, { min: 1 });
  const seed = integerFlag('seed', flags.seed, { min: 0 }) ?? 0;
  const taskType = taskTypeFlag(flags.taskType);
  const context = await loadContext(flags, env);
  const spec = await loadTeamFile(teamFile);
  const { items } = await readTeamDataset(dataFile);
  const selection = flags.optimized === false ? undefined : await selectMembers(context, spec, taskType);
  const team = await buildTeamWithModels(subset(spec, selection?.members ?? spec.agents.map((agent) => agent.name)), teamFile, flags.model, context, seed, env);
  const simWarning = simDatasetWarning(team.models, items, 'eval');
  if (simWarning) output.log(simWarning);
  output.log(`evaluating team "${spec.name}" (${team.built.agents.map((agent) => agent.name).join(', ')}) on ${items.length} ${items.length === 1 ? 'item' : 'items'} of ${dataFile}`);
  const progress = progressLogger('eval', output);
  let correct = 0;
  let failed = 0;
  const evaluation = await evaluateTeam({
    agents: team.built.agents,
    ranker: team.built.ranker,
    items,
    options: runSettings(spec, maxSteps, seed),
    ...(spec.answerKind !== undefined ? { answerKind: spec.answerKind } : {}),
    taskType,
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(signal ? { signal } : {}),
    onProgress: ({ done, total, item }) => {
      if (item.correct) correct++;
      if (item.error !== undefined) {
        failed++;
        output.log(`eval: item ${item.id} failed: ${item.error}`);
      }
      progress(done, total, `accuracy so far ${(correct / done).toFixed(3)}${failed > 0 ? `, ${failed} failed` : ''}`);
    },
  });
  const limit = (kind: TeamQuery['kind']) => maxSteps ?? spec.maxSteps ?? (kind === 'code' ? TEAM_DEFAULTS.codeMaxSteps : TEAM_DEFAULTS.maxSteps);
  const byId = new Map(items.map((item) => [item.id, item]));
  const earlyStops = evaluation.perItem.filter((item) => item.stopReason === 'consensus' && item.stoppedAt < limit(teamQueryOf(byId.get(item.id)!, spec.answerKind).kind)).length;
  if (evaluation.cancelled) output.log(`eval cancelled: the report covers the ${evaluation.cancelled.finished} of ${evaluation.cancelled.of} items that finished`);
  const exit = evaluation.failed > 0 || evaluation.cancelled ? 1 : 0;
  const document = {
    team: spec.name,
    data: dataFile,
    taskType,
    accuracy: evaluation.accuracy,
    correct: evaluation.correct,
    total: evaluation.total,
    calls: evaluation.calls,
    callsPerQuery: evaluation.callsPerQuery,
    earlyStops,
    earlyStopRate: evaluation.total === 0 ? 0 : earlyStops / evaluation.total,
    consensusStops: evaluation.earlyStops,
    meanStop: evaluation.meanStop,
    ratingFallbacks: evaluation.ratingFallbacks,
    rankerFallbacks: evaluation.rankerFallbacks,
    failed: evaluation.failed,
    ...(evaluation.cancelled ? { cancelled: evaluation.cancelled } : {}),
    perItem: evaluation.perItem,
    models: team.models,
    selection: selection?.selection ?? null,
  };
  if (output.json) output.document(document);
  else for (const line of formatEvaluation(spec.name, dataFile, evaluation, earlyStops, team.models, selection?.selection ?? null)) output.text(line);
  return exit;
}

/** The engine settings a team file and the flags give (unset ones keep the engine's defaults). */
function runSettings(spec: TeamSpec, maxSteps: number | undefined, seed: number) {
  return {
    ...optionalNumber('maxSteps', maxSteps ?? spec.maxSteps),
    ...optionalNumber('reformAt', spec.reformAt),
    ...optionalNumber('keep', spec.keep),
    seed,
  };
}

/**
 * The sim model knows no truths: its right answer is the literal `correct` (sim-team.ts). On items none of whose
 * right answers is `correct`, a sim agent can never be right, so say so rather than let 0 % (or a ranking) look
 * like a result. For `optimize` without answers: sim importance follows the sim settings, not the questions.
 */
export function simDatasetWarning(models: TeamModels, items: readonly { answer?: string; choices?: readonly string[] }[], use: 'eval' | 'optimize'): string | undefined {
  const sims = Object.entries(models.agents).filter(([, model]) => model.kind === 'sim').map(([agent]) => agent);
  if (sims.length === 0) return undefined;
  const who = `${sims.join(', ')} ${sims.length === 1 ? 'runs' : 'run'} on a sim model`;
  const see = '(see docs/teams.md, "The simulated model in a team")';
  const answers = items.flatMap((item) => (item.answer === undefined ? [] : [item.choices ? (item.choices[item.answer.toUpperCase().charCodeAt(0) - 65] ?? '') : item.answer]));
  if (answers.length === 0) {
    return use === 'optimize' ? `warning: ${who}, and these queries have no answers: sim importance reflects only each agent's sim settings (accuracy, follow), not these questions ${see}` : undefined;
  }
  if (answers.some((answer) => answer.trim() === SIM_RIGHT_ANSWER)) return undefined;
  const measures = use === 'eval' ? 'the accuracy measures nothing' : 'the ranking measures nothing';
  return `warning: ${who}, which answers the literal "${SIM_RIGHT_ANSWER}" when right; no item of this ${use === 'eval' ? 'dataset' : 'queries file'} has that answer, so ${measures} ${see}`;
}

/** Progress on stderr: the first item, then every 10 %, and the last. */
function progressLogger(label: string, output: Pick<Output, 'log'>): (done: number, total: number, extra?: string) => void {
  let lastDecile = 0;
  return (done, total, extra) => {
    const decile = Math.floor((10 * done) / total);
    if (done !== 1 && done !== total && decile <= lastDecile) return;
    lastDecile = decile;
    output.log(`${label} ${done}/${total}${extra ? ` · ${extra}` : ''}`);
  };
}

export interface TeamCommandContext {
  readonly output: Output;
  readonly signal: AbortSignal;
  readonly setExit: (code: number) => void;
}

/**
 * Registers `weft team [question]` with its subcommands `run`, `optimize` and `eval`. A parent command with an
 * argument and subcommands needs positional options, or commander hands a subcommand's `--team` to the parent:
 * options therefore go after the subcommand's name (`weft team optimize --team pool.yaml`), and the root
 * program's own options (only --help and --version) before any command name.
 */
/**
 * Options given to `team` before a subcommand's name belong to `team` and would be ignored by the subcommand:
 * refuse them, saying where they go (the error names the first).
 */
export function rejectParentOptions(command: Command): void {
  const parent = command.parent;
  if (!parent) return;
  const given = parent.options.filter((option) => parent.getOptionValueSource(option.attributeName()) === 'cli').map((option) => option.long ?? option.flags);
  if (given.length === 0) return;
  const name = command.name();
  throw new WeftError('BAD_INPUT', `options go after the subcommand: weft team ${name} ${given[0]} … (${given.join(', ')} came before "${name}")`, {
    location: { field: given[0]! },
  });
}

export function registerTeamCommands(program: Command, context: TeamCommandContext): void {
  const { output, signal, setExit } = context;
  program.enablePositionalOptions();
  const common = (command: Command): Command =>
    command
      .option('--model <spec>', 'model for agents (and the ranker) that the team file gives none, e.g. openai:gpt-4o-mini, sim:accuracy=0.7')
      .option('--store <spec>', 'run store: sqlite:<path> or postgres://… (default: $WEFT_STORE, the config, or SQLite in the home)')
      .option('--home <dir>', 'Weft home (default: $WEFT_HOME or ./.weft)')
      .option('--json', 'print one JSON document on stdout');
  const ask = (command: Command, sub: boolean): Command =>
    common(
      command
        .option('--team <file>', 'the team file (YAML or JSON)')
        .option('--max-steps <N>', 'at most N layers (default: the team file\'s, else 4; 6 for code)')
        .option('--seed <S>', 'seed of the peers\' and the ranker\'s shuffles (default 0)')
        .option('--task-type <T>', 'the key saved importance scores are read under (default general)')
        .option('--no-optimized', 'run every agent of the team file, even when saved scores would pick the top ones'),
    ).action(async (question: string | undefined, flags: TeamFlags, command: Command) => {
      if (sub) rejectParentOptions(command);
      setExit(await teamCommand(question, flags, output, signal));
    });

  const team = ask(
    program
      .command('team')
      .description('ask a DyLAN agent team a question (subcommands: run, optimize, eval)')
      .enablePositionalOptions()
      .argument('[question]', 'the question in words, or a file that holds it'),
    false,
  );
  ask(team.command('run').description('ask the team a question (the same as `weft team <question>`)').argument('<question>', 'the question in words, or a file that holds it'), true);
  common(
    team
      .command('optimize')
      .description('score a pool of agents on sample queries, keep the top k, and save the scores and k in the run store')
      .option('--team <file>', 'the candidate pool: a team file')
      .option('--queries <file>', 'sample queries, JSONL {id, question, choices?, answer?}')
      .option('--k <N>', 'size of the optimised team, recorded in the run store: later runs take the top N')
      .option('--task-type <T>', 'the key the scores are saved under (default general)')
      .option('--seed <S>', 'seed of the shuffles (default 0)')
      .option('--concurrency <N>', 'queries at once (default 4)'),
  ).action(async (flags: TeamOptimizeFlags, command: Command) => {
    rejectParentOptions(command);
    setExit(await teamOptimizeCommand(flags, output, signal));
  });
  common(
    team
      .command('eval')
      .description('accuracy, calls per query and early-stop rate of a team on a dataset')
      .option('--team <file>', 'the team file')
      .option('--data <file>', 'the dataset, JSONL {id, question, choices?, answer}')
      .option('--concurrency <N>', 'items at once (default 4)')
      .option('--max-steps <N>', 'at most N layers (default: the team file\'s, else 4; 6 for code)')
      .option('--seed <S>', 'seed of the shuffles (default 0)')
      .option('--task-type <T>', 'the key saved importance scores are read under (default general)')
      .option('--no-optimized', 'run every agent of the team file, even when saved scores would pick the top ones'),
  ).action(async (flags: TeamEvalFlags, command: Command) => {
    rejectParentOptions(command);
    setExit(await teamEvalCommand(flags, output, signal));
  });
}
