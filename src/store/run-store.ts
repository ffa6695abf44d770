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

export interface RunStore {
  createRun(run: NewRun): Promise<void>;
  /** Appends in order, atomically (one transaction per batch). */
  appendEvents(runId: string, events: readonly EventRecord[]): Promise<void>;
  savePlanVersion(version: Omit<PlanVersion, 'createdAt'>): Promise<void>;
  setStatus(runId: string, status: StoredRunStatus): Promise<void>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** Oldest first. */
  listRuns(): Promise<RunRecord[]>;
  /** Events with seq > afterSeq (default 0), in order. */
  events(runId: string, afterSeq?: number): Promise<StoredEvent[]>;
  planVersions(runId: string): Promise<PlanVersion[]>;
  close(): Promise<void>;
}
