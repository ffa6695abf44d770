/**
 * The coordinator's side of a batch on workers (`weft exec --inputs … --workers redis://…`): cases are gathered
 * into exec-case jobs of up to `chunkSize` (a case's start record is already in the batch log when it joins a
 * chunk); results come back through one QueueEvents listener (not one per job: a batch keeps many in flight). While the batch runs the coordinator holds its live key, so a worker refuses jobs left behind by a
 * coordinator that died (a resume reports those cases interrupted, as in process). Workers started before or
 * after the batch take its jobs alike: they all listen on the same queue.
 */
import { createHash, randomUUID } from 'node:crypto';
import { WeftError } from '../errors.js';
import { CaseInterrupted, type CaseRun, type CaseRunner } from '../distill/run-batch.js';
import type { ExecutableWorkflow } from '../distill/workflow.js';
import type { Tool } from '../tools/tool.js';
import { DEFAULT_QUEUE_NAME, liveKey } from './attempt-job.js';
import {
  EXEC_CASE_JOB,
  type ExecCase,
  type ExecCaseJobData,
  type ExecCaseJobResult,
  execCaseJobId,
  workflowKey,
} from './exec-case-job.js';
import { loadQueueModules } from './load-queue.js';
import { checkRedis, displayRedisUrl, redisOptions } from './redis-url.js';

export interface ExecCaseQueueOptions {
  readonly redisUrl: string;
  readonly batchId: string;
  readonly workflow: ExecutableWorkflow;
  /** The batch's tools: the declarations of those the workflow calls travel with each job. */
  readonly tools: readonly Tool[];
  readonly toolsPath?: string;
  readonly maxVisits?: number;
  readonly queueName?: string;
  /** How long the batch's live key lasts without renewal (default 15 000 ms). */
  readonly leaseMs?: number;
  readonly field?: string;
  /** Cases per job (default 25): a queue round trip costs more than a typical case. */
  readonly chunkSize?: number;
  /** How long a partly filled chunk waits for more cases before it is sent (default 5 ms). */
  readonly lingerMs?: number;
}

export interface ExecCaseQueue {
  readonly runCase: CaseRunner;
  close(): Promise<void>;
}

/** How long the stored workflow document and finished jobs are kept. */
const KEEP_SECONDS = 24 * 3600;
const DEFAULT_CHUNK_SIZE = 25;
const DEFAULT_LINGER_MS = 5;

/** A case waiting for its job: `settle` with the job's result and the case's index in it. */
interface Waiter {
  sent?: { readonly jobId: string; readonly index: number };
  settle(result: ExecCaseJobResult, index: number): void;
  fail(error: Error): void;
}

