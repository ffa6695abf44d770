/** `weft team optimize --team pool.yaml --queries q.jsonl --k K`: score a pool, keep the top k, save both. */
import {
  teamScoreStoreOf,
  loadTeamFile,
  optimizeTeam,
  readTeamQueries,
  selectTeamFileMembers,
  teamQueryOf,
  teamSizeOf,
  WeftError,
  type TeamChoice,
  traceWorkflow,
} from '../../internal.js';
import { budgetErrorJson, budgetJson, budgetScopeOf, commandBudget, endBudget } from '../budget-stop.js';
import { loadContext, openStore, requireValue } from '../context.js';
import { integerFlag } from '../flags.js';
import type { Output } from '../output.js';
import { formatOptimizeResult } from './team-output.js';
import {
  type TeamCommonFlags,
  buildTeamWithModels,
  progressLogger,
  runSettings,
  stopCheckFlag,
  simDatasetWarning,
  taskTypeFlag,
} from './team-command-support.js';
import type { BudgetFlags } from '../budget-options.js';

export interface TeamOptimizeFlags extends TeamCommonFlags, BudgetFlags {
  readonly queries?: string;
  readonly k?: string;
  readonly concurrency?: string;
}

/**
 * `weft team optimize`: the whole pool answers every sample query; the top k by importance; the scores and k
 * saved, so that later runs take the top k by stored mean.
 */
export async function teamOptimizeCommand(
  flags: TeamOptimizeFlags,
  output: Output,
  signal?: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const poolFile = requireValue(flags.team, '--team');
  const queriesFile = requireValue(flags.queries, '--queries');
  const k = requireValue(integerFlag('k', flags.k, { min: 1 }), '--k');
  const taskType = taskTypeFlag(flags.taskType);
  const seed = integerFlag('seed', flags.seed, { min: 0 }) ?? 0;
  const concurrency = integerFlag('concurrency', flags.concurrency, { min: 1 });
  const stopCheck = stopCheckFlag(flags.stopCheck);
  const scope = budgetScopeOf(flags);
  try {
    return await optimize(scope);
  } finally {
    // However the optimisation ends, the budget's timer stops with it.
    scope?.close();
  }

  async function optimize(scope: ReturnType<typeof budgetScopeOf>): Promise<number> {
    // The budget is not a cancel here: a query it cuts short fails (listed in `failures`, not scored), and the
    // scores of the queries that finished are saved as on any failure.
    const budget = scope ? commandBudget(scope, undefined) : undefined;
    const context = await loadContext(flags, env);
    const spec = await loadTeamFile(poolFile);
    if (k > spec.agents.length) {
      throw new WeftError(
        'BAD_INPUT',
        `--k ${k} is larger than the pool: team "${spec.name}" has ${spec.agents.length} ${spec.agents.length === 1 ? 'agent' : 'agents'}`,
        {
          location: { file: poolFile, field: '--k' },
        },
      );
    }
    const { items } = await readTeamQueries(queriesFile);
    const team = await buildTeamWithModels(spec, poolFile, flags.model, context, seed, env, budget);
    const simWarning = simDatasetWarning(team.models, items, 'optimize');
    if (simWarning) output.log(simWarning);
    output.log(
      `optimising team "${spec.name}": ${spec.agents.length} agents on ${items.length} sample ${items.length === 1 ? 'query' : 'queries'}, keeping the top ${k}`,
    );
    const progress = progressLogger('optimize', output);
    let failed = 0;
    // With tracing on: one `invoke_workflow` span over the whole optimisation.
    const result = await traceWorkflow(
      { attributes: { 'weft.command': 'team optimize', 'weft.team': spec.name, 'weft.items': items.length } },
      () =>
        optimizeTeam({
          pool: team.built.agents,
          queries: items.map((item) => teamQueryOf(item, spec.answerKind, taskType)),
          k,
          ranker: team.built.ranker,
          run: runSettings(spec, undefined, seed, stopCheck),
          ...(concurrency !== undefined ? { concurrency } : {}),
          ...(signal ? { signal } : {}),
          onProgress: ({ done, total, index, error }) => {
            if (error !== undefined) {
              failed++;
              output.log(`optimize: query ${items[index]!.id} failed: ${error}`);
            }
            progress(done, total, failed > 0 ? `${failed} failed` : undefined);
          },
        }),
    );

    const finished = items.length - result.failed.length;
    let stored: { agent: string; importance: number; queries: number; mean: number }[] = [];
    let size: number | undefined;
    let later: TeamChoice;
    const runStore = await openStore(context);
    try {
      const store = teamScoreStoreOf(runStore);
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
      stored = totals.map((score) => ({
        agent: score.agent,
        importance: score.importance,
        queries: score.queries,
        mean: score.mean,
      }));
      // What later runs will take, by the very rule they use (the stored totals, not this run's alone).
      later = selectTeamFileMembers(spec, taskType, totals, size);
    } finally {
      await runStore.close();
    }
    const budgetError = endBudget(
      scope,
      output,
      `the scores of the ${finished} ${finished === 1 ? 'query' : 'queries'} that finished are saved`,
    );
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
      ...budgetJson(scope),
      ...(budgetError ? { error: budgetErrorJson(budgetError) } : {}),
    };
    if (output.json) output.document(document);
    else {
      const next = { size: teamSizeOf(size), members: later.members, optimized: later.selection.optimized };
      for (const line of formatOptimizeResult(spec.name, taskType, k, items, result, stored, next, team.models))
        output.text(line);
    }
    return result.failed.length > 0 || budgetError ? 1 : 0;
  }
}
