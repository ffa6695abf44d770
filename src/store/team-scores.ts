/**
 * DyLAN Agent Importance Scores as the run store keeps them (docs/algorithms.md#team-optimisation): per (team, task
 * type, agent) the sum of the importance the agent earned and the number of queries it was scored on, so that the mean
 * over every run and `weft team optimize` so far picks the optimised team; and per (team, task type) the size of that
 * team, the `--k` of the latest `weft team optimize`. Types and the pure checks and ordering both stores share.
 */
import { WeftError } from '../errors.js';

/** One agent's contribution to add: importance summed over `queries` queries. */
export interface TeamScoreInput {
  readonly agent: string;
  /** Σ importance over the queries; finite and ≥ 0. */
  readonly importance: number;
  /** How many queries it covers; an integer ≥ 1. */
  readonly queries: number;
}

export interface TeamScoresUpdate {
  /** The team's name (its team file's `name`). */
  readonly team: string;
  /** e.g. `mmlu`, `code`, or `general` (TeamQuery.taskType). */
  readonly taskType: string;
  readonly scores: readonly TeamScoreInput[];
  /**
   * The optimised team's size (`weft team optimize --k`): an integer >= 1, recorded with the scores in the same
   * transaction and replacing any size stored before (the latest wins). Absent: the stored size is kept.
   */
  readonly k?: number;
}

/** What is stored for one agent: the running totals and their mean. */
export interface TeamScore {
  readonly agent: string;
  readonly importance: number;
  readonly queries: number;
  /** importance / queries. */
  readonly mean: number;
  /** ISO-8601: when a save last added to it. */
  readonly updatedAt: string;
}

/** The row both stores keep (the same columns in SQLite and Postgres). */
export interface TeamScoreRow {
  agent: string;
  importance: number;
  queries: number;
  updated_at: string;
}

function checkName(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.includes('\u0000')) {
    throw new WeftError(
      'STORE',
      `Cannot store team scores: ${field} must be a non-empty string without NUL characters, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * Checks an update before anything is written (a bad entry means nothing of the call is stored) and returns its
 * entries sorted by agent, the order both stores lock rows in so that concurrent saves cannot deadlock.
 * Counts stay within Number.MAX_SAFE_INTEGER so that they read back exactly from either store.
 */
export function prepareTeamScores(update: TeamScoresUpdate): {
  team: string;
  taskType: string;
  scores: TeamScoreInput[];
  k?: number;
} {
  if (typeof update !== 'object' || update === null)
    throw new WeftError('STORE', 'Cannot store team scores: expected { team, taskType, scores, k? }');
  const team = checkName(update.team, 'team');
  const taskType = checkName(update.taskType, `taskType (team ${JSON.stringify(team)})`);
  const { k } = update;
  if (k !== undefined && (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 1)) {
    throw new WeftError(
      'STORE',
      `Cannot store the team size of team ${JSON.stringify(team)} (task type ${JSON.stringify(taskType)}): k must be an integer >= 1, got ${typeof k === 'string' ? JSON.stringify(k) : String(k)}`,
    );
  }
  if (!Array.isArray(update.scores)) {
    throw new WeftError('STORE', `Cannot store team scores of team ${JSON.stringify(team)}: scores must be an array`);
  }
  const seen = new Set<string>();
  const scores = update.scores.map((entry: TeamScoreInput, index): TeamScoreInput => {
    const where = `scores[${index}] of team ${JSON.stringify(team)} (task type ${JSON.stringify(taskType)})`;
    if (typeof entry !== 'object' || entry === null)
      throw new WeftError('STORE', `Cannot store ${where}: expected { agent, importance, queries }`);
    const agent = checkName(entry.agent, `the agent of ${where}`);
    if (seen.has(agent))
      throw new WeftError('STORE', `Cannot store ${where}: agent ${JSON.stringify(agent)} appears twice in one update`);
    seen.add(agent);
    const { importance, queries } = entry;
    if (typeof importance !== 'number' || !Number.isFinite(importance) || importance < 0) {
      throw new WeftError(
        'STORE',
        `Cannot store ${where}: importance of ${JSON.stringify(agent)} must be a finite number >= 0, got ${String(importance)}`,
      );
    }
    if (typeof queries !== 'number' || !Number.isSafeInteger(queries) || queries < 1) {
      throw new WeftError(
        'STORE',
        `Cannot store ${where}: queries of ${JSON.stringify(agent)} must be an integer >= 1, got ${String(queries)}`,
      );
    }
    return { agent, importance, queries };
  });
  scores.sort((a, b) => compareText(a.agent, b.agent));
  return { team, taskType, scores, ...(k !== undefined ? { k } : {}) };
}

/** Checks the key of a read (`teamScores`, `teamSize`): the same rules as a save's. */
export function checkTeamKey(team: string, taskType: string): void {
  prepareTeamScores({ team, taskType, scores: [] });
}

/**
 * Adds an update to what is stored (the accumulation both stores do in SQL, spelled out: tests and the optimiser
 * use it to predict a store's answer). `stored` and the result are keyed by agent.
 */
export function mergeTeamScores(
  stored: readonly TeamScore[],
  update: TeamScoresUpdate,
  updatedAt: string,
): TeamScore[] {
  const { scores } = prepareTeamScores(update);
  const byAgent = new Map(stored.map((score) => [score.agent, score]));
  for (const entry of scores) {
    const before = byAgent.get(entry.agent);
    const importance = (before?.importance ?? 0) + entry.importance;
    const queries = (before?.queries ?? 0) + entry.queries;
    byAgent.set(entry.agent, { agent: entry.agent, importance, queries, mean: importance / queries, updatedAt });
  }
  return sortTeamScores([...byAgent.values()]);
}

/** Rows read back from a store, as records in the contract's order. */
export function teamScoresFromRows(rows: readonly TeamScoreRow[]): TeamScore[] {
  return sortTeamScores(
    rows.map((row) => {
      const importance = Number(row.importance);
      const queries = Number(row.queries);
      return { agent: row.agent, importance, queries, mean: importance / queries, updatedAt: row.updated_at };
    }),
  );
}

/** Best first: by mean descending, then by agent name (code-unit order, the same in every store and locale). */
export function sortTeamScores(scores: TeamScore[]): TeamScore[] {
  return scores.sort((a, b) => b.mean - a.mean || compareText(a.agent, b.agent));
}

/** The `k` agents with the highest mean importance (ties by name): the optimised team. */
export function topAgents(scores: readonly TeamScore[], k: number): string[] {
  return sortTeamScores([...scores])
    .slice(0, Math.max(0, k))
    .map((score) => score.agent);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