export async function createExecCaseQueue(options: ExecCaseQueueOptions): Promise<ExecCaseQueue> {
  const field = options.field ?? '--workers';
  const leaseMs = options.leaseMs ?? 15_000;
  const connection = redisOptions(options.redisUrl, field);
  await checkRedis(options.redisUrl, field);
  const { Queue, QueueEvents, Redis } = await loadQueueModules();
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const queue = new Queue<ExecCaseJobData, ExecCaseJobResult>(queueName, {
    connection: { ...connection, maxRetriesPerRequest: 3 },
  });
  const events = new QueueEvents(queueName, { connection });
  const marks = new Redis({ ...connection, maxRetriesPerRequest: 3 });
  marks.on('error', () => {}); // BullMQ's connections report the same outage
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);

  /** Jobs in flight, with the waiting case of each slot (undefined once that case gave up: its result is dropped). */
  const inFlight = new Map<string, (Waiter | undefined)[]>();
  const settleJob = (jobId: string, settle: (waiter: Waiter, index: number) => void) => {
    const waiters = inFlight.get(jobId);
    if (!waiters) return;
    inFlight.delete(jobId);
    waiters.forEach((waiter, index) => {
      if (waiter) settle(waiter, index);
    });
  };
  events.on('completed', ({ jobId, returnvalue }) =>
    settleJob(jobId, (waiter, index) => waiter.settle(returnvalue as ExecCaseJobResult, index)),
  );
  events.on('failed', ({ jobId, failedReason }) =>
    settleJob(jobId, (waiter) =>
      waiter.fail(
        new WeftError(
          'PROVIDER',
          `queue job ${jobId} failed on ${displayRedisUrl(options.redisUrl)}: ${failedReason ?? ''}`,
        ),
      ),
    ),
  );

  const text = JSON.stringify(options.workflow);
  const workflowHash = createHash('sha256').update(text).digest('hex');
  const used = new Set(options.workflow.nodes.flatMap((node) => (node.kind === 'tool' ? [node.tool] : [])));
  const declarations = options.tools
    .filter((tool) => used.has(tool.name))
    .map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as Record<string, unknown>,
      ...(tool.idempotent !== undefined ? { idempotent: tool.idempotent } : {}),
    }));
  const renew = async () => {
    await marks.set(liveKey(queueName, options.batchId), String(process.pid), 'PX', leaseMs);
    await marks.set(workflowKey(queueName, workflowHash), text, 'EX', KEEP_SECONDS);
  };
  // Before any job is added, so a worker that takes one finds the batch live and its workflow.
  await renew();
  const timer = setInterval(() => void renew().catch(() => {}), Math.floor(leaseMs / 3));
  timer.unref();

  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const lingerMs = options.lingerMs ?? DEFAULT_LINGER_MS;
  /** Cases waiting for their chunk to be sent. */
  let gathering: { item: ExecCase; waiter: Waiter }[] = [];
  let lingerTimer: NodeJS.Timeout | undefined;
  const send = () => {
    if (lingerTimer) clearTimeout(lingerTimer);
    lingerTimer = undefined;
    const batch = gathering;
    gathering = [];
    if (batch.length === 0) return;
    const jobId = execCaseJobId(options.batchId, `${process.pid}-${randomUUID()}`);
    inFlight.set(
      jobId,
      batch.map((entry) => entry.waiter),
    );
    for (const [index, entry] of batch.entries()) entry.waiter.sent = { jobId, index };
    const data: ExecCaseJobData = {
      kind: EXEC_CASE_JOB,
      batchId: options.batchId,
      workflowHash,
      tools: { declarations, ...(options.toolsPath ? { path: options.toolsPath } : {}) },
      cases: batch.map((entry) => entry.item),
      ...(options.maxVisits !== undefined ? { maxVisits: options.maxVisits } : {}),
    };
    queue
      .add(EXEC_CASE_JOB, data, {
        jobId,
        // A case error comes back as a result; BullMQ retries only a job whose worker died.
        attempts: 2,
        removeOnComplete: { age: KEEP_SECONDS, count: 1000 },
        removeOnFail: { age: KEEP_SECONDS },
      })
      .catch((error: unknown) =>
        settleJob(jobId, (waiter) =>
          waiter.fail(
            new WeftError(
              'PROVIDER',
              `cannot add job ${jobId} on ${displayRedisUrl(options.redisUrl)}: ${(error as Error).message}`,
            ),
          ),
        ),
      );
  };

  const runCase: CaseRunner = (item, attempt, signal): Promise<CaseRun> => {
    if (signal.aborted) return Promise.reject(new WeftError('ABORTED', 'the batch was stopped'));
    return new Promise<CaseRun>((resolve, reject) => {
      const waiter: Waiter = {
        settle: (result, index) => {
          done();
          if (result.cancelled) {
            reject(new WeftError('ABORTED', `worker ${result.worker} refused the job: the batch was not live`));
            return;
          }
          const failure =
            result.error ??
            (result.results?.[index] && 'error' in result.results[index] ? result.results[index].error : undefined);
          if (failure) {
            reject(
              new WeftError(failure.code, failure.message, {
                retryable: failure.retryable,
                ...(failure.field ? { location: { field: failure.field } } : {}),
              }),
            );
            return;
          }
          const outcome = result.results?.[index];
          if (outcome && 'interrupted' in outcome) {
            reject(
              new CaseInterrupted(
                'interrupted: the worker running it stopped; not run again (it may have called tools)',
              ),
            );
            return;
          }
          if (!outcome || !('output' in outcome)) {
            reject(
              new WeftError('INTERNAL', `job ${waiter.sent?.jobId} returned no result for case ${String(item.id)}`),
            );
            return;
          }
          resolve({ output: outcome.output, steps: outcome.steps, toolCalls: outcome.toolCalls });
        },
        fail: (error) => {
          done();
          reject(error);
        },
      };
      const abort = () => {
        // Still gathering: leave the chunk. Sent: the worker runs it anyway and its result is not recorded.
        gathering = gathering.filter((entry) => entry.waiter !== waiter);
        if (waiter.sent) {
          const waiters = inFlight.get(waiter.sent.jobId);
          if (waiters) waiters[waiter.sent.index] = undefined;
        }
        waiter.fail(new WeftError('ABORTED', 'the batch was stopped'));
      };
      const done = () => signal.removeEventListener('abort', abort);
      signal.addEventListener('abort', abort, { once: true });
      gathering.push({ item: { id: item.id, attempt, input: item.input }, waiter });
      if (gathering.length >= chunkSize) send();
      else lingerTimer ??= setTimeout(send, lingerMs);
    });
  };

  return {
    runCase,
    async close() {
      clearInterval(timer);
      if (lingerTimer) clearTimeout(lingerTimer);
      const closed = new WeftError('ABORTED', 'the batch queue was closed');
      for (const { waiter } of gathering) waiter.fail(closed);
      gathering = [];
      for (const jobId of [...inFlight.keys()]) settleJob(jobId, (waiter) => waiter.fail(closed));
      await marks.del(liveKey(queueName, options.batchId)).catch(() => {});
      await Promise.allSettled([events.close(), queue.close(), marks.quit()]);
    },
  };
}
