/**
 * What `runTask` and `resumeRun` return: the run's id at once, its events as they happen, and its result. The
 * handle is also awaitable (`await runTask(...)` gives the result), so code that only wants the result stays short.
 */
import { WeftError } from '../errors.js';
import type { RunTaskResult } from './drive-run.js';
import type { WeftEvent } from './events.js';

/** Events kept for a consumer that falls behind; beyond this, the oldest unread ones are dropped (see `dropped`). */
export const DEFAULT_EVENT_BUFFER = 10_000;

export interface RunEvents extends AsyncIterable<WeftEvent> {
  /** Events dropped so far because the consumer fell more than the buffer behind (the store keeps them all). */
  dropped(): number;
}

export interface RunHandle extends PromiseLike<RunTaskResult> {
  readonly runId: string;
  /**
   * Every event of this process's part of the run, in order, as it is emitted; ends when the run ends. Iterated
   * once. Leaving the loop early (`break`) only stops the iteration: the run goes on. A consumer slower than the
   * run keeps at most the buffer's worth of unread events; older ones are dropped and counted by `dropped()`, and
   * `runEvents(store, runId)` reads the whole log.
   */
  readonly events: RunEvents;
  /** The run's result; rejects when the run could not start (invalid options, unknown run) or its store failed. */
  readonly result: Promise<RunTaskResult>;
}

/** A bounded queue of events read by one async iterator. */
export function eventQueue(capacity = DEFAULT_EVENT_BUFFER): {
  readonly events: RunEvents;
  push(event: WeftEvent): void;
  end(): void;
} {
  const buffer: WeftEvent[] = [];
  let head = 0;
  let dropped = 0;
  let ended = false;
  let iterated = false;
  let detached = false;
  let wake: (() => void) | undefined;
  const size = () => buffer.length - head;
  const compact = () => {
    // Shift in bulk, not per event: a long run's reads stay linear.
    if (head > 1024 && head * 2 > buffer.length) {
      buffer.splice(0, head);
      head = 0;
    }
  };
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const iterator: AsyncIterator<WeftEvent> = {
    async next() {
      while (size() === 0 && !ended && !detached) await new Promise<void>((resolve) => (wake = resolve));
      const event = detached ? undefined : buffer[head];
      if (event === undefined) return { done: true, value: undefined };
      head += 1;
      compact();
      return { done: false, value: event };
    },
    async return() {
      // The consumer left: stop keeping events for it. The run is not touched.
      detached = true;
      buffer.length = 0;
      head = 0;
      notify();
      return { done: true, value: undefined };
    },
  };
  return {
    events: {
      [Symbol.asyncIterator]() {
        if (iterated)
          throw new WeftError('BAD_INPUT', "A run's events can be iterated once; read the store for another pass", {
            location: { field: 'events' },
          });
        iterated = true;
        return iterator;
      },
      dropped: () => dropped,
    },
    push(event) {
      if (detached || ended) return;
      buffer.push(event);
      if (size() > capacity) {
        head += 1;
        dropped += 1;
        compact();
      }
      notify();
    },
    end() {
      ended = true;
      notify();
    },
  };
}

/**
 * Starts `work` with a listener that feeds the handle's events (and `onEvent`), and ends the events when the work
 * settles. `work` runs whether or not anyone iterates the events.
 */
export function runHandle(
  runId: string,
  onEvent: ((event: WeftEvent) => void) | undefined,
  work: (listener: (event: WeftEvent) => void) => Promise<RunTaskResult>,
  capacity?: number,
): RunHandle {
  const queue = eventQueue(capacity);
  const result = work((event) => {
    queue.push(event);
    onEvent?.(event);
  }).finally(() => queue.end());
  // A caller that only iterates the events must not crash the process with an unhandled rejection; `result`
  // (and awaiting the handle) still reject.
  result.catch(() => undefined);
  return {
    runId,
    events: queue.events,
    result,
    // biome-ignore lint/suspicious/noThenProperty: the handle is awaitable on purpose (`await runTask(...)` gives the result).
    then: (onFulfilled, onRejected) => result.then(onFulfilled, onRejected),
  };
}
