/**
 * `weft team`: DyLAN teams (docs/algorithms.md#dylan-teams) from the command line.
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
 * - The budget flags (`--max-calls`, `--max-tokens`, `--max-cost`, `--timeout`) bound the whole command, every
 *   agent's and the ranker's calls together. A spent budget ends `weft team` with the BUDGET error and the answers
 *   given so far (`nodes`); `eval` and `optimize` stop taking items and report the ones that finished.
 * - `team`'s options are positional (it takes a question and has subcommands), so options given before a
 *   subcommand's name would be silently ignored: refused, saying where they go.
 */
import { stat, readFile } from 'node:fs/promises';
import {
  formatError,
  loadTeamFile,
  runTeam,
  traceWorkflow,
  WeftError,
  type TeamEvent,
  type TeamQuery,
} from '../../internal.js';
import { budgetErrorJson, budgetJson, budgetScopeOf, commandBudget } from '../budget-stop.js';
import { loadContext, requireValue } from '../context.js';
import { integerFlag } from '../flags.js';
import type { Output } from '../output.js';
import { looksLikePath } from '../read-task.js';
import { formatTeamRun, teamRunDocument } from './team-output.js';
import {
  type TeamFlags,
  buildTeamWithModels,
  logTeamEvent,
  runSettings,
  stopCheckFlag,
  selectMembers,
  subset,
  taskTypeFlag,
} from './team-command-support.js';

export async function teamCommand(
  argument: string | undefined,
  flags: TeamFlags,
  output: Output,
  signal?: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  // Flags first: they are cheap to check and nothing is loaded or written before they are right.
  const teamFile = requireValue(flags.team, '--team');
  const maxSteps = integerFlag('max-steps', flags.maxSteps, { min: 1 });
  const seed = integerFlag('seed', flags.seed, { min: 0 }) ?? 0;
  const taskType = taskTypeFlag(flags.taskType);
  const stopCheck = stopCheckFlag(flags.stopCheck);
  if (argument === undefined) {
    throw new WeftError(
      'BAD_INPUT',
      'give the question in words or a file that holds it: weft team <question|file> --team team.yaml',
      { location: { field: '<question>' } },
    );
  }
  const question = await readQuestion(argument);
  const scope = budgetScopeOf(flags);
  try {
    const budget = scope ? commandBudget(scope, signal) : undefined;
    const context = await loadContext(flags, env);
    const spec = await loadTeamFile(teamFile);
    const selection = flags.optimized === false ? undefined : await selectMembers(context, spec, taskType);
    const members = selection?.members ?? spec.agents.map((agent) => agent.name);
    const team = await buildTeamWithModels(subset(spec, members), teamFile, flags.model, context, seed, env, budget);
    const query: TeamQuery = { question, kind: spec.answerKind ?? 'exact', taskType };
    // What the agents answered so far: kept when a budget ends the run before its answer.
    const nodes: Omit<Extract<TeamEvent, { type: 'node' }>, 'type'>[] = [];
    const runSignal = budget?.signal ?? signal;
    let result: Awaited<ReturnType<typeof runTeam>>;
    try {
      // With tracing on: one `invoke_workflow` span, the agents' steps and the ranker's calls inside.
      result = await traceWorkflow(
        { attributes: { 'weft.command': 'team', 'weft.team': spec.name }, content: { 'weft.task': question } },
        () =>
          runTeam({
            agents: team.built.agents,
            ranker: team.built.ranker,
            query,
            ...runSettings(spec, maxSteps, seed, stopCheck),
            ...(runSignal ? { signal: runSignal } : {}),
            onEvent: (event) => {
              if (event.type === 'node') nodes.push({ node: event.node, calls: event.calls });
              logTeamEvent(event, output);
            },
          }),
        (ran) => ({
          'weft.calls': ran.calls,
          'weft.team.stopped_at': ran.stoppedAt,
          'weft.team.stop_reason': ran.stopReason,
        }),
      );
    } catch (error) {
      // Spent (not cancelled by the user): the located BUDGET error, with the answers given so far.
      const budgetError = signal?.aborted ? undefined : scope?.error();
      if (!budgetError) throw error;
      scope?.close();
      const calls = nodes.reduce((sum, entry) => sum + entry.calls, 0);
      output.log(
        `team stopped by the budget after ${nodes.length} ${nodes.length === 1 ? 'answer' : 'answers'} (${calls} ${calls === 1 ? 'call' : 'calls'}); no team answer`,
      );
      if (output.json)
        output.document({
          team: spec.name,
          answer: null,
          calls,
          nodes: nodes.map((entry) => entry.node),
          models: team.models,
          ...budgetJson(scope),
          error: budgetErrorJson(budgetError),
        });
      output.log(`weft: ${formatError(budgetError)}`);
      return 1;
    }
    const document = teamRunDocument(spec.name, result, team.models, selection?.selection);
    if (output.json) output.document({ ...document, ...budgetJson(scope) });
    else for (const line of formatTeamRun(document)) output.text(line);
    return 0;
  } finally {
    scope?.close();
  }
}

/** `<question|file>`: a readable file's text, or the question itself. */
export async function readQuestion(argument: string): Promise<string> {
  const text = argument.trim();
  if (text === '')
    throw new WeftError('BAD_INPUT', 'the question is empty: give it in words or a file that holds it', {
      location: { field: '<question>' },
    });
  const info = await stat(text).catch(() => undefined);
  if (info?.isDirectory())
    throw new WeftError('BAD_INPUT', 'expected a question file, got a folder', { location: { file: text } });
  // The same rule as `weft run <task>`: a mistyped file name must not be asked as the question (and spend calls).
  if (!info?.isFile() && looksLikePath(text)) {
    throw new WeftError(
      'BAD_INPUT',
      'cannot read the question file: no such file (to give the question in words, use more than one word)',
      { location: { file: text } },
    );
  }
  if (!info?.isFile()) return text;
  let content: string;
  try {
    content = await readFile(text, 'utf8');
  } catch (error) {
    throw new WeftError('BAD_INPUT', `cannot read the question file: ${(error as Error).message}`, {
      location: { file: text },
      cause: error,
    });
  }
  if (content.trim() === '')
    throw new WeftError('BAD_INPUT', 'the question file is empty', { location: { file: text } });
  return content.trim();
}
