/**
 * Where DyLAN importance scores and optimised team sizes are kept (docs/algorithms.md#team-optimisation;
 * store/team-scores.ts has the types and the checks both stores share). The team engine owns this contract, apart from
 * the core RunStore: both the SQLite and the Postgres store implement it, and a store that does not simply keeps no
 * scores.
 *
 * Behaviour (test/store/describe-run-store.ts checks it for both stores): scores and sizes belong to no run, so
 * pruning runs never touches them. A save adds to what is stored and records its `k`, atomically (all entries and
 * the size, or nothing); a bad entry (empty name, importance not finite and >= 0, queries not an integer >= 1, an
 * agent twice) or a `k` that is not an integer >= 1 is a WeftError('STORE') naming it, and nothing is written.
 */
import { WeftError } from '../errors.js';
import type { TeamScore, TeamScoresUpdate } from '../store/team-scores.js';

export interface TeamScoreStore {
  /**
   * Adds importance and query counts to the stored totals of (team, taskType, agent), and with `k` records the
   * optimised team size of (team, taskType), replacing the one stored before; one transaction. Agents not yet
   * stored start from zero. An empty `scores` adds nothing (a given `k` is still recorded).
   */
  saveTeamScores(update: TeamScoresUpdate): Promise<void>;
  /** The stored totals of one team and task type, best mean first, then by agent name; [] when none. */
  teamScores(team: string, taskType: string): Promise<TeamScore[]>;
  /** The `k` the latest save with one recorded for (team, taskType); undefined when none ever did. */
  teamSize(team: string, taskType: string): Promise<number | undefined>;
}

/** Whether a store (a RunStore, typically) keeps team scores. */
export function isTeamScoreStore(store: unknown): store is TeamScoreStore {
  if (typeof store !== 'object' || store === null) return false;
  const candidate = store as Partial<Record<keyof TeamScoreStore, unknown>>;
  return (
    typeof candidate.saveTeamScores === 'function' &&
    typeof candidate.teamScores === 'function' &&
    typeof candidate.teamSize === 'function'
  );
}

/** The store as a TeamScoreStore, for commands that need one (`weft team optimize`); a STORE error otherwise. */
export function teamScoreStoreOf<S>(store: S): S & TeamScoreStore {
  if (!isTeamScoreStore(store))
    throw new WeftError('STORE', 'This run store keeps no team scores (it does not implement TeamScoreStore)');
  return store;
}
