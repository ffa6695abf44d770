/**
 * A pool of worker threads for code Weft does not trust to stop by itself: a model's JSONata, a tools module's
 * `execute`. Work in a worker can be stopped whatever it does: a task over its time limit, or a worker over its
 * memory limit, ends with its worker terminated (and replaced when next needed), and this thread, its timers and
 * its other tasks never stall. Node's worker_threads directly, not a pool package: a task here talks back (a tool
 * call made on this thread) while it runs, its time limit pauses meanwhile, and a timed-out worker is terminated at
 * once; each is a few lines here and a fight with a generic pool's task model.
 *
 * A task's time limit counts the time its worker computes, not the time it waits on this thread for a request it
 * made (a tool call, which has its own timeout). Where the worker was when it was stopped comes from a small shared
 * buffer the worker writes before each step (`setWhere`), readable while the worker is stuck.
 */
import { availableParallelism } from 'node:os';
import { SHARE_ENV, Worker, type WorkerOptions } from 'node:worker_threads';
import { WeftError, type WeftErrorCode } from '../errors.js';
import { readWhere, WHERE_BYTES } from './where-buffer.js';

/** A worker's heap limit when none is given (resourceLimits.maxOldGenerationSizeMb). */
export const DEFAULT_WORKER_MEMORY_MB = 256;
/**
 * How long a cancelled task's worker may take to settle after its signal aborted (a tool closing what it opened)
 * before it is terminated.
 */
export const ABORT_GRACE_MS = 1_000;
/**
 * The shared clock of a worker's pauses (isolate-worker.ts `pause`: work in the worker whose time is not the task's,
 * such as a tools module's call, with a limit of its own), and of the task it runs, as Float64 slots. Written by the
 * worker without a message; read here when the task's timer fires.
 */
const CLOCK_SLOTS = 5;
/** The clock's slot holding the milliseconds of the running task's finished pauses. */
export const CLOCK_PAUSED = 0;
/** The clock's slot holding when the pause in progress began (absolute milliseconds; 0 when none). */
export const CLOCK_PAUSE_BEGAN = 1;
/** The clock's slot holding the limit of the pause in progress. */
export const CLOCK_PAUSE_LIMIT = 2;
/** The clock's slot holding the id of the last task the worker started. */
export const CLOCK_TASK = 3;
/** The clock's slot that is 1 while that task runs, 0 once it ended. */
export const CLOCK_BUSY = 4;

/** An error as it crosses between threads. */
export interface ErrorMessage {
  readonly code: WeftErrorCode;
  readonly message: string;
  readonly field?: string;
  readonly file?: string;
  readonly retryable?: boolean;
}

/** Messages from this thread to a worker. */
export type ToWorker =
  | { readonly t: 'task'; readonly id: number; readonly body: unknown }
  | { readonly t: 'abort'; readonly id: number }
  | {
      readonly t: 'reply';
      readonly n: number;
      readonly ok: boolean;
      readonly value?: unknown;
      readonly error?: ErrorMessage;
    };

/** Messages from a worker to this thread. */
export type FromWorker =
  | { readonly t: 'ready' }
  /** What code in the worker printed, sent on the task's own channel so that it arrives before the task's answer. */
  | { readonly t: 'out'; readonly fd: 1 | 2; readonly text: string }
  | { readonly t: 'call'; readonly id: number; readonly n: number; readonly body: unknown }
  | {
      readonly t: 'done';
      readonly id: number;
      readonly ok: boolean;
      readonly value?: unknown;
      readonly error?: ErrorMessage;
    };

export function errorMessageOf(error: unknown): ErrorMessage {
  if (error instanceof WeftError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.location?.field !== undefined ? { field: error.location.field } : {}),
      ...(error.location?.file !== undefined ? { file: error.location.file } : {}),
      retryable: error.retryable,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  const retryable =
    typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
  return { code: 'INTERNAL', message, ...(retryable ? { retryable } : {}) };
}

export function errorOfMessage(message: ErrorMessage): WeftError {
  const location =
    message.field !== undefined || message.file !== undefined
      ? {
          ...(message.file !== undefined ? { file: message.file } : {}),
          ...(message.field !== undefined ? { field: message.field } : {}),
        }
      : undefined;
  return new WeftError(message.code, message.message, {
    ...(message.retryable !== undefined ? { retryable: message.retryable } : {}),
    ...(location ? { location } : {}),
  });
}

