/**
 * The library's loadToolsFile and openToolSources: the tools layer's, with every tool kind. `workflow` entries run
 * in the workflow interpreter, which sits above the tools layer (it calls tools), so its opener is plugged in here,
 * at the top, as role-kinds.ts does for role kinds.
 */
import { openWorkflowTools, workflowToolsOpener } from './distill/open-workflow-tools.js';
import type { WorkflowToolLimits } from './distill/workflow-tool.js';
import { openToolSources as openToolSourcesOfLayer, type OpenToolSourcesOptions } from './tools/open-tool-sources.js';
import type { ToolSet } from './tools/tool.js';
import type { ToolSourceSpec } from './tools/tool-entry-fields.js';
import { type LoadToolsFileOptions, loadToolsFile as loadToolsFileOfLayer } from './tools/tools-file.js';

export interface WorkflowLimitsOption {
  /**
   * The hard limits of its workflow tools' runs (computing time, worker memory, worker threads): `weft exec`'s
   * `--time-limit`, `--worker-memory` and `--jobs`, or the config's keys. Default: runWorkflowIsolated's.
   */
  readonly workflowLimits?: WorkflowToolLimits;
}

/** Loads every source a tools file (or a document's `tools:` section) lists into one ToolSet; see tools/tools-file.ts. */
export function loadToolsFile(
  path: string,
  options: LoadToolsFileOptions & WorkflowLimitsOption = {},
): Promise<ToolSet> {
  const { workflowLimits, ...rest } = options;
  return loadToolsFileOfLayer(path, { openWorkflows: openerOf(workflowLimits), ...rest });
}

function openerOf(limits: WorkflowToolLimits | undefined) {
  return limits === undefined ? openWorkflowTools : workflowToolsOpener(limits);
}

/** Opens a checked section's sources into one ToolSet; see tools/open-tool-sources.ts. */
export function openToolSources(
  sources: readonly ToolSourceSpec[],
  options: OpenToolSourcesOptions & WorkflowLimitsOption = {},
): Promise<ToolSet> {
  const { workflowLimits, ...rest } = options;
  return openToolSourcesOfLayer(sources, { openWorkflows: openerOf(workflowLimits), ...rest });
}
