/**
 * The coordinator's side of a distributed run: each subtask attempt becomes one BullMQ job, and its result comes
 * back through the queue.
 *
 * - The job id is `run:subtask:attempt`, so BullMQ's at-least-once redelivery and a repeated enqueue (e.g. after
 *   a coordinator restart) are the same job, and the result is recorded once per (run, subtask, attempt).
 * - Budgets are checked here before each dispatch; a job's own calls are not gated one by one (a job that starts
 *   with budget left runs to its end, and its calls are charged when its result arrives). The same holds for the
 *   tool-call budget (`--max-tool-calls`) of tool-using subtasks.
 * - Cancelling an attempt removes its job if it is still waiting, and otherwise marks it cancelled so a worker
 *   that picks it up returns at once; a job already running sees the mark within the worker's `watchMs` and
 *   stops, and its calls are not recorded.
 * - While any attempt of a run waits, the coordinator holds the run's live key (`liveKey`, renewed before it
 *   expires); a worker refuses a job whose run has none, so jobs left by a coordinator that was killed are not
 *   run for nobody. A resume re-adds such a job (its id is taken by the refused one, which is replaced).
 */
import { WeftError } from '../errors.js';
import type { AttemptRunner, AttemptRunnerContext, AttemptRunnerFactory } from '../run/attempt-runner.js';
import type { ChatResult } from '../llm/chat-model.js';
import { callKey } from '../runtime/metered-model.js';
import { activeTraceparent } from '../llm/telemetry.js';
import type { AttemptOutcome, SubtaskAttempt } from '../run/run-subtask.js';
import type { ToolEventRecord } from '../run/run-tools.js';
import {
  attemptJobId,
  cancelKey,
  DEFAULT_QUEUE_NAME,
  fromJobFailure,
  liveKey,
  type AttemptJobData,
  type AttemptJobResult,
} from './attempt-job.js';
import { loadQueueModules, type BullJob } from './load-queue.js';
import { checkRedis, displayRedisUrl, redisOptions } from './redis-url.js';

export interface QueueRunnerOptions {
  readonly redisUrl: string;
  /** Needed only by `runAttempt`; `attemptRunner` takes the run id from the run. */
  readonly runId?: string;
  readonly queueName?: string;
  /** Fail an attempt whose job has not finished after this long (default: wait as long as it takes). */
  readonly jobTimeoutMs?: number;
  /** Model spec sent with each job (default: the run's model). */
  readonly modelSpec?: string;
  /** The flag that gave the URL, for messages (default `--workers`). */
  readonly field?: string;
  /** How long a run's live key lasts without renewal (default 15 000 ms): a killed coordinator's jobs are refused after it. */
  readonly leaseMs?: number;
}

export interface QueueRunner {
  /** Runs one attempt on a worker; calls made there are not recorded anywhere (use `attemptRunner` in a run). */
  readonly runAttempt: AttemptRunner;
  /** For `runTask({ attemptRunner })`: checks the budget before each dispatch and records the worker's calls. */
  readonly attemptRunner: AttemptRunnerFactory;
  close(): Promise<void>;
}

