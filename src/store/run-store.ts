/**
 * Where runs are recorded. An append-only event log per run plus the plan versions, so that a run's state is a
 * fold of its log (durable resume, Postgres and distributed workers build on this in later issues).
 * Async throughout so that a network store (Postgres) implements the same contract as SQLite.
 * The store does not know the event vocabulary (that belongs to `run/`); it keeps events as JSON.
 */
import type { WorkflowJson } from '../graph/workflow.js';

export type { TeamScore, TeamScoreInput, TeamScoresUpdate } from './team-scores.js';

export interface EventRecord {
  readonly type: string;
  /** Milliseconds since the run started. */
  readonly at: number;
}

export interface StoredEvent<E extends EventRecord = EventRecord> {
  readonly runId: string;
  /** 1-based position in the run's log. */
  readonly seq: number;
  readonly event: E;
}

export type StoredRunStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

export const STORED_RUN_STATUSES: readonly StoredRunStatus[] = [
  'running',
  'completed',
  'failed',
  'cancelled',
  'interrupted',
];

export interface RunRecord {
  readonly runId: string;
  readonly task: string;
  readonly status: StoredRunStatus;
  /** ISO-8601. */
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly model: string;
  /** The options the run was started with (strategy, budgets, …), as given. */
  readonly options: Record<string, unknown>;
  /** The process that runs (or last ran) it; absent when none was recorded (runs of older versions). */
  readonly owner?: RunOwner;
}

/**
 * The process that runs a run. A run still `running` whose owner is on this host but whose pid is gone was
 * interrupted (see run-owner.ts).
 */
export interface RunOwner {
  /** A positive integer. */
  readonly pid: number;
  /** `os.hostname()` of the machine; a non-empty string. */
  readonly host: string;
}

export interface PlanVersion {
  readonly runId: string;
  readonly version: number;
  readonly workflow: WorkflowJson;
  /** What caused this version: `initial plan`, a verification failure, … */
  readonly cause: string;
  /** Serialised diff against the previous version; absent for version 1. */
  readonly diff?: unknown;
  readonly createdAt: string;
}

export interface NewRun {
  readonly runId: string;
  readonly task: string;
  readonly model: string;
  readonly options: Record<string, unknown>;
  /** The process that will run it (`currentOwner()` from run-owner.ts). */
  readonly owner?: RunOwner;
}

/** One run for `deleteRuns`. */
export interface RunDeletion {
  readonly runId: string;
  /**
   * For a run whose status is still `running`: the owner the caller found dead. Such a run is deleted only when
   * it still has exactly this owner (so a run resumed meanwhile by another process is kept). Without it, a
   * `running` run is never deleted.
   */
  readonly deadOwner?: RunOwner;
}

/** What `deleteRuns` removed (or, with `dryRun`, would remove). */
export interface DeletedRuns {
  /** The ids deleted, in the order given. */
  readonly removed: readonly string[];
  /** The ids not deleted: unknown, or `running` without a matching `deadOwner`. */
  readonly skipped: readonly string[];
  readonly events: number;
  readonly planVersions: number;
  /** Blobs no remaining run references, deleted with the runs. */
  readonly blobs: number;
  /** Their total size in UTF-8 bytes. */
  readonly blobBytes: number;
}

/** What a store holds, for retention (`weft prune`) and for checking that large outputs are stored once. */
export interface StoreStats {
  readonly runs: number;
  readonly events: number;
  readonly planVersions: number;
  /** Distinct large strings kept apart from the events and plans that reference them. */
  readonly blobs: number;
  /** Their total size in UTF-8 bytes. */
  readonly blobBytes: number;
}

/**
 * Behaviour every implementation shares (test/store/describe-run-store.ts checks it):
 * - Values (events, options, workflows, diffs) must be plain JSON; anything else (bigint, NaN, Dates, cycles, …)
 *   is a WeftError('STORE') naming the field, and nothing of that call is written. Properties set to
 *   `undefined` are dropped.
 * - A string field longer than 4 KiB is stored once (keyed by its sha256) and re-inflated on read.
 * - Naming a run that does not exist is a WeftError('NOT_FOUND') everywhere except `getRun`, which returns
 *   undefined. Creating a run id twice, or a plan version twice, is a WeftError('STORE').
 * - A closed store rejects every call with WeftError('STORE'); `close` itself may be called again.
 * - An owner must be a positive integer pid and a non-empty host, else WeftError('STORE').
 * - `deleteRuns` is atomic (all of the given runs that qualify, or nothing) and collects garbage: a blob goes
 *   when no remaining event or plan version of any run references it. Unknown ids are skipped, not NOT_FOUND.
 * Team scores are not part of this contract: the team engine's TeamScoreStore (team/team-score-store.ts), which
 * both stores implement as well.
 */
export interface RunStore {
  /**
   * The Weft home this store was opened on (openRunStore sets it, absolute), where run folders go; undefined for a
   * store opened by path or URL alone.
   */
  readonly home?: string;
  createRun(run: NewRun): Promise<void>;
  /** Appends in order, atomically (one transaction per batch); seq numbers continue the run's log. */
  appendEvents(runId: string, events: readonly EventRecord[]): Promise<void>;
  savePlanVersion(version: Omit<PlanVersion, 'createdAt'>): Promise<void>;
  setStatus(runId: string, status: StoredRunStatus): Promise<void>;
  /** Records the process that now runs the run (`weft resume` takes a run over). */
  setOwner(runId: string, owner: RunOwner): Promise<void>;
  /**
   * Compare-and-set on the owner: records `owner` and sets the status to `running` only if the run's owner is
   * still `previous` (undefined: none recorded), in one atomic step, and says whether it did. Of several processes
   * that found the same dead owner and try to take the run over at once, exactly one gets true (`weft resume`);
   * the others then read a `running` run with a live owner.
   */
  takeOverRun(runId: string, owner: RunOwner, previous: RunOwner | undefined): Promise<boolean>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** Oldest first. */
  listRuns(): Promise<RunRecord[]>;
  /**
   * Events with seq > afterSeq (default 0), in order; at most `limit` of them when given (a reader of a long log
   * — the dashboard's live stream — takes it in pages rather than in one read that blocks for seconds).
   */
  events(runId: string, afterSeq?: number, limit?: number): Promise<StoredEvent[]>;
  /** Lowest version first. */
  planVersions(runId: string): Promise<PlanVersion[]>;
  stats(): Promise<StoreStats>;
  /**
   * Deletes runs with their events and plan versions, and the blobs nothing else references (`weft prune`).
   * A `running` run is deleted only with a matching `deadOwner`. `dryRun` computes the same result and keeps
   * everything.
   */
  deleteRuns(runs: readonly RunDeletion[], options?: { readonly dryRun?: boolean }): Promise<DeletedRuns>;
  close(): Promise<void>;
}
