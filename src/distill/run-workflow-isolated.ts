/**
 * `runWorkflow` with hard limits: the case runs in a worker thread (workflow-case-worker.ts), the interpreter and
 * every JSONata expression there, so an expression that never ends, or one long step (a sort of millions, a
 * backtracking regex), is stopped at its time limit by terminating the worker, and the process (a batch's other
 * cases, `weft mcp`, the dashboard) goes on. Tool calls come back to this thread and run as in `runWorkflow`
 * (callTool: validation, timeout, retries); the time they take does not count against the case's limit.
 */
import { availableParallelism } from 'node:os';
import { WeftError } from '../errors.js';
import { integerOption } from '../runtime/integer-option.js';
import {
  DEFAULT_WORKER_MEMORY_MB,
  type IsolatePool,
  createIsolatePool,
  workerScript,
} from '../runtime/isolate-pool.js';
import { callTool } from '../tools/call-tool.js';
import type { Tool } from '../tools/tool.js';
import type { RunWorkflowOptions, WorkflowRunResult } from './run-workflow.js';
import type { WorkflowCaseTask, WorkflowToolRequest } from './workflow-case-worker.js';
import type { ExecutableWorkflow } from './workflow.js';

/**
 * The smallest heap a case's worker may have. Below it, one allocation JSONata allows (a sequence of its million
 * items as a string, say) can outgrow Node's small leeway at the limit, and Node then ends the whole process
 * instead of the worker (docs/workflows.md, hard limits).
 */
export const MIN_WORKER_MEMORY_MB = 128;

/** How long one case may compute (its expressions and the interpreter; tool calls not counted) by default. */
export const DEFAULT_CASE_TIME_LIMIT_MS = 2_000;

export interface IsolatedRunOptions extends Omit<RunWorkflowOptions, 'onVisit' | 'onEvaluate'> {
  /**
   * Milliseconds the case may compute, all its expressions together (default DEFAULT_CASE_TIME_LIMIT_MS); time
   * waiting for a tool is not counted (each call has its own timeout). The only time limit there: JSONata's own is
   * not set.
   */
  readonly timeLimitMs?: number;
  /** The worker's heap limit in MB (default DEFAULT_WORKER_MEMORY_MB); a case past it fails alone. */
  readonly memoryMb?: number;
  /** Worker threads cases run on at once (`weft exec --jobs`; default defaultJobs(): the machine's cores). */
  readonly jobs?: number;
  /**
   * Which workers the run takes (default 0, a case): a workflow tool's own run (workflow-tool.ts) takes those of its
   * depth among workflow tools, 1 and up, so a run waiting on a workflow tool it called never holds the worker that
   * tool needs (with `--jobs 1`, a case calling one would otherwise wait for itself).
   */
  readonly lane?: number;
}

/** One worker thread a core: what `weft exec --jobs` is by default. */
export function defaultJobs(): number {
  return Math.max(1, availableParallelism());
}

/** Pools by memory limit and size: cases with other limits do not share workers. */
const pools = new Map<string, IsolatePool>();
const workflowIds = new WeakMap<ExecutableWorkflow, number>();
let nextWorkflowId = 1;

function poolFor(memoryMb: number, jobs: number, lane: number): IsolatePool {
  const key = `${memoryMb}:${jobs}:${lane}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = createIsolatePool({
      script: workerScript('workflow-case-worker', import.meta.url),
      memoryMb,
      maxWorkers: jobs,
    });
    pools.set(key, pool);
  }
  return pool;
}

/** Stops every worker of isolated runs (tests; a long-lived host that wants its threads back). */
export async function closeWorkflowWorkers(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.close()));
}

export async function runWorkflowIsolated(
  workflow: ExecutableWorkflow,
  options: IsolatedRunOptions,
): Promise<WorkflowRunResult> {
  const timeLimitMs = options.timeLimitMs ?? DEFAULT_CASE_TIME_LIMIT_MS;
  const memoryMb = options.memoryMb ?? DEFAULT_WORKER_MEMORY_MB;
  integerOption(timeLimitMs, 'timeLimitMs', { min: 1 });
  integerOption(memoryMb, 'memoryMb', { min: MIN_WORKER_MEMORY_MB });
  const jobs = integerOption(options.jobs ?? defaultJobs(), 'jobs', { min: 1, max: 256 });
  const lane = integerOption(options.lane ?? 0, 'lane', { min: 0, max: 64 });
  if (options.maxVisits !== undefined) integerOption(options.maxVisits, 'maxVisits', { min: 1 });
  let id = workflowIds.get(workflow);
  if (id === undefined) {
    id = nextWorkflowId++;
    workflowIds.set(workflow, id);
  }
  const workflowId = id;
  const tools = new Map((options.tools ?? []).map((tool): [string, Tool] => [tool.name, tool]));
  const toolNames = [...tools.keys()];
  // A tools module's tools run in the case's own worker: no round trip to this thread for each call.
  const modules = [...tools.values()].flatMap((tool) =>
    tool.module ? [{ name: tool.name, origin: tool.module }] : [],
  );
  const { signal, toolScope } = options;
  const callOptions = {
    ...(signal ? { signal } : {}),
    ...(toolScope !== undefined ? { scope: toolScope } : {}),
  };
  const located = (where: string | undefined, what: string, code: 'TIMEOUT' | 'WORKFLOW') =>
    new WeftError(code, `${where ?? 'the workflow'}: ${what}`, {
      // Running it again would meet the same limit.
      retryable: false,
      ...(where !== undefined ? { location: { field: where } } : {}),
    });
  const result = (await poolFor(memoryMb, jobs, lane).run({
    timeLimitMs,
    ...(signal ? { signal } : {}),
    body: (held) => {
      const first = !held.has(workflow);
      held.add(workflow);
      return {
        id: workflowId,
        ...(first ? { workflow } : {}),
        tools: toolNames,
        ...(modules.length > 0 ? { modules } : {}),
        input: options.input,
        ...(options.maxVisits !== undefined ? { maxVisits: options.maxVisits } : {}),
        // The pool's limit is the one that stops a case here; JSONata's own check (between its steps) would race it
        // and end the same case with another message now and then.
        expressionTimeLimitMs: Number.POSITIVE_INFINITY,
      } satisfies WorkflowCaseTask;
    },
    onRequest: async (body) => {
      const request = body as WorkflowToolRequest;
      const tool = tools.get(request.tool);
      if (!tool) throw new WeftError('TOOL', `${request.tool}: no such tool`);
      const outcome = await callTool(tool, request.args, callOptions);
      if (!outcome.ok) throw outcome.error;
      return outcome.result;
    },
    overTime: (where) =>
      located(
        where,
        `stopped at the case's time limit of ${timeLimitMs} ms of computing (--time-limit; tool calls not counted)`,
        'TIMEOUT',
      ),
    pauseOverTime: (where, limitMs) =>
      located(where, `no result after ${limitMs} ms (its timeoutMs); the case's worker thread was stopped`, 'TIMEOUT'),
    crashed: (where, reason) => located(where, `stopped: ${reason} (--worker-memory)`, 'WORKFLOW'),
    // A caller's deadline (its signal aborted with a TIMEOUT) is named where the case had got to.
    aborted: (where) => {
      const reason: unknown = signal?.reason;
      return reason instanceof WeftError && reason.code === 'TIMEOUT'
        ? located(where, reason.message, 'TIMEOUT')
        : undefined;
    },
  })) as Omit<WorkflowRunResult, 'llmCalls'>;
  return { ...result, llmCalls: 0 };
}
