/**
 * Pruning a home: removes the runs created before a cutoff, with their events, plan versions, the blobs no other
 * run uses and their folders under `<home>/runs`, and the `weft exec` batches created before it (prune-batches.ts).
 * A live run or batch is never removed (`selectRunsToPrune`).
 */
import { effectiveStatus, type LivenessProbe } from './run-owner.js';
import type { RunRecord, RunStore, StoredRunStatus } from './run-store.js';
import { type KeptBatch, type PrunedBatch, pruneBatches } from './prune-batches.js';
import { removeRunDirectory } from './remove-run-directory.js';
import { selectRunsToPrune, type KeptRun } from './select-runs-to-prune.js';

export interface PruneRunsOptions {
  /** The Weft home whose `runs/` folder holds the run folders to remove with their records. */
  readonly home: string;
  /** Runs created strictly before this instant are pruned. */
  readonly before: Date;
  /** Only count what would go; nothing is removed. */
  readonly dryRun?: boolean;
  /** How to tell whether a run's owner process is alive (tests replace it). */
  readonly probe?: LivenessProbe;
}

export interface PrunedRun {
  readonly runId: string;
  /** As `weft runs` shows it: a `running` run whose owner is gone is `interrupted`. */
  readonly status: StoredRunStatus;
  readonly createdAt: string;
  readonly task: string;
}

export interface PruneRunsResult {
  readonly dryRun: boolean;
  readonly removed: readonly PrunedRun[];
  readonly kept: readonly KeptRun[];
  readonly events: number;
  readonly planVersions: number;
  readonly blobs: number;
  readonly blobBytes: number;
  /** Run folders removed (a run may have none), and their size. */
  readonly directories: number;
  readonly directoryBytes: number;
  readonly bytesFreed: number;
  /** Run folders that could not be removed; their runs' records are gone all the same. */
  readonly failures: readonly { readonly runId: string; readonly message: string }[];
  /** `weft exec` batches removed with their logs (none for a store without batches). */
  readonly batches: readonly PrunedBatch[];
  /** Batches created before the cutoff that a process may still be running. */
  readonly keptBatches: readonly KeptBatch[];
}

/** Prunes `store` (which the caller opened and closes) and the run folders under `options.home`. */
export async function pruneRuns(store: RunStore, options: PruneRunsOptions): Promise<PruneRunsResult> {
  const dryRun = options.dryRun === true;
  const runs = await store.listRuns();
  const { deletions, kept: live } = selectRunsToPrune(runs, options.before, options.probe);
  const result = await store.deleteRuns(deletions, { dryRun });
  const byId = new Map<string, RunRecord>(runs.map((run) => [run.runId, run]));
  const kept = [...live];
  // Runs that changed between the listing and the deletion (resumed, say) are kept by the store.
  for (const runId of result.skipped) {
    kept.push({
      runId,
      status: byId.get(runId)?.status ?? 'unknown',
      reason: 'it changed while pruning (resumed, or already removed)',
    });
  }

  let directories = 0;
  let directoryBytes = 0;
  const failures: { runId: string; message: string }[] = [];
  for (const runId of result.removed) {
    try {
      const removed = await removeRunDirectory(options.home, runId, dryRun);
      if (removed !== undefined) {
        directories += 1;
        directoryBytes += removed;
      }
    } catch (error) {
      failures.push({ runId, message: error instanceof Error ? error.message : String(error) });
    }
  }

  const batches = await pruneBatches(store, {
    before: options.before,
    dryRun,
    ...(options.probe ? { probe: options.probe } : {}),
  });
  const removed = result.removed.map((runId) => {
    const run = byId.get(runId) as RunRecord;
    return { runId, status: effectiveStatus(run, options.probe), createdAt: run.createdAt, task: run.task };
  });
  return {
    dryRun,
    removed,
    kept,
    events: result.events,
    planVersions: result.planVersions,
    blobs: result.blobs,
    blobBytes: result.blobBytes,
    directories,
    directoryBytes,
    bytesFreed: result.blobBytes + directoryBytes,
    failures,
    batches: batches.removed,
    keptBatches: batches.kept,
  };
}
