import { mkdir, writeFile } from 'node:fs/promises';
import type { WorkflowJson } from '../graph/workflow.js';
import { runPaths } from '../store/run-paths.js';
import type { RunStore } from '../store/run-store.js';
import type { WorkflowDiffSummary } from './events.js';

/** Saves a plan version in the store and as `plan-v<N>.json` in the run folder. */
export async function recordPlanVersion(
  store: RunStore,
  home: string,
  version: { runId: string; version: number; workflow: WorkflowJson; cause: string; diff?: WorkflowDiffSummary },
): Promise<void> {
  await store.savePlanVersion(version);
  const paths = runPaths(home, version.runId);
  await mkdir(paths.dir, { recursive: true });
  await writeFile(paths.planFile(version.version), `${JSON.stringify(version.workflow, null, 2)}\n`);
}
