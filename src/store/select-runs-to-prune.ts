/**
 * Which runs pruning may remove: the pure half of `pruneRuns`, apart from the deleting. A live run is never
 * chosen: a run still `running` goes only when its owner (on this host) is gone, i.e. it was interrupted.
 */
import { ownerState, type LivenessProbe, type OwnerState } from './run-owner.js';
import type { RunDeletion, RunRecord } from './run-store.js';

/** A run pruning leaves in place, and why. */
export interface KeptRun {
  readonly runId: string;
  readonly status: string;
  readonly reason: string;
}

export interface RunsToPrune {
  /** What to pass to `RunStore.deleteRuns`: the runs created before the cutoff that are not live. */
  readonly deletions: readonly RunDeletion[];
  /** Runs created before the cutoff but still `running` with an owner that is, or may be, alive. */
  readonly kept: readonly KeptRun[];
}

/** Splits the runs created before `before` into those to delete and those to keep; newer runs are in neither. */
export function selectRunsToPrune(runs: readonly RunRecord[], before: Date, probe?: LivenessProbe): RunsToPrune {
  const deletions: RunDeletion[] = [];
  const kept: KeptRun[] = [];
  for (const run of runs) {
    if (!(Date.parse(run.createdAt) < before.getTime())) continue;
    if (run.status !== 'running') {
      deletions.push({ runId: run.runId });
      continue;
    }
    const state = ownerState(run.owner, probe);
    if (state === 'gone' && run.owner) deletions.push({ runId: run.runId, deadOwner: run.owner });
    else kept.push({ runId: run.runId, status: 'running', reason: keptReason(run, state) });
  }
  return { deletions, kept };
}

function keptReason(run: RunRecord, state: OwnerState): string {
  if (!run.owner) return 'running, and no owner process was recorded to check';
  if (state === 'alive') return `running (pid ${run.owner.pid} is alive)`;
  return `running on another host (${run.owner.host}, pid ${run.owner.pid})`;
}
