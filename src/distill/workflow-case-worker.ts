/**
 * The worker thread of isolated workflow runs (run-workflow-isolated.ts): one whole case per task, the interpreter
 * and every expression here, so a case that never ends blocks only this thread, which the pool terminates. The
 * workflow crosses once per worker (kept by its id). Tools of a tools module are imported here and called here, as a
 * pause of the case's time with the tool's own limit (a busy one is stopped by the pool all the same); every other
 * tool stays on the pool's thread, called by request.
 */
import { type IsolateTaskContext, serveIsolateTasks } from '../runtime/isolate-worker.js';
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
  /** The tool list's id in this process; `tools` (and `modules`) come with the first task of a worker that lacks it. */
  readonly kit: number;
  readonly tools?: readonly string[];
  /** The tools among `tools` that come from a tools module, run here. */
  readonly modules?: readonly { readonly name: string; readonly origin: ModuleToolOrigin }[];
  readonly input: Readonly<Record<string, unknown>>;
  readonly maxVisits?: number;
  /** Send back how many tools the case called, not the calls themselves. */
  readonly countCalls?: boolean;
  /** Forget every workflow and tool list kept so far: what this case needs comes with it. */
  readonly fresh?: boolean;
}

/** A tool call as the case asks for it; the pool's thread makes it with callTool and the real tool. */
export interface WorkflowToolRequest {
  readonly tool: string;
  readonly args: JsonValue;
}

const workflows = new Map<number, ExecutableWorkflow>();
const kits = new Map<number, Promise<readonly Tool[]>>();

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
  if (task.fresh) {
    workflows.clear();
    kits.clear();
  }
  if (task.workflow) {
    workflows.set(task.id, task.workflow);
  }
  const workflow = workflows.get(task.id);
  if (!workflow) throw new Error(`workflow ${task.id} was never sent to this worker`);
  if (task.tools) {
    // Kept if it fails too: every case of this list then fails with that error (the pool sends the list once).
    const tools = toolsOf(task.tools, task.modules ?? [], context);
    tools.catch(() => {});
    kits.set(task.kit, tools);
  }
  const tools = kits.get(task.kit);
  if (!tools) throw new Error(`tool list ${task.kit} was never sent to this worker`);
  const result = await runWorkflow(workflow, {
    tools: await tools,
    input: task.input,
    ...(task.maxVisits !== undefined ? { maxVisits: task.maxVisits } : {}),
    // The pool's limit is the one that stops a case here; JSONata's own check (between its steps) would race it
    // and end the same case with another message now and then.
    expressionTimeLimitMs: Number.POSITIVE_INFINITY,
    onEvaluate: context.setWhere,
    signal: context.signal,
  });
  return {
    output: result.output,
    steps: result.steps,
    toolCalls: task.countCalls ? result.toolCalls.length : result.toolCalls,
  };
});

/** The case's tools here: a tools module's own, imported in this worker; the others forward each call. */
function toolsOf(
  names: readonly string[],
  modules: readonly { readonly name: string; readonly origin: ModuleToolOrigin }[],
  context: IsolateTaskContext,
): Promise<readonly Tool[]> {
  const local = new Map(modules.map((entry) => [entry.name, entry.origin]));
  return Promise.all(
    names.map(async (name): Promise<Tool> => {
      const origin = local.get(name);
      if (origin) {
        // The module's own tool, with its schema, timeout, retries and size cap applied here by callTool; its call
        // is a pause of the case's time, limited by the tool's timeout (a busy loop stops this worker).
        const real = (await moduleToolsOfThread(origin)).find((tool) => tool.name === name);
        if (!real) throw new Error(`${origin.shown} has no tool ${name} in this worker`);
        const limit = real.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
        return {
          ...real,
          call: (args, callContext) => context.pause(limit, `tool ${name}`, () => real.call(args, callContext)),
        };
      }
      // Stand-ins that forward each call: validation, timeout, retries and the size cap are the real call's, on the
      // pool's thread, so here none of them applies twice.
      return {
        name,
        description: name,
        inputSchema: {},
        idempotent: false,
        timeoutMs: Number.POSITIVE_INFINITY,
        maxResultBytes: Number.MAX_SAFE_INTEGER,
        source: 'isolated',
        call: async (args) => (await context.request({ tool: name, args } satisfies WorkflowToolRequest)) as JsonValue,
      };
    }),
  );
}
