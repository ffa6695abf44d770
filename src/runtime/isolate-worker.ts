/**
 * The worker's side of an isolation pool (isolate-pool.ts): takes tasks one at a time, hands each to `handle`, and
 * sends back its value or its error. `request` asks the pool's thread for something (a tool call) and waits for the
 * answer; `setWhere` notes where the task is, for the error of a task stopped while stuck.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WeftError } from '../errors.js';
import {
  CLOCK_BUSY,
  CLOCK_PAUSE_BEGAN,
  CLOCK_PAUSE_LIMIT,
  CLOCK_PAUSED,
  CLOCK_TASK,
  type FromWorker,
  type ToWorker,
  errorMessageOf,
  errorOfMessage,
} from './isolate-pool.js';
import { whereWriter } from './where-buffer.js';

export interface IsolateTaskContext {
  request(body: unknown): Promise<unknown>;
  setWhere(where: string): void;
  /**
   * Runs `work` here as a pause of the task's time: what it takes is given back to the task (as a request's wait
   * is), and it has `limitMs` of its own, past which the pool terminates this worker (pauseOverTime). `where` says
   * what it is, for that error. No message crosses: the pool reads a shared clock.
   */
  pause<T>(limitMs: number, where: string, work: () => Promise<T>): Promise<T>;
  /** Aborts when the pool's caller cancels the task (its worker is terminated soon after unless it settles). */
  readonly signal: AbortSignal;
}

export function serveIsolateTasks(handle: (body: unknown, context: IsolateTaskContext) => Promise<unknown>): void {
  const port = parentPort;
  if (!port) throw new WeftError('INTERNAL', 'serveIsolateTasks runs in a worker thread only');
  const shared = (workerData as { where: SharedArrayBuffer }).where;
  const clock = new Float64Array((workerData as { clock: SharedArrayBuffer }).clock);
  const absoluteNow = () => performance.timeOrigin + performance.now();
  const writeWhere = whereWriter(shared);
  let lastWhere = '';
  const setWhere = (where: string): void => {
    lastWhere = where;
    writeWhere(where);
  };
  forwardOutput(port);
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  let taskId = 0;
  let nextRequest = 1;
  let controller = new AbortController();
  const context: IsolateTaskContext = {
    setWhere,
    async pause(limitMs, where, work) {
      // Pauses do not nest (a case runs one tool call at a time); an inner one runs inside the outer one's time.
      if (clock[CLOCK_PAUSE_BEGAN] !== 0) return work();
      const before = lastWhere;
      setWhere(before === '' ? where : `${before}, ${where}`);
      const began = absoluteNow();
      clock[CLOCK_PAUSE_LIMIT] = limitMs;
      clock[CLOCK_PAUSE_BEGAN] = began;
      try {
        return await work();
      } finally {
        clock[CLOCK_PAUSED] = clock[CLOCK_PAUSED]! + (absoluteNow() - began);
        clock[CLOCK_PAUSE_BEGAN] = 0;
        setWhere(before);
      }
    },
    get signal() {
      return controller.signal;
    },
    request(body) {
      const n = nextRequest++;
      return new Promise((resolve, reject) => {
        pending.set(n, { resolve, reject });
        port.postMessage({ t: 'call', id: taskId, n, body } satisfies FromWorker);
      });
    },
  };
  const waiting: { id: number; body: unknown }[] = [];
  let busy = false;
  port.on('message', (message: ToWorker) => {
    if (message.t === 'reply') {
      const waiter = pending.get(message.n);
      pending.delete(message.n);
      if (message.ok) waiter?.resolve(message.value);
      else waiter?.reject(errorOfMessage(message.error!));
      return;
    }
    if (message.t === 'abort') {
      if (message.id !== taskId || !busy) {
        // Not begun yet: it never will. Its end is still told, so the pool stops counting it as this worker's.
        const at = waiting.findIndex((task) => task.id === message.id);
        if (at < 0) return;
        waiting.splice(at, 1);
        const error = errorMessageOf(new WeftError('ABORTED', 'the call was cancelled'));
        port.postMessage({ t: 'done', id: message.id, ok: false, error } satisfies FromWorker);
        return;
      }
      const reason = new WeftError('ABORTED', 'the call was cancelled');
      controller.abort(reason);
      // No answer will come to what the task asked: it stops waiting.
      for (const waiter of pending.values()) waiter.reject(reason);
      pending.clear();
      return;
    }
    // The pool may send a task before this one ends (its depth): tasks run one at a time, in the order sent.
    waiting.push({ id: message.id, body: message.body });
    if (!busy) next();
  });
  /** The clock and the where buffer hold only the running task's marks; the pool reads them to judge it. */
  const clearMarks = () => {
    clock[CLOCK_PAUSED] = 0;
    clock[CLOCK_PAUSE_BEGAN] = 0;
    clock[CLOCK_PAUSE_LIMIT] = 0;
    setWhere('');
  };
  const next = (): void => {
    const task = waiting.shift();
    if (!task) {
      busy = false;
      return;
    }
    busy = true;
    const id = task.id;
    taskId = id;
    controller = new AbortController();
    clearMarks();
    clock[CLOCK_TASK] = id;
    clock[CLOCK_BUSY] = 1;
    const finish = (message: FromWorker, fallback?: (error: unknown) => FromWorker) => {
      clock[CLOCK_BUSY] = 0;
      clearMarks();
      try {
        port.postMessage(message);
      } catch (error) {
        // A value that cannot cross threads (a function, say).
        if (fallback) port.postMessage(fallback(error));
      }
      next();
    };
    const failed = (error: unknown): FromWorker => ({ t: 'done', id, ok: false, error: errorMessageOf(error) });
    handle(task.body, context).then(
      (value) => finish({ t: 'done', id, ok: true, value }, failed),
      (error: unknown) => finish(failed(error)),
    );
  };
  port.postMessage({ t: 'ready' } satisfies FromWorker);
}

/**
 * A worker's own stdout and stderr reach the parent on an internal channel, in no fixed order with the task's answer,
 * and lose what is in flight when the worker is terminated. Sent on the task's channel instead, what a tool printed
 * is written (by the pool's thread) before its answer is read.
 */
function forwardOutput(port: NonNullable<typeof parentPort>): void {
  const decoder = new TextDecoder();
  for (const fd of [1, 2] as const) {
    const stream = fd === 1 ? process.stdout : process.stderr;
    stream.write = ((chunk: unknown, encoding?: unknown, done?: unknown) => {
      const text =
        typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? decoder.decode(chunk) : String(chunk);
      port.postMessage({ t: 'out', fd, text } satisfies FromWorker);
      const callback = typeof encoding === 'function' ? encoding : done;
      if (typeof callback === 'function') queueMicrotask(() => (callback as (error?: Error | null) => void)(null));
      return true;
    }) as typeof stream.write;
  }
}
