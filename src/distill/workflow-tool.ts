/**
 * A distilled workflow as a tool (a `workflow` entry of a tools section, docs/tools-file.md): the workflow's inputs
 * are the tool's arguments and its output is the result. It runs in the interpreter (runWorkflow), with no model,
 * under its own deadline: when that passes, the run is stopped and the error names the node it had reached.
 * callTool's timeout is set a little past that deadline, as a backstop only, so that the deadline's own error (which
 * names the node) is the one the caller sees.
 */
import { WeftError } from '../errors.js';
import type { JsonValue, Tool, ToolSchema, WorkflowToolInfo } from '../tools/tool.js';
import { DEFAULT_EXPRESSION_TIME_LIMIT_MS } from './evaluate-value.js';
import { runWorkflow } from './run-workflow.js';
import { DEFAULT_MAX_VISITS, type ExecutableWorkflow } from './workflow.js';

/** A workflow may make many tool calls, each with its own timeout (30 s by default): its whole run gets longer. */
export const DEFAULT_WORKFLOW_TOOL_TIMEOUT_MS = 120_000;
/** How far past the workflow's deadline callTool's own timeout is set. */
export const WORKFLOW_DEADLINE_MARGIN_MS = 1_000;

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

export function createWorkflowTool(workflow: ExecutableWorkflow, options: WorkflowToolOptions): Tool {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WORKFLOW_TOOL_TIMEOUT_MS;
  const maxVisits = options.maxVisits ?? DEFAULT_MAX_VISITS;
  // No single expression may outlast the whole run's deadline.
  const expressionTimeLimitMs = Math.min(DEFAULT_EXPRESSION_TIME_LIMIT_MS, timeoutMs);
  const nodes = new Map(workflow.nodes.map((node) => [node.id, node]));
  const place = (id: string | undefined): string => {
    if (id === undefined) return 'its start';
    const node = nodes.get(id);
    return node?.kind === 'tool' ? `node ${id} (tool ${node.tool})` : `node ${id}`;
  };
  const info: WorkflowToolInfo = {
    file: options.file,
    name: workflow.name,
    calls: [...new Set(workflowCalls(workflow).map((call) => call.tool))],
    ...(options.toolsFile !== undefined ? { toolsFile: options.toolsFile } : {}),
    timeoutMs,
    maxVisits,
  };
  return {
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
      let at: string | undefined;
      let visits = 0;
      const deadline = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      // Settles at the deadline even when what runs does not stop at once (a tool that ignores its signal).
      const stopped = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new WeftError(
            'TIMEOUT',
            `stopped at its ${timeoutMs} ms deadline, at ${place(at)}, after ${visits} node visits`,
            // Running it again would meet the same deadline; its idempotent tools have had their own retries.
            { retryable: false, ...(at !== undefined ? { location: { field: `nodes.${at}` } } : {}) },
          );
          deadline.abort(error);
          reject(error);
        }, timeoutMs);
      });
      try {
        const result = await Promise.race([
          runWorkflow(workflow, {
            tools: options.tools,
            input: args as Readonly<Record<string, unknown>>,
            maxVisits,
            expressionTimeLimitMs,
            signal: AbortSignal.any([context.signal, deadline.signal]),
            ...(context.scope !== undefined ? { toolScope: context.scope } : {}),
            onVisit: (node) => {
              at = node;
              visits += 1;
            },
          }),
          stopped,
        ]);
        return (result.output ?? null) as JsonValue;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