export interface IsolateTaskOptions {
  /**
   * The task's message, made knowing what this worker already holds (`held`, kept per worker: a task may send a
   * large value once per worker instead of once per task, and note in `held` that it did).
   */
  readonly body: (held: Set<unknown>) => unknown;
  /** Milliseconds the worker may compute for this task (time waiting on `onRequest` not counted). */
  readonly timeLimitMs: number;
  /** Answers a request the worker makes while the task runs (a tool call). */
  readonly onRequest?: (body: unknown) => Promise<unknown>;
  readonly signal?: AbortSignal;
  /** The error of a task stopped at its time limit; `where` is what the worker last wrote with setWhere. */
  readonly overTime: (where: string | undefined) => WeftError;
  /** The error of a task stopped because a pause (a tool call in the worker) outlived its own limit. */
  readonly pauseOverTime?: (where: string | undefined, limitMs: number) => WeftError;
  /** The error of a task whose worker ran out of memory (or died otherwise). */
  readonly crashed: (where: string | undefined, reason: string) => WeftError;
  /** It only computes: it may wait in a worker behind another such task, and one may wait behind it (`depth`). */
  readonly queues?: boolean;
  /**
   * The error of a task whose signal aborted, given where it was (undefined: ABORTED, the signal's reason when that
   * is one): a caller's deadline can then name the step it stopped.
   */
  readonly aborted?: (where: string | undefined) => WeftError | undefined;
}

export interface IsolatePool {
  run(options: IsolateTaskOptions): Promise<unknown>;
  /** Workers running now (for tests and diagnostics). */
  readonly size: () => number;
  close(): Promise<void>;
}

export interface IsolatePoolOptions {
  /** The worker's module: a .js file, or a .ts one (run through tsx's loader, as in the sources and tests). */
  readonly script: URL;
  /** Workers at most (default: the cores, at least 2, at most 8). */
  readonly maxWorkers?: number;
  /** Each worker's heap limit in MB (default DEFAULT_WORKER_MEMORY_MB). */
  readonly memoryMb?: number;
  /**
   * Tasks handed to one worker at a time (default 1). With 2, a worker has its next task before it ends the one it
   * runs, so it does not sit idle while this thread (busy with other work) reads its answer: for many short tasks
   * that compute (workflow cases). A task still runs alone in its worker. Only tasks that say `queues` are sent
   * ahead, and only behind such tasks: one that waits long on a request (a tool's I/O) would hold the one queued
   * behind it.
   */
  readonly depth?: number;
}

interface Slot {
  readonly worker: Worker;
  readonly where: SharedArrayBuffer;
  readonly clock: Float64Array;
  readonly held: Set<unknown>;
  /** Tasks sent to this worker, oldest first; the worker runs them in this order, one at a time. */
  readonly sent: Running[];
  dead: boolean;
  /** Loaded and serving: a task's time starts only then, not during the worker's start-up. */
  ready: boolean;
}

interface Running {
  readonly id: number;
  readonly options: IsolateTaskOptions;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  /** Puts the task on a worker; false when it ended before (a cancel). */
  readonly send: (slot: Slot) => boolean;
  remaining: number;
  startedAt: number;
  /** Its time runs: the oldest task sent to its worker. */
  timed: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
  waiting: number;
  /** Milliseconds of the worker's pauses already given back to the task's time. */
  credited: number;
  settled: boolean;
  onAbort?: () => void;
  /** After a cancel: terminates the worker unless the task settles first. */
  grace?: ReturnType<typeof setTimeout>;
}

