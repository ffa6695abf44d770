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
 *   top agents by mean importance (the same rule as a workflow's team role, src/team/team-selection.ts) and say
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
import { loadTeamFile, runTeam, WeftError, type TeamQuery } from '../index.js';
import { loadContext, requireValue } from './context.js';
import { integerFlag } from './flags.js';
import type { Output } from './output.js';
import { looksLikePath } from './read-task.js';
import { formatTeamRun, teamRunDocument } from './team-output.js';
import { type TeamFlags, buildTeamWithModels, logTeamEvent, runSettings, selectMembers, subset, taskTypeFlag } from './team-command-support.js';
import { teamOptimizeCommand, type TeamOptimizeFlags } from './team-optimize-command.js';
import { teamEvalCommand, type TeamEvalFlags } from './team-eval-command.js';


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

export interface TeamCommandContext {
  readonly output: Output;
  readonly signal: AbortSignal;
  readonly setExit: (code: number) => void;
}

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

/**
 * Registers `weft team [question]` with its subcommands `run`, `optimize` and `eval`. A parent command with an
 * argument and subcommands needs positional options, or commander hands a subcommand's `--team` to the parent:
 * options therefore go after the subcommand's name (`weft team optimize --team pool.yaml`), and the root
 * program's own options (only --help and --version) before any command name.
 */
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
