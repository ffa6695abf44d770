/** `weft team eval --team team.yaml --data mc.jsonl`: accuracy and calls per query on a dataset with answers. */
import {
  evaluateTeam,
  formatError,
  loadTeamFile,
  readTeamDataset,
  TEAM_DEFAULTS,
  teamQueryOf,
  traceWorkflow,
  type TeamQuery,
} from '../../internal.js';
import { budgetErrorJson, budgetScopeOf, commandBudget, reportBudgetStop } from '../budget-stop.js';
import { loadContext, requireValue } from '../context.js';
import { integerFlag } from '../flags.js';
import type { Output } from '../output.js';
import { formatEvaluation } from './team-output.js';
import {
  type TeamFlags,
  buildTeamWithModels,
  progressLogger,
  runSettings,
  stopCheckFlag,
  selectMembers,
  simDatasetWarning,
  subset,
  taskTypeFlag,
} from './team-command-support.js';

export interface TeamEvalFlags extends TeamFlags {
  readonly data?: string;
  readonly concurrency?: string;
}

/** `weft team eval`: accuracy, calls per query and early stops of a team on a dataset with answers. */
export async function teamEvalCommand(
  flags: TeamEvalFlags,
  output: Output,
  signal?: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const teamFile = requireValue(flags.team, '--team');
  const dataFile = requireValue(flags.data, '--data');
  const concurrency = integerFlag('concurrency', flags.concurrency, { min: 1 });
  const maxSteps = integerFlag('max-steps', flags.maxSteps, { min: 1 });
  const seed = integerFlag('seed', flags.seed, { min: 0 }) ?? 0;
  const taskType = taskTypeFlag(flags.taskType);
  const stopCheck = stopCheckFlag(flags.stopCheck);
  const scope = budgetScopeOf(flags);
  try {
    return await evaluate(scope);
  } finally {
    // However the evaluation ends, the budget's timer stops with it.
    scope?.close();
  }

  async function evaluate(scope: ReturnType<typeof budgetScopeOf>): Promise<number> {
    // A spent budget stops the evaluation as a cancel does: the items that finished make the report.
    const budget = scope ? commandBudget(scope, signal) : undefined;
    const evalSignal = budget?.signal ?? signal;
    const context = await loadContext(flags, env);
    const spec = await loadTeamFile(teamFile);
    const { items } = await readTeamDataset(dataFile);
    const selection = flags.optimized === false ? undefined : await selectMembers(context, spec, taskType);
    const team = await buildTeamWithModels(
      subset(spec, selection?.members ?? spec.agents.map((agent) => agent.name)),
      teamFile,
      flags.model,
      context,
      seed,
      env,
      budget,
    );
    const simWarning = simDatasetWarning(team.models, items, 'eval');
    if (simWarning) output.log(simWarning);
    output.log(
      `evaluating team "${spec.name}" (${team.built.agents.map((agent) => agent.name).join(', ')}) on ${items.length} ${items.length === 1 ? 'item' : 'items'} of ${dataFile}`,
    );
    const progress = progressLogger('eval', output);
    let correct = 0;
    let failed = 0;
    // With tracing on: one `invoke_workflow` span over the whole evaluation.
    const evaluation = await traceWorkflow(
      { attributes: { 'weft.command': 'team eval', 'weft.team': spec.name, 'weft.items': items.length } },
      () =>
        evaluateTeam({
          agents: team.built.agents,
          ranker: team.built.ranker,
          items,
          options: runSettings(spec, maxSteps, seed, stopCheck),
          ...(spec.answerKind !== undefined ? { answerKind: spec.answerKind } : {}),
          taskType,
          ...(concurrency !== undefined ? { concurrency } : {}),
          ...(evalSignal ? { signal: evalSignal } : {}),
          onProgress: ({ done, total, item }) => {
            if (item.correct) correct++;
            if (item.error !== undefined) {
              failed++;
              output.log(`eval: item ${item.id} failed: ${item.error}`);
            }
            progress(
              done,
              total,
              `accuracy so far ${(correct / done).toFixed(3)}${failed > 0 ? `, ${failed} failed` : ''}`,
            );
          },
        }),
    );
    const limit = (kind: TeamQuery['kind']) =>
      maxSteps ?? spec.maxSteps ?? (kind === 'code' ? TEAM_DEFAULTS.codeMaxSteps : TEAM_DEFAULTS.maxSteps);
    const byId = new Map(items.map((item) => [item.id, item]));
    const earlyStops = evaluation.perItem.filter(
      (item) =>
        item.stopReason === 'consensus' &&
        item.stoppedAt < limit(teamQueryOf(byId.get(item.id)!, spec.answerKind).kind),
    ).length;
    const spent = signal?.aborted ? undefined : scope?.stop();
    const budgetReport = scope && {
      limits: scope.budget,
      usage: scope.usage(),
      ...(spent
        ? {
            stopped: {
              ...spent,
              finished: evaluation.perItem.length,
              of: items.length,
              unfinished: items
                .map((item) => String(item.id))
                .filter((id) => !evaluation.perItem.some((done) => String(done.id) === id)),
            },
          }
        : {}),
    };
    const budgetError = reportBudgetStop(budgetReport, output, 'eval', 'items');
    if (evaluation.cancelled && !budgetError)
      output.log(
        `eval cancelled: the report covers the ${evaluation.cancelled.finished} of ${evaluation.cancelled.of} items that finished`,
      );
    const exit = evaluation.failed > 0 || evaluation.cancelled || budgetError ? 1 : 0;
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
      ...(budgetReport ? { budget: budgetReport } : {}),
      ...(budgetError ? { error: budgetErrorJson(budgetError) } : {}),
    };
    if (output.json) output.document(document);
    else
      for (const line of formatEvaluation(
        spec.name,
        dataFile,
        evaluation,
        earlyStops,
        team.models,
        selection?.selection ?? null,
      ))
        output.text(line);
    if (budgetError) output.log(`weft: ${formatError(budgetError)}`);
    return exit;
  }
}
