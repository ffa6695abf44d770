/**
 * A worker's side of exec-case jobs (exec-case-job.ts): the workflow is read from Redis by its hash (the hash of
 * what was read is checked), validated once per hash, and run with `runCaseIsolated` on the case's input with this
 * worker's own tools. A case error is the job's result, never a job failure.
 */
import { createHash } from 'node:crypto';
import { WeftError } from '../errors.js';
import { parseExecutableWorkflow } from '../distill/read-workflow-file.js';
import { runCaseIsolated } from '../distill/run-workflow-isolated.js';
import type { ExecutableWorkflow } from '../distill/workflow.js';
import type { Tool } from '../tools/tool.js';
import { liveKey, toJobFailure } from './attempt-job.js';
import {
  type ExecCaseJobData,
  type ExecCaseJobResult,
  type ExecCaseOutcome,
  execCaseJournalKey,
  workflowKey,
} from './exec-case-job.js';
import { toolsForJob } from './job-tools.js';
import type { RedisClient } from './load-queue.js';

export interface ExecCaseContext {
  readonly redis: RedisClient;
  readonly queueName: string;
  readonly workerId: string;
  readonly tools: readonly Tool[] | undefined;
  readonly signal?: AbortSignal;
  /** The job's id: the key of its journal. */
  readonly jobId?: string;
}

const JOURNAL_TTL_MS = 24 * 3600 * 1000;

/** Workflows by hash, validated; a worker serves one batch's workflow for thousands of jobs. */
const workflows = new Map<string, Promise<ExecutableWorkflow>>();
const MAX_CACHED_WORKFLOWS = 100;

export async function runExecCaseJob(data: ExecCaseJobData, context: ExecCaseContext): Promise<ExecCaseJobResult> {
  const { redis, queueName, workerId } = context;
  // No coordinator waits for this batch (it ended, or was killed): its results would be recorded nowhere.
  if ((await redis.exists(liveKey(queueName, data.batchId))) === 0) return { cancelled: true, worker: workerId };
  let tools: Tool[];
  let workflow: ExecutableWorkflow;
  try {
    tools = data.tools.declarations.length > 0 ? toolsFor(data, context.tools) : [];
    workflow = await workflowFor(redis, queueName, data.workflowHash, tools);
  } catch (error) {
    return { error: failureOf(error), worker: workerId };
  }
  // A job retried after its worker died must not run a case twice: each case's index is journalled before it runs,
  // and one the journal shows started is reported interrupted. Workflows whose tools are all idempotent skip this.
  const journal =
    data.tools.declarations.every((tool) => tool.idempotent === true) || context.jobId === undefined
      ? undefined
      : execCaseJournalKey(queueName, context.jobId);
  const started = new Set(journal ? (await redis.lrange(journal, 0, -1)).map(Number) : []);
  const results: ExecCaseOutcome[] = [];
  let expiring = false;
  for (const [index, item] of data.cases.entries()) {
    if (started.has(index)) {
      results.push({ interrupted: true });
      continue;
    }
    if (journal) {
      await redis.rpush(journal, String(index));
      if (!expiring) await redis.pexpire(journal, JOURNAL_TTL_MS);
      expiring = true;
    }
    try {
      // In a worker thread with hard limits, as `weft exec` runs a case: a hostile one fails alone, and this process
      // keeps renewing its job locks meanwhile.
      const result = await runCaseIsolated(workflow, {
        tools,
        input: item.input,
        ...(data.maxVisits !== undefined ? { maxVisits: data.maxVisits } : {}),
        ...(context.signal ? { signal: context.signal } : {}),
      });
      results.push({
        output: result.output === undefined ? null : result.output,
        steps: result.steps,
        toolCalls: result.toolCalls,
      });
    } catch (error) {
      results.push({ error: failureOf(error) });
    }
  }
  return { results, worker: workerId };
}

function failureOf(error: unknown): NonNullable<ExecCaseJobResult['error']> {
  const field = error instanceof WeftError ? error.location?.field : undefined;
  return { ...toJobFailure(error), ...(field ? { field } : {}) };
}

function toolsFor(data: ExecCaseJobData, tools: readonly Tool[] | undefined): Tool[] {
  try {
    return toolsForJob(data.tools, tools);
  } catch (error) {
    if (!(error instanceof WeftError) || data.tools.path === undefined) throw error;
    throw new WeftError('BAD_INPUT', `${error.message} (the batch's tools file: ${data.tools.path})`, {
      location: { field: '--tools' },
    });
  }
}

function workflowFor(
  redis: RedisClient,
  queueName: string,
  hash: string,
  tools: readonly Tool[],
): Promise<ExecutableWorkflow> {
  let cached = workflows.get(hash);
  if (!cached) {
    cached = loadWorkflow(redis, queueName, hash, tools);
    if (workflows.size >= MAX_CACHED_WORKFLOWS) workflows.clear();
    workflows.set(hash, cached);
    cached.catch(() => workflows.delete(hash));
  }
  return cached;
}

async function loadWorkflow(
  redis: RedisClient,
  queueName: string,
  hash: string,
  tools: readonly Tool[],
): Promise<ExecutableWorkflow> {
  const text = await redis.get(workflowKey(queueName, hash));
  if (text === null) throw new WeftError('WORKFLOW', `the batch's workflow ${hash.slice(0, 12)}… is not in Redis`);
  const actual = createHash('sha256').update(text).digest('hex');
  if (actual !== hash)
    throw new WeftError(
      'WORKFLOW',
      `the workflow stored under ${hash.slice(0, 12)}… has another hash (${actual.slice(0, 12)}…)`,
    );
  const { workflow, problems } = await parseExecutableWorkflow(text, undefined, {
    toolNames: tools.map((tool) => tool.name),
  });
  if (!workflow) {
    const first = problems.find((problem) => problem.severity === 'error');
    throw new WeftError(
      'WORKFLOW',
      `the batch's workflow is not valid here: ${first?.path ?? ''} ${first?.message ?? ''}`,
    );
  }
  return workflow;
}
