/** `weft runs`: the recorded runs, oldest first. */
import { loadContext, openStore } from './context.js';
import type { Output } from './output.js';

export async function runsCommand(flags: { home?: string; json?: boolean }, output: Output): Promise<number> {
  const { home } = await loadContext(flags);
  const store = await openStore(home);
  try {
    const runs = await store.listRuns();
    if (output.json) {
      output.document({ runs: runs.map((run) => ({ runId: run.runId, status: run.status, task: run.task, createdAt: run.createdAt })) });
      return 0;
    }
    if (runs.length === 0) output.text(`no runs in ${home}`);
    for (const run of runs) output.text(`${run.runId}  ${run.status.padEnd(11)} ${run.createdAt}  ${run.task.split('\n')[0]!.slice(0, 60)}`);
    return 0;
  } finally {
    await store.close();
  }
}
