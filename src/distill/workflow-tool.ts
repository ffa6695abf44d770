/**
 * A distilled workflow as a tool (a `workflow` entry of a tools section, docs/tools-file.md): the workflow's inputs
 * are the tool's arguments and its output is the result. It runs with no model in a worker thread
 * (runWorkflowIsolated) with the hard limits of `weft exec` (computing time, memory), so a hostile expression in it
 * fails that call alone; the whole run also has its own deadline (tool calls included): when that passes, the run is
 * stopped and the error names the node it had reached. callTool's timeout is set a little past that deadline, as a
 * backstop only, so that the deadline's own error (which names the node) is the one the caller sees.
 */
import { WeftError } from '../errors.js';
import type { JsonValue, Tool, ToolSchema, WorkflowToolInfo } from '../tools/tool.js';
import { type IsolatedRunOptions, runWorkflowIsolated } from './run-workflow-isolated.js';
import { DEFAULT_MAX_VISITS, type ExecutableWorkflow } from './workflow.js';

/** A workflow may make many tool calls, each with its own timeout (30 s by default): its whole run gets longer. */
export const DEFAULT_WORKFLOW_TOOL_TIMEOUT_MS = 120_000;
/** How far past the workflow's deadline callTool's own timeout is set. */
export const WORKFLOW_DEADLINE_MARGIN_MS = 1_000;
/** Workflow tools calling workflow tools deeper than this share workers (the lane of runWorkflowIsolated). */
const MAX_LANE = 64;

/** The hard limits of a workflow tool's run: `weft exec`'s (`--time-limit`, `--worker-memory`, `--jobs`). */
export type WorkflowToolLimits = Pick<IsolatedRunOptions, 'timeLimitMs' | 'memoryMb' | 'jobs'>;

export interface WorkflowToolOptions {
  readonly name: string;
  /** Default: the workflow's description. */
  readonly description?: string;
  /**
   * The tools its nodes call, looked up by name when it runs. The array may be completed after the tool is made
   * (a section's workflow tools call each other), but not changed once it has run.
   */
  readonly tools: readonly Tool[];
  /** For listings and errors, e.g. `workflow ./sum.workflow.json (tools.yaml:12)`. */
  readonly source: string;
  /** The workflow file as the entry names it. */
  readonly file: string;
  /** The tools file its tools come from, as the entry names it (absent: its own section). */
  readonly toolsFile?: string;
  /** The deadline of one whole run (default DEFAULT_WORKFLOW_TOOL_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  readonly maxVisits?: number;
  readonly idempotent?: boolean;
  readonly secretArgs?: readonly string[];
  readonly concurrency?: number;
  readonly maxResultBytes?: number;
  /** Its run's computing time and memory, and the worker threads such runs share (default: runWorkflowIsolated's). */
  readonly limits?: WorkflowToolLimits;
}

/** The tool's arguments: every declared input, required (as the interpreter requires them), and nothing else. */
export function workflowInputSchema(workflow: ExecutableWorkflow): ToolSchema {
  const inputs = workflow.inputs ?? {};
  return { type: 'object', properties: inputs, required: Object.keys(inputs), additionalProperties: false };
}

/** A tool name from a workflow's name (`sum to n` → `sum_to_n`); undefined when nothing usable is left. */
export function toolNameOfWorkflow(name: string): string | undefined {
  const cleaned = name
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  return cleaned === '' ? undefined : cleaned;
}

/** The tool nodes of a workflow: which tool each calls. */
export function workflowCalls(workflow: ExecutableWorkflow): { readonly node: string; readonly tool: string }[] {
  return workflow.nodes.flatMap((node) => (node.kind === 'tool' ? [{ node: node.id, tool: node.tool }] : []));
}

/** What a workflow tool calls, for its lane: the tools array is complete only once the section is. */
const calleesOf = new WeakMap<Tool, { readonly tools: readonly Tool[]; readonly calls: ReadonlySet<string> }>();
const lanes = new WeakMap<Tool, number>();

/**
 * 0 for a tool that is no workflow tool, else 1 + the deepest lane among the workflow tools it calls: along any
 * chain of calls each run takes workers of another lane than the runs waiting on it.
 */
function laneOf(tool: Tool, visiting = new Set<Tool>()): number {
  const known = lanes.get(tool);
  if (known !== undefined) return known;
  const callees = calleesOf.get(tool);
  // A cycle is refused when the section is opened; here it only ends the recursion.
  if (!callees || visiting.has(tool)) return 0;
  visiting.add(tool);
  let deepest = 0;
  for (const callee of callees.tools)
    if (callees.calls.has(callee.name)) deepest = Math.max(deepest, laneOf(callee, visiting));
  visiting.delete(tool);
  const lane = Math.min(MAX_LANE, deepest + 1);
  lanes.set(tool, lane);
  return lane;
}

export function createWorkflowTool(workflow: ExecutableWorkflow, options: WorkflowToolOptions): Tool {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WORKFLOW_TOOL_TIMEOUT_MS;
  const maxVisits = options.maxVisits ?? DEFAULT_MAX_VISITS;
  const info: WorkflowToolInfo = {
    file: options.file,
    name: workflow.name,
    calls: [...new Set(workflowCalls(workflow).map((call) => call.tool))],
    ...(options.toolsFile !== undefined ? { toolsFile: options.toolsFile } : {}),
    timeoutMs,
    maxVisits,
  };
  const tool: Tool = {
    name: options.name,
    description: options.description ?? workflow.description ?? `Runs the workflow "${workflow.name}".`,
    inputSchema: workflowInputSchema(workflow),
    idempotent: options.idempotent ?? false,
    ...(options.secretArgs ? { secretArgs: options.secretArgs } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.maxResultBytes !== undefined ? { maxResultBytes: options.maxResultBytes } : {}),
    timeoutMs: timeoutMs + WORKFLOW_DEADLINE_MARGIN_MS,
    source: options.source,
    workflow: info,
    async call(args, context) {
      const deadline = new AbortController();
      // The run stops at the deadline with this error, named by the node it had reached (runWorkflowIsolated), and
      // the tool it waited on sees the stop through the same signal.
      const timer = setTimeout(
        () =>
          deadline.abort(
            // Running it again would meet the same deadline; its idempotent tools have had their own retries.
            new WeftError('TIMEOUT', `stopped at its ${timeoutMs} ms deadline`, { retryable: false }),
          ),
        timeoutMs,
      );
      try {
        const result = await runWorkflowIsolated(workflow, {
          ...options.limits,
          tools: options.tools,
          input: args as Readonly<Record<string, unknown>>,
          maxVisits,
          lane: laneOf(tool),
          signal: AbortSignal.any([context.signal, deadline.signal]),
          ...(context.scope !== undefined ? { toolScope: context.scope } : {}),
        });
        return (result.output ?? null) as JsonValue;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  calleesOf.set(tool, { tools: options.tools, calls: new Set(info.calls) });
  return tool;
}
