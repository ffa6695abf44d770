/**
 * The tools of a run: a tools file (`--tools`) and a plan's own `tools:` section, merged into one set (a name once
 * across both). `weft run` and `weft resume` load them the same way; a resume finds both paths in the run's record.
 */
import { resolve } from 'node:path';
import { loadToolsFile, mergeToolSets, type ToolSet } from '../internal.js';
import type { IsolationLimits } from './distill/isolation-limits.js';

export interface RunTools {
  readonly toolSet: ToolSet | undefined;
  /** Absolute paths, for the run's record; only the sources that gave tools. */
  readonly toolsFile?: string;
  readonly planToolsFile?: string;
}

export async function loadRunTools(
  sources: { readonly toolsFile?: string | undefined; readonly planFile?: string | undefined },
  signal: AbortSignal,
  /** The hard limits of their workflow tools' runs (the config's caseTimeLimitMs, workerMemoryMb, jobs). */
  workflowLimits?: IsolationLimits,
): Promise<RunTools> {
  const limits = workflowLimits ? { workflowLimits } : {};
  const fromFile =
    sources.toolsFile !== undefined ? await loadToolsFile(sources.toolsFile, { signal, ...limits }) : undefined;
  let fromPlan: ToolSet | undefined;
  try {
    fromPlan =
      sources.planFile !== undefined
        ? await loadToolsFile(sources.planFile, { signal, embedded: true, ...limits })
        : undefined;
  } catch (error) {
    await fromFile?.close();
    throw error;
  }
  const planGave = fromPlan !== undefined && fromPlan.tools.length > 0;
  const sets = [fromFile, planGave ? fromPlan : undefined].filter((set): set is ToolSet => set !== undefined);
  if (!planGave) await fromPlan?.close();
  const toolSet = sets.length === 0 ? undefined : sets.length === 1 ? sets[0] : await mergeToolSets(sets);
  return {
    toolSet,
    ...(fromFile ? { toolsFile: resolve(sources.toolsFile!) } : {}),
    ...(planGave ? { planToolsFile: resolve(sources.planFile!) } : {}),
  };
}
