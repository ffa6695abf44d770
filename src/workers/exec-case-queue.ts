/**
 * The coordinator's side of a batch on workers (`weft exec --inputs … --workers redis://…`): each case becomes an
 * exec-case job; results come back through one QueueEvents listener (not one per job: a batch keeps many in
 * flight). While the batch runs the coordinator holds its live key, so a worker refuses jobs left behind by a
 * coordinator that died (a resume reports those cases interrupted, as in process). Workers started before or
 * after the batch take its jobs alike: they all listen on the same queue.
 */
import { createHash } from 'node:crypto';
import { WeftError } from '../errors.js';
import type { CaseRun, CaseRunner } from '../distill/run-batch.js';
import type { ExecutableWorkflow } from '../distill/workflow.js';
import type { Tool } from '../tools/tool.js';
import { DEFAULT_QUEUE_NAME, liveKey } from './attempt-job.js';
import {
  EXEC_CASE_JOB,
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
}

export interface ExecCaseQueue {
  readonly runCase: CaseRunner;
  close(): Promise<void>;
}

/** How long the stored workflow document and finished jobs are kept. */
const KEEP_SECONDS = 24 * 3600;

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

  const pending = new Map<string, { resolve: (result: ExecCaseJobResult) => void; reject: (error: Error) => void }>();
  events.on('completed', ({ jobId, returnvalue }) => pending.get(jobId)?.resolve(returnvalue as ExecCaseJobResult));
  events.on('failed', ({ jobId, failedReason }) =>
    pending
      .get(jobId)
      ?.reject(
        new WeftError(
          'PROVIDER',
          `queue job ${jobId} failed on ${displayRedisUrl(options.redisUrl)}: ${failedReason ?? ''}`,
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

  const runCase: CaseRunner = async (item, attempt, signal): Promise<CaseRun> => {
    if (signal.aborted) throw new WeftError('ABORTED', 'the batch was stopped');
    const jobId = execCaseJobId(options.batchId, item.key, attempt);
    const data: ExecCaseJobData = {
      kind: EXEC_CASE_JOB,
      batchId: options.batchId,
      workflowHash,
      tools: { declarations, ...(options.toolsPath ? { path: options.toolsPath } : {}) },
      caseId: item.id,
      attempt,
      input: item.input,
      ...(options.maxVisits !== undefined ? { maxVisits: options.maxVisits } : {}),
    };
    const result = await new Promise<ExecCaseJobResult>((resolve, reject) => {
      const settle = () => {
        pending.delete(jobId);
        signal.removeEventListener('abort', abort);
      };
      const abort = () => {
        settle();
        // Taken back if no worker has it yet; one that has it finishes and its result is not recorded.
        void queue
          .getJob(jobId)
          .then(async (job) => {
            if (job && ['waiting', 'delayed', 'prioritized'].includes(await job.getState())) await job.remove();
          })
          .catch(() => {});
        reject(new WeftError('ABORTED', 'the batch was stopped'));
      };
      pending.set(jobId, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      signal.addEventListener('abort', abort, { once: true });
      queue
        .add(EXEC_CASE_JOB, data, {
          jobId,
          // A case error comes back as a result; BullMQ retries only a job whose worker died.
          attempts: 2,
          removeOnComplete: { age: KEEP_SECONDS, count: 10_000 },
          removeOnFail: { age: KEEP_SECONDS },
        })
        .catch((error: unknown) => {
          pending
            .get(jobId)
            ?.reject(
              new WeftError(
                'PROVIDER',
                `cannot add job ${jobId} on ${displayRedisUrl(options.redisUrl)}: ${(error as Error).message}`,
              ),
            );
        });
    });
    if (result.cancelled)
      throw new WeftError('ABORTED', `job ${jobId} was refused by worker ${result.worker}: the batch was not live`);
    if (result.error) {
      throw new WeftError(result.error.code, result.error.message, {
        retryable: result.error.retryable,
        ...(result.error.field ? { location: { field: result.error.field } } : {}),
      });
    }
    return { output: result.output, steps: result.steps ?? 0, toolCalls: result.toolCalls ?? 0 };
  };

  return {
    runCase,
    async close() {
      clearInterval(timer);
      for (const waiting of pending.values()) waiting.reject(new WeftError('ABORTED', 'the batch queue was closed'));
      await marks.del(liveKey(queueName, options.batchId)).catch(() => {});
      await Promise.allSettled([events.close(), queue.close(), marks.quit()]);
    },
  };
}
