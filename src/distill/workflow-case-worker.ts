/**
 * The worker thread of isolated workflow runs (run-workflow-isolated.ts): one whole case per task, the interpreter
 * and every expression here, so a case that never ends blocks only this thread, which the pool terminates. The
 * workflow crosses once per worker (kept by its id). Tools of a tools module are imported here and called here, as a
 * pause of the case's time with the tool's own limit (a busy one is stopped by the pool all the same); every other
 * tool stays on the pool's thread, called by request.
 */
import { serveIsolateTasks } from '../runtime/isolate-worker.js';
import { DEFAULT_TOOL_TIMEOUT_MS } from '../tools/call-tool.js';
import { moduleToolsOfThread } from '../tools/module-tools.js';
import type { JsonValue, ModuleToolOrigin, Tool } from '../tools/tool.js';
import { runWorkflow } from './run-workflow.js';
import type { ExecutableWorkflow } from './workflow.js';

/** One case, as run-workflow-isolated.ts sends it. */
export interface WorkflowCaseTask {
  /** The workflow's id in this process; `workflow` comes with the first task of a worker that lacks it. */
  readonly id: number;
  readonly workflow?: ExecutableWorkflow;
  readonly tools: readonly string[];
  /** The tools among `tools` that come from a tools module, run here. */
  readonly modules?: readonly { readonly name: string; readonly origin: ModuleToolOrigin }[];
  readonly input: Readonly<Record<string, unknown>>;
  readonly maxVisits?: number;
  readonly expressionTimeLimitMs: number;
}

/** A tool call as the case asks for it; the pool's thread makes it with callTool and the real tool. */
export interface WorkflowToolRequest {
  readonly tool: string;
  readonly args: JsonValue;
}

const workflows = new Map<number, ExecutableWorkflow>();
const toolLists = new Map<string, Promise<readonly Tool[]>>();

// What every case needs loads before the worker says it is ready (JSONata, and ajv for a workflow's `inputs`): a
// case's time limit is not spent loading them.
await runWorkflow(
  {
    name: 'start-up',
    inputs: { n: { type: 'integer' } },
    nodes: [
      { id: 's', kind: 'start' },
      { id: 'e', kind: 'end', output: '{% inputs.n + 1 %}' },
    ],
    edges: [{ from: 's', to: 'e' }],
  },
  { input: { n: 1 } },
);

serveIsolateTasks(async (body, context) => {
  const task = body as WorkflowCaseTask;
  if (task.workflow) {
    if (workflows.size > 100) workflows.clear();
    workflows.set(task.id, task.workflow);
  }
  const workflow = workflows.get(task.id);
  if (!workflow) throw new Error(`workflow ${task.id} was never sent to this worker`);
  const local = new Map((task.modules ?? []).map((entry) => [entry.name, entry.origin]));
  const key = [...task.tools, ...[...local].map(([name, origin]) => `${name}@${origin.file}`)].join('\u0000');
  let tools = toolLists.get(key);
  if (!tools) {
    tools = Promise.all(
      task.tools.map(async (name): Promise<Tool> => {
        const origin = local.get(name);
        if (origin) {
          // The module's own tool, with its schema, timeout, retries and size cap applied here by callTool; its
          // call is a pause of the case's time, limited by the tool's timeout (a busy loop stops this worker).
          const real = (await moduleToolsOfThread(origin)).find((tool) => tool.name === name);
          if (!real) throw new Error(`${origin.shown} has no tool ${name} in this worker`);
          const limit = real.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
          return {
            ...real,
            call: (args, callContext) => context.pause(limit, `tool ${name}`, () => real.call(args, callContext)),
          };
        }
        // Stand-ins that forward each call: validation, timeout, retries and the size cap are the real call's, on
        // the pool's thread, so here none of them applies twice.
        return {
          name,
          description: name,
          inputSchema: {},
          idempotent: false,
          timeoutMs: Number.POSITIVE_INFINITY,
          maxResultBytes: Number.MAX_SAFE_INTEGER,
          source: 'isolated',
          call: async (args) =>
            (await context.request({ tool: name, args } satisfies WorkflowToolRequest)) as JsonValue,
        };
      }),
    );
    tools.catch(() => toolLists.delete(key));
    if (toolLists.size > 100) toolLists.clear();
    toolLists.set(key, tools);
  }
  const result = await runWorkflow(workflow, {
    tools: await tools,
    input: task.input,
    ...(task.maxVisits !== undefined ? { maxVisits: task.maxVisits } : {}),
    expressionTimeLimitMs: task.expressionTimeLimitMs,
    onEvaluate: context.setWhere,
    signal: context.signal,
  });
  return { output: result.output, steps: result.steps, toolCalls: result.toolCalls };
});
