/**
 * Where runs are recorded. An append-only event log per run plus the plan versions, so that a run's state is a
 * fold of its log (durable resume, Postgres and distributed workers build on this in later issues).
 * Async throughout so that a network store (Postgres) implements the same contract as SQLite.
 * The store does not know the event vocabulary (that belongs to `run/`); it keeps events as JSON.
 */
import type { WorkflowJson } from '../graph/workflow.js';

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

export const STORED_RUN_STATUSES: readonly StoredRunStatus[] = ['running', 'completed', 'failed', 'cancelled', 'interrupted'];

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
 */
export interface RunStore {
  createRun(run: NewRun): Promise<void>;
  /** Appends in order, atomically (one transaction per batch); seq numbers continue the run's log. */
  appendEvents(runId: string, events: readonly EventRecord[]): Promise<void>;
  savePlanVersion(version: Omit<PlanVersion, 'createdAt'>): Promise<void>;
  setStatus(runId: string, status: StoredRunStatus): Promise<void>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** Oldest first. */
  listRuns(): Promise<RunRecord[]>;
  /** Events with seq > afterSeq (default 0), in order. */
  events(runId: string, afterSeq?: number): Promise<StoredEvent[]>;
  /** Lowest version first. */
  planVersions(runId: string): Promise<PlanVersion[]>;
  stats(): Promise<StoreStats>;
  close(): Promise<void>;
}
