/**
 * The worker's side of a distributed run: a BullMQ Worker that runs each attempt with `runSubtask` and returns
 * its outcome and every model call it made. A subtask failure is a result, not a job failure; BullMQ retries
 * only jobs whose worker died (stalled-job recovery: the lock lapses after `lockDurationMs`, and the stalled
 * check every `stalledIntervalMs` hands the job to another worker).
 */
import { hostname } from 'node:os';
import { WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import type { ChatModel } from '../llm/chat-model.js';
import { createModel } from '../llm/resolve-model.js';
import { anySignal } from '../llm/timeout.js';
import { withTraceparent } from '../llm/telemetry.js';
import { tracedModel } from '../llm/traced-model.js';
import { subtaskOfCall } from '../run/subtask-of-call.js';
import type { RemoteCall } from '../runtime/metered-model.js';
import { runSubtask } from '../run/run-subtask.js';
import {
  cancelKey,
  DEFAULT_QUEUE_NAME,
  journalKey,
  liveKey,
  toJobFailure,
  type AttemptJobData,
  type AttemptJobResult,
} from './attempt-job.js';
import { loadQueueModules, type BullJob } from './load-queue.js';
import { recordingModel } from './recording-model.js';
import { bindSimulatedTools } from '../tools/simulated-api.js';
import type { Tool } from '../tools/tool.js';
import { type ToolEventRecord, toolArgsRedactor } from '../run/run-tools.js';
import { journalReplies, openJournal, toolsForJob, workerAttemptTools } from './job-tools.js';
import { checkRedis, redisOptions } from './redis-url.js';
import { isExecCaseJob } from './exec-case-job.js';
import { runExecCaseJob } from './exec-case-worker.js';

export type WorkerEvent =
  | { readonly type: 'worker-ready'; readonly worker: string; readonly queue: string; readonly concurrency: number }
  | { readonly type: 'job-start'; readonly jobId: string; readonly taskId: string; readonly attempt: number }
  | {
      readonly type: 'job-end';
      readonly jobId: string;
      readonly taskId: string;
      readonly attempt: number;
      readonly status: 'completed' | 'blocked' | 'failed' | 'cancelled';
      readonly durationMs: number;
      readonly calls: number;
      readonly error?: string;
    }
  | { readonly type: 'worker-error'; readonly message: string }
  | { readonly type: 'worker-stop'; readonly jobs: number };

export interface RunWorkerOptions {
  readonly redisUrl: string;
  /** Jobs at once (default 1). */
  readonly concurrency?: number;
  /** Used for jobs that name no model spec. */
  readonly modelSpec?: string;
  readonly queueName?: string;
  /** Stops the worker: it takes no new job and returns once its running jobs finish. */
  readonly signal?: AbortSignal;
  /** How long a job's lock lasts without renewal (default 30 000 ms); a killed worker's job is free after it. */
  readonly lockDurationMs?: number;
  /** How often stalled jobs are looked for (default 30 000 ms). */
  readonly stalledIntervalMs?: number;
  /** Builds the model for a spec (default `createModel`); called once per spec. */
  readonly createModel?: (spec: string) => Promise<ChatModel>;
  readonly onEvent?: (event: WorkerEvent) => void;
  /** Names this worker in results and events (default `host:pid`). */
  readonly id?: string;
  /**
   * How often a running job checks that it is still wanted (default 1000 ms): a job whose attempt was cancelled
   * (Ctrl-C, SIGTERM, the run's deadline) or whose run is no longer live is aborted, so its calls stop.
   */
  readonly watchMs?: number;
  /**
   * The tools of tool-using subtasks (`weft worker --tools FILE`: the run's tools file, secrets from this worker's
   * environment). A job whose tools this worker lacks, or declares differently, fails with a clear error.
   */
  readonly tools?: readonly Tool[];
}

export interface RunWorkerResult {
  readonly jobs: number;
}

export async function runWorker(options: RunWorkerOptions): Promise<RunWorkerResult> {
  const concurrency = options.concurrency ?? 1;
  integerOption(concurrency, '--concurrency', { min: 1 });
  const lockDuration = positive(options.lockDurationMs ?? 30_000, 'lockDurationMs');
  const stalledInterval = positive(options.stalledIntervalMs ?? 30_000, 'stalledIntervalMs');
  const watchMs = positive(options.watchMs ?? 1000, 'watchMs');
  const connection = redisOptions(options.redisUrl, '--redis');
  await checkRedis(options.redisUrl, '--redis');
  const { Worker, Redis } = await loadQueueModules();
  // Reads cancellation marks: BullMQ does not expose its own client.
  const marks = new Redis({ ...connection, maxRetriesPerRequest: 3 });
  marks.on('error', () => {}); // the Worker's 'error' event reports the same outage
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const workerId = options.id ?? `${hostname()}:${process.pid}`;
  const emit = options.onEvent ?? (() => {});
  const build = options.createModel ?? ((spec: string) => createModel(spec));
  const models = new Map<string, Promise<ChatModel>>();
  const modelFor = (spec: string) => {
    let model = models.get(spec);
    if (!model) {
      model = build(spec);
      models.set(spec, model);
      model.catch(() => models.delete(spec));
    }
    return model;
  };
  let jobs = 0;
  /** Why a job should not run (on): its attempt was cancelled, or no coordinator waits for its run. */
  const whyUnwanted = async (jobId: string, runId: string): Promise<string | undefined> => {
    if ((await marks.get(cancelKey(queueName, jobId))) !== null) return `job ${jobId} was cancelled`;
    if ((await marks.exists(liveKey(queueName, runId))) === 0)
      return `run ${runId} is no longer live: no coordinator waits for it`;
    return undefined;
  };

  const worker = new Worker<AttemptJobData, AttemptJobResult>(
    queueName,
    async (
      job: BullJob<AttemptJobData, AttemptJobResult>,
      _token?: string,
      jobSignal?: AbortSignal,
    ): Promise<AttemptJobResult> => {
      const jobId = job.id ?? '?';
      const started = performance.now();
      // A case of a `weft exec --inputs` batch: no model, the workflow runs here.
      if (isExecCaseJob(job.data)) {
        const data = job.data;
        const first = data.cases[0];
        const taskId = `${data.cases.length} case(s) from ${String(first?.id)}`;
        emit({ type: 'job-start', jobId, taskId, attempt: first?.attempt ?? 1 });
        const result = await runExecCaseJob(data, {
          redis: marks,
          queueName,
          workerId,
          tools: options.tools,
          jobId,
          ...(jobSignal ? { signal: jobSignal } : {}),
        });
        if (!result.cancelled) jobs += 1;
        emit({
          type: 'job-end',
          jobId,
          taskId,
          attempt: first?.attempt ?? 1,
          status: result.cancelled ? 'cancelled' : result.error ? 'failed' : 'completed',
          durationMs: Math.round(performance.now() - started),
          calls: 0,
          ...(result.error ? { error: result.error.message } : {}),
        });
        return result as unknown as AttemptJobResult;
      }
      const data = job.data;
      const end = (
        status: Extract<WorkerEvent, { type: 'job-end' }>['status'],
        calls: readonly RemoteCall[],
        error?: string,
      ) =>
        emit({
          type: 'job-end',
          jobId,
          taskId: data.id,
          attempt: data.attempt,
          status,
          durationMs: Math.round(performance.now() - started),
          calls: calls.length,
          ...(error !== undefined ? { error } : {}),
        });
      // A cancelled attempt, or a run no coordinator waits for (it ended, or was killed before it could withdraw its
      // jobs): running the job would spend calls nobody records. A resume replaces the refused job with a new one.
      const refused = await whyUnwanted(jobId, data.runId);
      if (refused !== undefined) {
        end('cancelled', [], refused);
        return { cancelled: true, calls: [], worker: workerId };
      }
      jobs += 1;
      emit({ type: 'job-start', jobId, taskId: data.id, attempt: data.attempt });
      const calls: RemoteCall[] = [];
      const toolEvents: ToolEventRecord[] = [];
      const unwanted = new AbortController();
      const watch = setInterval(() => {
        void whyUnwanted(jobId, data.runId).then(
          (reason) => {
            if (reason !== undefined) unwanted.abort(new WeftError('ABORTED', reason));
          },
          () => {},
        );
      }, watchMs);
      const signal = anySignal(jobSignal, unwanted.signal);
      try {
        const spec = data.modelSpec ?? options.modelSpec;
        if (spec === undefined)
          throw new WeftError('MODEL_CONFIG', 'The job names no model and the worker was started without --model');
        // A tool-using job journals its calls in Redis: one run again after its worker died replays them.
        const tools = data.tools ? toolsForJob(data.tools, options.tools) : undefined;
        const journal = data.tools ? await openJournal(marks, journalKey(queueName, jobId)) : undefined;
        calls.push(...(journal?.calls ?? []));
        const replay = new Map([...(data.replay ?? []), ...journalReplies(journal?.calls ?? [])]);
        // With tracing on, a `chat` span per call made here (not per replayed one), in the coordinator's trace.
        // A subtask's execute and verify calls name it, as a run's calls do.
        const traced = tracedModel(await modelFor(spec), {
          taskOf: subtaskOfCall,
          ...(tools ? { redactToolArgs: toolArgsRedactor(tools) } : {}),
        });
        const model = recordingModel(traced, calls, replay, {
          ...(tools ? { redactToolArgs: toolArgsRedactor(tools) } : {}),
          ...(journal ? { onCall: (call: RemoteCall) => journal.append({ call }) } : {}),
        });
        // A `kind: simulated` tool is answered by the job's model, as it is in the coordinator's process.
        const answered = tools ? bindSimulatedTools(tools, { model }) : undefined;
        const outcome = await withTraceparent(data.traceparent, () =>
          runSubtask({
            task: data.task,
            id: data.id,
            objective: data.objective,
            role: data.role,
            parents: data.parents,
            attempt: data.attempt,
            ...(data.context ? { context: data.context } : {}),
            verify: data.verify,
            mask: data.mask,
            model,
            signal,
            ...(data.tools && tools && journal
              ? {
                  tools: workerAttemptTools({
                    taskId: data.id,
                    attempt: data.attempt,
                    job: data.tools,
                    tools: answered ?? tools,
                    journal,
                    events: toolEvents,
                    scope: `run:${data.runId}`,
                  }),
                }
              : {}),
          }),
        );
        end(outcome.kind === 'blocked' ? 'blocked' : 'completed', calls);
        return { outcome, calls, toolEvents, worker: workerId };
      } catch (error) {
        if (unwanted.signal.aborted) {
          // Nobody waits for the result any more: say so, like a job cancelled before it started.
          end('cancelled', calls, (unwanted.signal.reason as Error).message);
          return { cancelled: true, calls, toolEvents, worker: workerId };
        }
        const failure = toJobFailure(error);
        end('failed', calls, failure.message);
        return { error: failure, calls, toolEvents, worker: workerId };
      } finally {
        clearInterval(watch);
      }
    },
    { connection, concurrency, lockDuration, stalledInterval, maxStalledCount: 2, autorun: true },
  );
  worker.on('error', (error) =>
    emit({ type: 'worker-error', message: error instanceof Error ? error.message : String(error) }),
  );
  await worker.waitUntilReady();
  emit({ type: 'worker-ready', worker: workerId, queue: queueName, concurrency });
  await new Promise<void>((resolve) => {
    if (!options.signal) return; // runs until the process ends
    if (options.signal.aborted) resolve();
    else options.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  // Graceful: running jobs finish and are reported; no new job is taken.
  await worker.close();
  await marks.quit().catch(() => {});
  emit({ type: 'worker-stop', jobs });
  return { jobs };
}

function positive(value: number, field: string): number {
  if (!(Number.isFinite(value) && value > 0))
    throw new WeftError('BAD_INPUT', `Expected ${field} > 0, got ${value}`, { location: { field } });
  return value;
}
