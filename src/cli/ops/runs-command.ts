/**
 * `weft runs`: the recorded runs, newest first (`--oldest-first` flips it). A run the store still calls `running` whose process (on this
 * host) has gone is shown as `interrupted`: `weft resume <runId>` continues it. A home without a store yet has no
 * runs; listing them creates none.
 */
import { effectiveStatus, type LivenessProbe } from '../../core.js';
import { loadContext, openExistingStore, storePlace } from '../context.js';
import type { Output } from '../output.js';
import { inListOrder } from '../list-order.js';

export async function runsCommand(
  flags: { home?: string; json?: boolean; oldestFirst?: boolean },
  output: Output,
  probe: LivenessProbe = {},
): Promise<number> {
  const context = await loadContext(flags);
  // No store yet means no runs; looking must not create one.
  const store = await openExistingStore(context);
  try {
    const runs = inListOrder(store ? await store.listRuns() : [], flags.oldestFirst).map((run) => ({
      ...run,
      status: effectiveStatus(run, probe),
    }));
    if (output.json) {
      output.document({
        runs: runs.map((run) => ({ runId: run.runId, status: run.status, task: run.task, createdAt: run.createdAt })),
      });
      return 0;
    }
    if (runs.length === 0) output.text(`no runs in ${storePlace(context)}`);
    for (const run of runs)
      output.text(`${run.runId}  ${run.status.padEnd(11)} ${run.createdAt}  ${run.task.split('\n')[0]!.slice(0, 60)}`);
    const interrupted = runs.filter((run) => run.status === 'interrupted').length;
    if (interrupted > 0)
      output.log(
        `${interrupted} interrupted run${interrupted === 1 ? '' : 's'}: continue with \`weft resume <runId>\``,
      );
    return 0;
  } finally {
    await store?.close();
  }
}