/** Connects to Redis (a clear error within about 3 s when it cannot) and returns the runner. */
export async function createQueueRunner(options: QueueRunnerOptions): Promise<QueueRunner> {
  const field = options.field ?? '--workers';
  const leaseMs = options.leaseMs ?? 15_000;
  if (!(Number.isFinite(leaseMs) && leaseMs >= 10))
    throw new WeftError('BAD_INPUT', `Expected leaseMs >= 10, got ${leaseMs}`, { location: { field: 'leaseMs' } });
  const connection = redisOptions(options.redisUrl, field);
  await checkRedis(options.redisUrl, field);
  const { Queue, QueueEvents, Redis } = await loadQueueModules();
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  // Adding a job is not a blocking command: let it fail rather than wait forever when Redis goes away.
  const queue = new Queue<AttemptJobData, AttemptJobResult>(queueName, {
    connection: { ...connection, maxRetriesPerRequest: 3 },
  });
  const events = new QueueEvents(queueName, { connection });
  // Every attempt in flight waits with its own listeners on both: as many as the run's concurrency.
  queue.setMaxListeners(0);
  events.setMaxListeners(0);
  // Cancellation marks go through a plain client: BullMQ does not expose its own.
  const marks = new Redis({ ...connection, maxRetriesPerRequest: 3 });
  marks.on('error', () => {}); // BullMQ's connections report the same outage
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  const recorded = new Set<string>();
  /** Runs this coordinator waits for, with how many attempts each and the timer that renews its live key. */
  const leases = new Map<string, { attempts: number; timer: NodeJS.Timeout }>();
  const renew = (runId: string) => marks.set(liveKey(queueName, runId), String(process.pid), 'PX', leaseMs);
  const hold = async (runId: string): Promise<void> => {
    let lease = leases.get(runId);
    if (!lease) {
      lease = { attempts: 0, timer: setInterval(() => void renew(runId).catch(() => {}), Math.floor(leaseMs / 3)) };
      lease.timer.unref();
      leases.set(runId, lease);
    }
    lease.attempts += 1;
    // Set before the job is added, so a worker that takes it finds the run live.
    await renew(runId);
  };
  const release = (runId: string): void => {
    const lease = leases.get(runId);
    if (!lease || --lease.attempts > 0) return;
    clearInterval(lease.timer);
    leases.delete(runId);
    // Commands on one connection run in order: a later hold's SET lands after this DEL.
    void marks.del(liveKey(queueName, runId)).catch(() => {});
  };
  const replayIndexes = new WeakMap<ReadonlyMap<string, ChatResult>, Map<string, [string, ChatResult][]>>();
  /** The recorded replies of one attempt, indexed once per replay map (a resumed run may hold thousands). */
  const replayOf = (
    replay: ReadonlyMap<string, ChatResult> | undefined,
    id: string,
    attempt: number,
  ): [string, ChatResult][] => {
    if (!replay || replay.size === 0) return [];
    let index = replayIndexes.get(replay);
    if (!index) {
      index = new Map();
      for (const [key, result] of replay) {
        const [purpose, subtask, number] = JSON.parse(key) as [string, string | null, number | null, number];
        if (purpose !== 'execute' && purpose !== 'verify') continue;
        const slot = JSON.stringify([subtask, number]);
        index.set(slot, [...(index.get(slot) ?? []), [key, result]]);
      }
      replayIndexes.set(replay, index);
    }
    return index.get(JSON.stringify([id, attempt])) ?? [];
  };

  const run = async (attempt: SubtaskAttempt, context: AttemptRunnerContext | undefined): Promise<AttemptOutcome> => {
    const { signal } = attempt;
    if (signal.aborted) throw abortError(signal);
    context?.budget.admit();
    attempt.tools?.admitRemote?.();
    const runId = context?.runId ?? options.runId;
    if (runId === undefined)
      throw new WeftError('BAD_INPUT', 'createQueueRunner needs a runId to run attempts outside a run', {
        location: { field: 'runId' },
      });
    const jobId = attemptJobId(runId, attempt.id, attempt.attempt);
    const modelSpec = options.modelSpec ?? context?.modelId;
    const replay = replayOf(context?.replay, attempt.id, attempt.attempt);
    const traceparent = activeTraceparent();
    const data: AttemptJobData = {
      runId,
      task: attempt.task,
      id: attempt.id,
      objective: attempt.objective,
      role: attempt.role,
      parents: attempt.parents,
      attempt: attempt.attempt,
      ...(attempt.context ? { context: attempt.context } : {}),
      verify: attempt.verify,
      mask: attempt.mask,
      ...(attempt.tools?.job ? { tools: attempt.tools.job } : {}),
      ...(modelSpec !== undefined ? { modelSpec } : {}),
      ...(replay.length > 0 ? { replay } : {}),
      // Called inside the attempt's span: a tracing worker makes its calls' spans children of it.
      ...(traceparent !== undefined ? { traceparent } : {}),
    };
    try {
      await hold(runId);
      return await dispatch(context, jobId, data, signal, attempt.tools?.recordRemote);
    } finally {
      release(runId);
    }
  };

  /** Adds the attempt's job and waits for its result (the run's live key is held meanwhile). */
  const dispatch = async (
    context: AttemptRunnerContext | undefined,
    jobId: string,
    data: AttemptJobData,
    signal: AbortSignal,
    recordTools: ((events: readonly ToolEventRecord[]) => void) | undefined,
  ): Promise<AttemptOutcome> => {
    // A resumed run redoes a cancelled attempt under the same number, hence the same job id: clear the old mark.
    await marks.del(cancelKey(queueName, jobId));
    const add = () =>
      queue.add('attempt', data, {
        jobId,
        // Failures inside the subtask come back as results; BullMQ retries only a job whose worker died.
        attempts: 2,
        removeOnComplete: { age: 24 * 3600 },
        removeOnFail: { age: 24 * 3600 },
      });
    let job = await add();
    let result = await wait(job, jobId, signal);
    if (result.cancelled && !signal.aborted) {
      // The job id was taken by an attempt cancelled before a resume: replace that job.
      await job.remove();
      job = await add();
      result = await wait(job, jobId, signal);
    }
    // The executor asks once per attempt, but a result must never be charged twice whatever the caller does.
    if (recorded.has(jobId)) throw new WeftError('INTERNAL', `The result of job ${jobId} was already recorded`);
    recorded.add(jobId);
    for (const call of result.calls) {
      // A job that finished before the coordinator restarted may report calls the log already holds.
      if (context?.replay?.has(callKey(call.purpose, call.key, call.attempt, call.sequence))) continue;
      context?.recordCall(call);
    }
    if (result.toolEvents && result.toolEvents.length > 0) recordTools?.(result.toolEvents);
    if (result.cancelled) throw new WeftError('ABORTED', `Job ${jobId} was cancelled`);
    if (result.error) throw fromJobFailure(result.error);
    if (!result.outcome) throw new WeftError('INTERNAL', `Job ${jobId} finished without an outcome`);
    return result.outcome;
  };

  /** The job's result, or an ABORTED/TIMEOUT error after taking the job back (removed if waiting, else marked). */
  const wait = (
    job: BullJob<AttemptJobData, AttemptJobResult>,
    jobId: string,
    signal: AbortSignal,
  ): Promise<AttemptJobResult> =>
    finished(job.waitUntilFinished(events), signal, options.jobTimeoutMs, async () => {
      await marks.set(cancelKey(queueName, jobId), '1', 'EX', 24 * 3600);
      const state = await job.getState().catch(() => 'unknown');
      if (state === 'waiting' || state === 'delayed' || state === 'prioritized') await job.remove().catch(() => {});
    }).catch((error: unknown) => {
      if (error instanceof WeftError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new WeftError('PROVIDER', `Queue job ${jobId} failed on ${displayRedisUrl(options.redisUrl)}: ${message}`, {
        cause: error,
      });
    });

  return {
    runAttempt: (attempt) => run(attempt, undefined),
    attemptRunner: (context) => (attempt) => run(attempt, context),
    async close() {
      for (const [runId, lease] of leases) {
        clearInterval(lease.timer);
        await marks.del(liveKey(queueName, runId)).catch(() => {});
      }
      leases.clear();
      await Promise.allSettled([events.close(), queue.close(), marks.quit()]);
    },
  };
}

function abortError(signal: AbortSignal): WeftError {
  const reason: unknown = signal.reason;
  if (reason instanceof WeftError && reason.code === 'ABORTED') return reason;
  return new WeftError('ABORTED', reason instanceof Error ? reason.message : 'cancelled');
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts or `timeoutMs` passes (after running `withdraw`,
 * which takes the job back).
 */
function finished<T>(
  work: Promise<T>,
  signal: AbortSignal,
  timeoutMs: number | undefined,
  withdraw: () => Promise<void>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let gaveUp = false;
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
    };
    const giveUp = (error: WeftError) => {
      // From here a late result is ignored: the attempt is over for the executor, and its calls go unrecorded.
      gaveUp = true;
      done();
      withdraw()
        .catch(() => {})
        .finally(() => reject(error));
    };
    const abort = () => giveUp(abortError(signal));
    if (signal.aborted) {
      // Aborted while the job was being added: take it back at once (no abort event will come).
      work.catch(() => {});
      abort();
      return;
    }
    signal.addEventListener('abort', abort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(
        () => giveUp(new WeftError('TIMEOUT', `The queue job did not finish within ${timeoutMs} ms`)),
        timeoutMs,
      );
    }
    work.then(
      (value) => {
        if (gaveUp) return;
        done();
        resolve(value);
      },
      (error: unknown) => {
        if (gaveUp) return;
        done();
        reject(error);
      },
    );
  });
}
