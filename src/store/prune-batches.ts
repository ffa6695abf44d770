/**
 * The batch half of pruning a home: `weft exec` batches created before the cutoff are deleted from the store with
 * their logs, unless a process that may still be running them owns them (alive on this host, or on another host,
 * which this one cannot judge). The results files a batch wrote with `--out` are the user's and stay.
 */
import { type BatchInfo, isBatchStore } from './batch-records.js';
import { type LivenessProbe, ownerState } from './run-owner.js';

export interface PrunedBatch {
  readonly batchId: string;
  readonly createdAt: string;
  /** Records its log held. */
  readonly records: number;
}

export interface KeptBatch {
  readonly batchId: string;
  readonly reason: string;
}

export interface PruneBatchesResult {
  readonly removed: readonly PrunedBatch[];
  readonly kept: readonly KeptBatch[];
}

export async function pruneBatches(
  store: unknown,
  options: { readonly before: Date; readonly dryRun: boolean; readonly probe?: LivenessProbe },
): Promise<PruneBatchesResult> {
  if (!isBatchStore(store)) return { removed: [], kept: [] };
  const removed: PrunedBatch[] = [];
  const kept: KeptBatch[] = [];
  for (const batch of await store.listBatches()) {
    if (!(Date.parse(batch.createdAt) < options.before.getTime())) continue;
    const reason = keepReason(batch, options.probe);
    if (reason) {
      kept.push({ batchId: batch.batchId, reason });
      continue;
    }
    if (options.dryRun || (await store.deleteBatch(batch.batchId)))
      removed.push({ batchId: batch.batchId, createdAt: batch.createdAt, records: batch.records });
  }
  return { removed, kept };
}

function keepReason(batch: BatchInfo, probe: LivenessProbe | undefined): string | undefined {
  if (!batch.owner) return undefined;
  const state = ownerState(batch.owner, probe);
  if (state === 'alive') return `process ${batch.owner.pid} is running it`;
  if (state === 'unknown')
    return `process ${batch.owner.pid} on ${batch.owner.host} owns it, and this host cannot tell whether it is alive`;
  return undefined;
}
