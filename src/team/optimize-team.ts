/**
 * Team optimisation (docs/algorithms.md#team-optimisation): the whole candidate pool answers each sample query as a
 * T-FFN, the Agent Importance Scores are summed per agent over the queries, and the top k agents form the optimised
 * team.
 *
 * Decisions:
 * - Ranking by the total (the same order as the mean, since every pool agent answers every query); totals
 *   within 1e-12 of each other are a tie, which goes to the pool's order, so rounding never reorders equals.
 * - `chosen` and `dropped` are best first. An agent dropped by a reformation keeps what it earned before.
 * - Queries run `concurrency` at a time (default 4); results and sums follow the queries' order, so they do
 *   not depend on timing.
 * - A query whose run fails (e.g. a provider error left after retries) is listed in `failed` and left out of
 *   the scores (means are over the finished queries); the others go on, so one bad call does not lose the
 *   finished work. With no finished query nothing is chosen. Aborts are never recorded: they stop the run.
 */
import { WeftError, isAbortError, isWeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { boundedMap } from '../runtime/bounded-map.js';
import { runTeam, type Ranker, type RunTeamOptions } from './run-team.js';
import type { TeamAgent, TeamQuery, TeamResult } from './team.js';

/** How each query is run: the engine's options other than the team and the query. */
export type TeamRunSettings = Pick<
  RunTeamOptions,
  'maxSteps' | 'reformAt' | 'keep' | 'earlyStop' | 'seed' | 'stopCheck'
>;

export interface OptimizeTeamOptions {
  readonly pool: readonly TeamAgent[];
  readonly queries: readonly TeamQuery[];
  /** Size of the optimised team: 1 ≤ k ≤ pool size. */
  readonly k: number;
  readonly ranker?: Ranker;
  readonly run?: TeamRunSettings;
  /** Queries run at once. Default 4. */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  /** After each query, in completion order: its result, or the error it failed with. */
  readonly onProgress?: (progress: {
    readonly done: number;
    readonly total: number;
    readonly index: number;
    readonly result?: TeamResult;
    readonly error?: string;
  }) => void;
}

export interface AgentScore {
  /** Σ over the queries of Σ_t I(t, agent). */
  readonly total: number;
  /** `total` / number of finished queries. */
  readonly mean: number;
  /** Finished queries it took part in (every one: the whole pool answers the first layer). */
  readonly queries: number;
}

export interface QueryImportance {
  readonly query: TeamQuery;
  readonly answer: string;
  readonly calls: number;
  readonly stoppedAt: number;
  /** Σ_t I(t, agent) for this query. */
  readonly importance: Readonly<Record<string, number>>;
}

export interface OptimizeTeamResult {
  /** The top k agents, best first; empty when no query finished. */
  readonly chosen: string[];
  /** The rest of the pool, best first. */
  readonly dropped: string[];
  readonly scores: Record<string, AgentScore>;
  /** Model calls over all queries. */
  readonly calls: number;
  readonly callsPerQuery: number;
  /** The finished queries, in the queries' order. */
  readonly perQuery: QueryImportance[];
  /** Queries whose run failed (index into `queries`), in order; not scored. */
  readonly failed: { readonly index: number; readonly error: string }[];
}

const TIE = 1e-12;

export async function optimizeTeam(options: OptimizeTeamOptions): Promise<OptimizeTeamResult> {
  const { pool, queries, k, ranker, signal } = options;
  integerOption(k, 'k', { min: 1 });
  if (k > pool.length) {
    throw new WeftError(
      'BAD_INPUT',
      `k = ${k} is larger than the pool (${pool.length} ${pool.length === 1 ? 'agent' : 'agents'}): the optimised team is chosen from the pool`,
      {
        location: { field: 'k' },
      },
    );
  }
  if (queries.length === 0)
    throw new WeftError('BAD_INPUT', 'no sample queries to optimise the team on', { location: { field: 'queries' } });

  let done = 0;
  // A spent budget is not a cancel: the query it cut short fails, and the queries after it are not started (each
  // would only be refused) but listed as failed with the same reason, so the finished ones are still scored.
  let budgetSpent: string | undefined;
  const outcomes = await boundedMap(
    queries,
    { concurrency: options.concurrency ?? 4, ...(signal ? { signal } : {}) },
    async (query, querySignal, index) => {
      const outcome: TeamResult | { error: string } =
        budgetSpent !== undefined
          ? { error: `not run: ${budgetSpent}` }
          : await runTeam({
              ...options.run,
              agents: pool,
              query,
              ...(ranker ? { ranker } : {}),
              signal: querySignal,
            }).catch((error: unknown): { error: string } => {
              if (isAbortError(error) || querySignal.aborted) throw error;
              const message = error instanceof Error ? error.message : String(error);
              if (isWeftError(error) && error.code === 'BUDGET') budgetSpent ??= message;
              return { error: message };
            });
      options.onProgress?.({
        done: ++done,
        total: queries.length,
        index,
        ...('error' in outcome ? { error: outcome.error } : { result: outcome }),
      });
      return outcome;
    },
  );
  const failed = outcomes.flatMap((outcome, index) => ('error' in outcome ? [{ index, error: outcome.error }] : []));
  const finished = outcomes.flatMap((outcome, index) =>
    'error' in outcome ? [] : [{ result: outcome, query: queries[index]! }],
  );
  const results = finished.map(({ result }) => result);

  const totals = new Map<string, number>(pool.map((agent) => [agent.name, 0]));
  const counts = new Map<string, number>(pool.map((agent) => [agent.name, 0]));
  for (const result of results) {
    for (const agent of pool) {
      if (!(agent.name in result.importance)) continue;
      totals.set(agent.name, totals.get(agent.name)! + result.importance[agent.name]!);
      counts.set(agent.name, counts.get(agent.name)! + 1);
    }
  }
  const ranked = pool
    .map((agent, index) => ({ name: agent.name, index, total: totals.get(agent.name)! }))
    .sort((a, b) => (Math.abs(a.total - b.total) <= TIE ? a.index - b.index : b.total - a.total))
    .map((entry) => entry.name);
  const calls = results.reduce((sum, result) => sum + result.calls, 0);
  const n = finished.length;
  return {
    chosen: n === 0 ? [] : ranked.slice(0, k),
    dropped: n === 0 ? ranked : ranked.slice(k),
    scores: Object.fromEntries(
      pool.map((agent) => [
        agent.name,
        {
          total: totals.get(agent.name)!,
          mean: n === 0 ? 0 : totals.get(agent.name)! / n,
          queries: counts.get(agent.name)!,
        },
      ]),
    ),
    calls,
    callsPerQuery: n === 0 ? 0 : calls / n,
    failed,
    perQuery: finished.map(({ result, query }) => ({
      query,
      answer: result.answer,
      calls: result.calls,
      stoppedAt: result.stoppedAt,
      importance: result.importance,
    })),
  };
}
