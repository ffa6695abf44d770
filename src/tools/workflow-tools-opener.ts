/**
 * How a tools section's `workflow` entries are opened. The workflow interpreter sits above the tools layer (it calls
 * tools), so the tools layer only defines this contract; the distill layer implements it (openWorkflowTools) and the
 * library's loadToolsFile passes it in.
 */
import type { LocatedIssue } from '../errors.js';
import type { Tool, ToolSet } from './tool.js';
import type { ToolSourceSpec } from './tool-entry-fields.js';

export type WorkflowToolSource = Extract<ToolSourceSpec, { kind: 'workflow' }>;

export interface WorkflowToolsContext {
  /** The section's other tools, opened: what a workflow without its own `tools:` file calls. */
  readonly siblings: readonly Tool[];
  /**
   * The section already has problems: some of its tools may be missing (an MCP server not started, a module that
   * failed), so which names a workflow calls in vain cannot be told yet, and nested tools files are not opened.
   */
  readonly sectionHasProblems: boolean;
  /** The tools files being loaded, outermost first (absolute): a workflow's `tools:` among them is a cycle. */
  readonly within: readonly string[];
  readonly signal?: AbortSignal;
  /**
   * Loads a tools file a workflow names in `tools:`, with the options the section was loaded with, one level
   * deeper in `within` (loadToolsFile gives it; without it such entries cannot be opened).
   */
  readonly openToolsFile?: (path: string) => Promise<ToolSet>;
}

export interface OpenedWorkflowTools {
  /** One per source, in order: undefined for a source with a problem. */
  readonly tools: readonly (Tool | undefined)[];
  /** Every problem, located (in the section, the workflow file or a nested tools file). */
  readonly issues: readonly LocatedIssue[];
  /** Closes what the workflows' own tools files opened (MCP servers). */
  close(): Promise<void>;
}

export type WorkflowToolsOpener = (
  sources: readonly WorkflowToolSource[],
  context: WorkflowToolsContext,
) => Promise<OpenedWorkflowTools>;
