/**
 * `runWorkflow` with hard limits: the case runs in a worker thread (workflow-case-worker.ts), the interpreter and
 * every JSONata expression there, so an expression that never ends, or one long step (a sort of millions, a
 * backtracking regex), is stopped at its time limit by terminating the worker, and the process (a batch's other
 * cases, `weft mcp`, the dashboard) goes on. Tool calls come back to this thread and run as in `runWorkflow`
 * (callTool: validation, timeout, retries); the time they take does not count against the case's limit.
 */
import { availableParallelism } from 'node:os';
import { WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import {
  DEFAULT_WORKER_MEMORY_MB,
  type IsolatePool,
  createIsolatePool,
  workerScript,
} from '../runtime/isolate-pool.js';
import { callTool } from '../tools/call-tool.js';
import type { ModuleToolOrigin, Tool } from '../tools/tool.js';
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

/**
 * Cases a batch keeps in flight for `jobs` worker threads (`weft exec --inputs` without `--concurrency`): each worker
 * holds two, and the rest wait with their start already recorded, so that the batch log can gather a millisecond
 * of records into one transaction while the workers keep busy.
 */
export function casesInFlight(jobs: number): number {
  return Math.max(16, 8 * jobs);
}

/** Pools by memory limit, size and lane: cases with other limits do not share workers. */
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
      // A case that only computes gets its worker's next case before it ends (see Kit.queues).
      depth: 2,
    });
    pools.set(key, pool);
  }
  return pool;
}

/** A tool list as the case workers know it: made once per list, not once per case. */
interface Kit {
  readonly id: number;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly names: readonly string[];
  /** The tools of a tools module: they run in the case's own worker, with no round trip to this thread per call. */
  readonly modules: readonly { readonly name: string; readonly origin: ModuleToolOrigin }[];
  /**
   * Its cases only compute (their tools, if any, run in their worker): a worker gets its next such case before it
   * ends this one, so it does not wait for this thread between cases. A case that calls tools on this thread (HTTP,
   * MCP) may wait long on them and would hold a case queued behind it meanwhile: it takes a worker alone.
   */
  readonly queues: boolean;
}

const NO_TOOLS: readonly Tool[] = [];
/** Workflows and tool lists a worker keeps at most. */
const MAX_HELD = 200;
const kits = new WeakMap<readonly Tool[], Kit>();
let nextKitId = 1;

function kitOf(list: readonly Tool[]): Kit {
  let kit = kits.get(list);
  if (!kit) {
    const tools = new Map(list.map((tool): [string, Tool] => [tool.name, tool]));
    const values = [...tools.values()];
    kit = {
      id: nextKitId++,
      tools,
      names: [...tools.keys()],
      modules: values.flatMap((tool) => (tool.module ? [{ name: tool.name, origin: tool.module }] : [])),
      queues: values.every((tool) => tool.module),
    };
    kits.set(list, kit);
  }
  return kit;
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
  const result = (await runInWorker(workflow, options, false)) as Omit<WorkflowRunResult, 'llmCalls'>;
  return { ...result, llmCalls: 0 };
}

/** A case's result as a batch keeps it: its tool calls counted, not listed. */
export interface IsolatedCaseResult {
  readonly output: unknown;
  readonly steps: number;
  readonly toolCalls: number;
}

/**
 * `runWorkflowIsolated` for a batch, which keeps only how many tools a case called: the calls' arguments and results
 * stay in the worker instead of being copied across threads for every case.
 */
export async function runCaseIsolated(
  workflow: ExecutableWorkflow,
  options: IsolatedRunOptions,
): Promise<IsolatedCaseResult> {
  return (await runInWorker(workflow, options, true)) as IsolatedCaseResult;
}

async function runInWorker(
  workflow: ExecutableWorkflow,
  options: IsolatedRunOptions,
  countCalls: boolean,
): Promise<unknown> {
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
  const kit = kitOf(options.tools ?? NO_TOOLS);
  const { tools } = kit;
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
  return poolFor(memoryMb, jobs, lane).run({
    timeLimitMs,
    queues: kit.queues,
    ...(signal ? { signal } : {}),
    body: (held) => {
      // The workflow and the tool list cross once per worker; a case sends their ids and its input. A long-lived
      // host (weft mcp) runs ever new workflows: past a bound, the worker is told to forget them all, and is sent
      // again what a case needs.
      const fresh = held.size >= MAX_HELD;
      if (fresh) held.clear();
      const firstWorkflow = !held.has(workflow);
      const firstKit = !held.has(kit);
      held.add(workflow);
      held.add(kit);
      return {
        id: workflowId,
        ...(firstWorkflow ? { workflow } : {}),
        kit: kit.id,
        ...(firstKit ? { tools: kit.names, ...(kit.modules.length > 0 ? { modules: kit.modules } : {}) } : {}),
        input: options.input,
        ...(options.maxVisits !== undefined ? { maxVisits: options.maxVisits } : {}),
        ...(countCalls ? { countCalls } : {}),
        ...(fresh ? { fresh } : {}),
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
  });
}
