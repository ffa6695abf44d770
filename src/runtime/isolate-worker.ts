/**
 * The worker's side of an isolation pool (isolate-pool.ts): takes tasks one at a time, hands each to `handle`, and
 * sends back its value or its error. `request` asks the pool's thread for something (a tool call) and waits for the
 * answer; `setWhere` notes where the task is, for the error of a task stopped while stuck.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WeftError } from '../errors.js';
import { type FromWorker, type ToWorker, errorMessageOf, errorOfMessage } from './isolate-pool.js';

export interface IsolateTaskContext {
  request(body: unknown): Promise<unknown>;
  setWhere(where: string): void;
  /** Aborts when the pool's caller cancels the task (its worker is terminated soon after unless it settles). */
  readonly signal: AbortSignal;
}

const encoder = new TextEncoder();

export function serveIsolateTasks(handle: (body: unknown, context: IsolateTaskContext) => Promise<unknown>): void {
  const port = parentPort;
  if (!port) throw new WeftError('INTERNAL', 'serveIsolateTasks runs in a worker thread only');
  const shared = (workerData as { where: SharedArrayBuffer }).where;
  const bytes = new Uint8Array(shared);
  const view = new DataView(shared);
  // Encoded once per text: a case notes where it is before every expression.
  const encoded = new Map<string, Uint8Array>();
  const setWhere = (where: string): void => {
    let text = encoded.get(where);
    if (!text) {
      text = encoder.encode(where).subarray(0, bytes.length - 2);
      if (encoded.size > 10_000) encoded.clear();
      encoded.set(where, text);
    }
    bytes.set(text, 2);
    view.setUint16(0, text.length);
  };
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  let taskId = 0;
  let nextRequest = 1;
  let controller = new AbortController();
  const context: IsolateTaskContext = {
    setWhere,
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
  port.on('message', (message: ToWorker) => {
    if (message.t === 'reply') {
      const waiter = pending.get(message.n);
      pending.delete(message.n);
      if (message.ok) waiter?.resolve(message.value);
      else waiter?.reject(errorOfMessage(message.error!));
      return;
    }
    if (message.t === 'abort') {
      if (message.id !== taskId) return;
      const reason = new WeftError('ABORTED', 'the call was cancelled');
      controller.abort(reason);
      // No answer will come to what the task asked: it stops waiting.
      for (const waiter of pending.values()) waiter.reject(reason);
      pending.clear();
      return;
    }
    const id = message.id;
    taskId = id;
    controller = new AbortController();
    const fail = (error: unknown) =>
      port.postMessage({ t: 'done', id, ok: false, error: errorMessageOf(error) } satisfies FromWorker);
    handle(message.body, context).then((value) => {
      try {
        port.postMessage({ t: 'done', id, ok: true, value } satisfies FromWorker);
      } catch (error) {
        // A value that cannot cross threads (a function, say).
        fail(error);
      }
    }, fail);
  });
  port.postMessage({ t: 'ready' } satisfies FromWorker);
}
