/**
 * The rows both stores keep (the same columns in SQLite and Postgres) and how they read back as records.
 */
import { WeftError } from '../errors.js';
import type { WorkflowJson } from '../graph/workflow.js';
import { inflate, parseJson, type BlobRef } from './json-blobs.js';
import {
  STORED_RUN_STATUSES,
  type PlanVersion,
  type RunOwner,
  type RunRecord,
  type StoredRunStatus,
} from './run-store.js';

export interface RunRow {
  run_id: string;
  task: string;
  model: string;
  options: string;
  status: string;
  created_at: string;
  updated_at: string;
  owner_pid: number | null;
  owner_host: string | null;
}

/** A stored value (an event, a plan version): JSON text and the blobs it references. */
export interface DataRow {
  data: string;
  blob_refs: string | null;
}

export interface PlanRow extends DataRow {
  version: number;
  cause: string;
  created_at: string;
}

export function runRecordFromRow(row: RunRow): RunRecord {
  const options = parseJson(row.options, `the options of run ${row.run_id}`);
  if (!STORED_RUN_STATUSES.includes(row.status as StoredRunStatus)) {
    throw new WeftError(
      'STORE',
      `The run store holds an unknown status ${JSON.stringify(row.status)} for run ${row.run_id}`,
    );
  }
  return {
    runId: row.run_id,
    task: row.task,
    status: row.status as StoredRunStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    model: row.model,
    options: options as Record<string, unknown>,
    ...(row.owner_pid !== null && row.owner_host !== null
      ? { owner: { pid: row.owner_pid, host: row.owner_host } }
      : {}),
  };
}

/** A plan version from its row, the blob references decoded from it, and a reader of those blobs. */
export function planVersionFromRow(
  runId: string,
  row: PlanRow,
  refs: readonly BlobRef[],
  blob: (sha256: string) => string | undefined,
): PlanVersion {
  const what = `plan version ${row.version} of run ${runId}`;
  const data = inflate(row.data, refs, blob, what) as { workflow: WorkflowJson; diff?: unknown };
  const base = { runId, version: row.version, workflow: data.workflow, cause: row.cause, createdAt: row.created_at };
  return data.diff === undefined ? base : { ...base, diff: data.diff };
}

/**
 * Whether `deleteRuns` may delete an existing run: one that is not `running`, or still has the owner the caller
 * found dead (run-store.ts, RunDeletion).
 */
export function mayDeleteRun(
  row: Pick<RunRow, 'status' | 'owner_pid' | 'owner_host'>,
  deadOwner: RunOwner | undefined,
): boolean {
  const ownerGone = deadOwner !== undefined && row.owner_pid === deadOwner.pid && row.owner_host === deadOwner.host;
  return row.status !== 'running' || ownerGone;
}