/** The caller's abort as ABORTED (its own reason when that is one). */
function abortedError(signal: AbortSignal | undefined): WeftError {
  const reason: unknown = signal?.reason;
  if (reason instanceof WeftError && reason.code === 'ABORTED') return reason;
  return new WeftError('ABORTED', 'the run was cancelled', { cause: reason });
}
/** setTimeout's longest delay; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function createIsolatePool(options: IsolatePoolOptions): IsolatePool {
  const maxWorkers = options.maxWorkers ?? Math.min(8, Math.max(2, availableParallelism()));
  const memoryMb = options.memoryMb ?? DEFAULT_WORKER_MEMORY_MB;
  const depth = options.depth ?? 1;
  const slots = new Set<Slot>();
  const queue: Running[] = [];
  let nextId = 1;
  let closed = false;

  const spawn = (): Slot => {
    const shared = new SharedArrayBuffer(WHERE_BYTES);
    const clock = new SharedArrayBuffer(CLOCK_SLOTS * Float64Array.BYTES_PER_ELEMENT);
    const worker = newWorker(options.script, { where: shared, clock }, memoryMb);
    const slot: Slot = {
      worker,
      where: shared,
      clock: new Float64Array(clock),
      held: new Set(),
      sent: [],
      dead: false,
      ready: false,
    };
    slots.add(slot);
    worker.on('message', (message: FromWorker) => onMessage(slot, message));
    let failure: Error | undefined;
    worker.on('error', (error) => {
      failure = error;
    });
    worker.on('exit', (code) => {
      const wasDead = slot.dead;
      if (!slot.ready && !wasDead) {
        // A worker that cannot even start fails the task that waits longest, rather than being started again forever.
        const first = queue.shift();
        if (first)
          settle(
            first,
            false,
            first.options.crashed(
              undefined,
              `its worker thread did not start (exit code ${code}${failure ? `: ${failure.message}` : ''})`,
            ),
          );
      }
      if (!wasDead) {
        const outOfMemory = (failure as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
        const reason = outOfMemory
          ? `it ran out of its ${memoryMb} MB of memory`
          : `its worker thread stopped (exit code ${code}${failure ? `: ${failure.message}` : ''})`;
        retire(slot, (running) => running.options.crashed(readWhere(slot.where), reason));
      }
      drain();
    });
    return slot;
  };

  /**
   * Takes a worker out of the pool. Of the tasks sent to it, the one it was running (its id in the shared clock)
   * ends with `failRunning`'s error; any it had not started go back to the front of the queue (they never ran, so
   * running them elsewhere runs them once); any it had finished without their answer arriving fail as it did.
   */
  const retire = (slot: Slot, failRunning: (running: Running) => WeftError): void => {
    slot.dead = true;
    slots.delete(slot);
    // The last task the worker started: those sent before it ended (their answers lost with the worker), it ran or
    // ended, those after it never began.
    const started = slot.sent.findIndex((each) => each.id === slot.clock[CLOCK_TASK]);
    const unstarted: Running[] = [];
    slot.sent.forEach((running, index) => {
      clearTimeout(running.timer);
      clearTimeout(running.grace);
      running.timed = false;
      if (running.settled) return;
      if (index > started) unstarted.push(running);
      else settle(running, false, failRunning(running));
    });
    slot.sent.length = 0;
    queue.unshift(...unstarted);
  };

  const kill = (slot: Slot, failRunning: (running: Running) => WeftError): void => {
    if (slot.dead) return;
    retire(slot, failRunning);
    void slot.worker.terminate();
    // Replaced at once, not when the next task comes: a worker takes a while to start (JSONata, ajv), and the case
    // after a stopped one should not wait for that.
    if (!closed && slots.size < maxWorkers) spawn();
  };

  const pause = (running: Running): void => {
    clearTimeout(running.timer);
    running.timer = undefined;
    running.remaining -= performance.now() - running.startedAt;
  };

  const resume = (slot: Slot, running: Running): void => {
    running.startedAt = performance.now();
    // No limit at all (Infinity): the caller's signal is the only stop.
    if (!Number.isFinite(running.remaining)) return;
    running.timer = setTimeout(() => expire(slot, running), Math.min(MAX_TIMER_MS, Math.max(0, running.remaining)));
  };

  /** The oldest task sent to a worker is the one it runs: its time starts (it may have started a moment ago). */
  const timeHead = (slot: Slot): void => {
    const head = slot.sent[0];
    if (!head || head.timed) return;
    head.timed = true;
    if (!head.settled) resume(slot, head);
  };

  /**
   * The task's time looks spent. Time the worker spent in pauses (its own tool calls) is given back first, and a
   * pause in progress is judged by its own limit; only time left over after that stops the task.
   */
  const expire = (slot: Slot, running: Running): void => {
    if (running.settled) return;
    // The worker notes the task it runs; until it has started this one its time has not begun, and once it has
    // ended it, its answer is on the way.
    if (slot.clock[CLOCK_TASK] !== running.id) {
      running.remaining = running.options.timeLimitMs;
      resume(slot, running);
      return;
    }
    if (slot.clock[CLOCK_BUSY] === 0) {
      running.remaining = 1;
      resume(slot, running);
      return;
    }
    const now = performance.timeOrigin + performance.now();
    const since = slot.clock[CLOCK_PAUSE_BEGAN]!;
    const inPause = since > 0 ? Math.max(0, now - since) : 0;
    const paused = slot.clock[CLOCK_PAUSED]! + inPause;
    const credit = paused - running.credited;
    const pauseLimit = slot.clock[CLOCK_PAUSE_LIMIT]!;
    let error: WeftError | undefined;
    if (since > 0 && inPause >= pauseLimit)
      error = (running.options.pauseOverTime ?? ((where) => running.options.overTime(where)))(
        readWhere(slot.where),
        pauseLimit,
      );
    else if (credit <= 0 && since === 0) error = running.options.overTime(readWhere(slot.where));
    if (error) {
      const stopped = error;
      kill(slot, (each) =>
        each === running ? stopped : running.options.crashed(readWhere(slot.where), 'its worker was stopped'),
      );
      drain();
      return;
    }
    running.credited = paused;
    // What the pauses took is the task's again; while one runs, look again when its own limit is up.
    running.remaining = since > 0 ? Math.min(Math.max(credit, 1), pauseLimit - inPause) : credit;
    resume(slot, running);
  };

  const settle = (running: Running, ok: boolean, value: unknown): void => {
    if (running.settled) return;
    running.settled = true;
    clearTimeout(running.timer);
    if (running.onAbort) running.options.signal?.removeEventListener('abort', running.onAbort);
    if (ok) running.resolve(value);
    else running.reject(value);
  };

  const onMessage = (slot: Slot, message: FromWorker): void => {
    if (message.t === 'ready') {
      slot.ready = true;
      drain();
      // Started for tasks that others took meanwhile: an idle worker does not keep the process alive.
      if (slot.sent.length === 0) slot.worker.unref();
      return;
    }
    if (message.t === 'out') {
      // Through this thread's streams as they are now (`weft mcp` sends stdout's writes to stderr).
      (message.fd === 1 ? process.stdout : process.stderr).write(message.text);
      return;
    }
    const at = slot.sent.findIndex((each) => each.id === message.id);
    if (at < 0) return;
    const running = slot.sent[at]!;
    if (message.t === 'done') {
      slot.sent.splice(at, 1);
      clearTimeout(running.grace);
      // A cancelled task that settled within its grace was settled already: its worker is simply free again.
      settle(running, message.ok, message.ok ? message.value : errorOfMessage(message.error!));
      if (slot.sent.length === 0) slot.worker.unref();
      timeHead(slot);
      drain();
      return;
    }
    if (running.settled) return;
    // A request: the time limit waits while this thread answers it.
    if (running.waiting++ === 0) pause(running);
    const answer = running.options.onRequest
      ? running.options.onRequest(message.body)
      : Promise.reject(new WeftError('INTERNAL', 'this task takes no requests'));
    answer.then(
      (value) => reply(slot, running, { t: 'reply', n: message.n, ok: true, value }),
      (error: unknown) => reply(slot, running, { t: 'reply', n: message.n, ok: false, error: errorMessageOf(error) }),
    );
  };

  const reply = (slot: Slot, running: Running, message: ToWorker): void => {
    if (running.settled || slot.dead) return;
    slot.worker.postMessage(message);
    if (--running.waiting === 0) resume(slot, running);
  };

  /**
   * Hands queued tasks to ready workers: one to each worker with none; more workers when tasks still wait; and only
   * when no more can come (all started and ready), a second task to each, and so on up to `depth`, so that work
   * spreads over the workers before any queues behind another.
   */
  const drain = (): void => {
    if (closed) return;
    fill(1);
    if (queue.length === 0) return;
    let starting = 0;
    for (const slot of slots) if (!slot.ready) starting += 1;
    if (starting < queue.length && slots.size < maxWorkers) spawn();
    if (starting > 0 || slots.size < maxWorkers) return;
    for (let level = 2; level <= depth && queue.length > 0; level++) fill(level);
  };

  /**
   * Gives a queued task to each ready worker holding fewer than `level`. Past the first, only a task that queues
   * goes, and only to a worker whose tasks all do; the queue's order is kept.
   */
  const fill = (level: number): void => {
    for (const slot of slots) {
      if (queue.length === 0) return;
      if (!slot.ready || slot.dead || slot.sent.length >= level) continue;
      if (level > 1 && !(queue[0]!.options.queues && slot.sent.every((each) => each.options.queues))) continue;
      while (queue.length > 0) {
        if (queue.shift()!.send(slot)) break;
      }
    }
  };

  const run = (task: IsolateTaskOptions): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (closed) {
        reject(new WeftError('INTERNAL', 'the isolation pool is closed'));
        return;
      }
      if (task.signal?.aborted) {
        reject(abortedError(task.signal));
        return;
      }
      let slotOf: Slot | undefined;
      const running: Running = {
        id: nextId++,
        options: task,
        resolve,
        reject,
        send: (slot) => {
          if (running.settled) return false;
          let body: unknown;
          try {
            body = task.body(slot.held);
          } catch (error) {
            settle(running, false, error);
            return false;
          }
          slotOf = slot;
          running.remaining = task.timeLimitMs;
          running.credited = 0;
          running.waiting = 0;
          slot.sent.push(running);
          slot.worker.ref();
          slot.worker.postMessage({ t: 'task', id: running.id, body } satisfies ToWorker);
          timeHead(slot);
          return true;
        },
        remaining: task.timeLimitMs,
        startedAt: 0,
        timed: false,
        timer: undefined,
        waiting: 0,
        credited: 0,
        settled: false,
      };
      if (task.signal) {
        running.onAbort = () => {
          // The caller is answered at once. The task sees its own signal abort and gets ABORT_GRACE_MS to settle
          // (a tool closing what it opened); a worker still busy with it then is terminated.
          const at = queue.indexOf(running);
          if (at >= 0) queue.splice(at, 1);
          const slot = slotOf;
          // Where the worker is, if it runs this task now (read before it hears of the abort and clears its marks).
          const where =
            slot && slot.clock[CLOCK_TASK] === running.id && slot.clock[CLOCK_BUSY] === 1
              ? readWhere(slot.where)
              : undefined;
          if (slot && !slot.dead && slot.sent.includes(running)) {
            slot.worker.postMessage({ t: 'abort', id: running.id } satisfies ToWorker);
            running.grace = setTimeout(() => {
              if (!slot.dead && slot.sent.includes(running)) {
                kill(slot, () => abortedError(task.signal));
                drain();
              }
            }, ABORT_GRACE_MS);
          }
          settle(running, false, task.aborted?.(where) ?? abortedError(task.signal));
          drain();
        };
        task.signal.addEventListener('abort', running.onAbort, { once: true });
      }
      queue.push(running);
      drain();
    });

  return {
    run,
    size: () => slots.size,
    async close() {
      closed = true;
      const all = [...slots];
      const closedError = () => new WeftError('ABORTED', 'the isolation pool was closed');
      for (const slot of all) retire(slot, closedError);
      for (const running of queue.splice(0)) settle(running, false, closedError());
      await Promise.all(all.map((slot) => slot.worker.terminate()));
    },
  };
}

/**
 * The built package runs the worker's .js file. From the sources (tsx, vitest) it is a .ts file, which Node cannot
 * load by itself: the worker first registers tsx's loader (a dev dependency) in its own thread.
 */
function newWorker(script: URL, workerData: unknown, memoryMb: number): Worker {
  // SHARE_ENV: what runs there sees this process's environment as it is now, as it would on this thread.
  const options: WorkerOptions = { workerData, resourceLimits: { maxOldGenerationSizeMb: memoryMb }, env: SHARE_ENV };
  if (!script.pathname.endsWith('.ts')) return new Worker(script, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(script.href)}); });`;
  return new Worker(code, { ...options, eval: true });
}

/** The script beside `base` (an import.meta.url) named `name` (no extension): .ts from the sources, .js when built. */
export function workerScript(name: string, base: string): URL {
  return new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
}
