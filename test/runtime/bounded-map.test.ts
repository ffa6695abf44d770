import { getMaxListeners, setMaxListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isAbortError, WeftError } from '../../src/errors.js';
import { boundedMap } from '../../src/runtime/bounded-map.js';

/** A promise with its resolve and reject, to finish calls in a chosen order. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A call that ends when its signal aborts (rejecting with an abort error), or when released. */
function abortable(signal: AbortSignal, release: Promise<number>): Promise<number> {
  return new Promise((resolve, reject) => {
    signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
    void release.then(resolve);
  });
}

describe('boundedMap', () => {
  it("returns the results in the items' order whatever order the calls finish in", async () => {
    const gates = [0, 1, 2, 3].map(() => deferred<void>());
    const run = boundedMap([0, 1, 2, 3], { concurrency: 4 }, async (item) => {
      await gates[item]!.promise;
      return item * 10;
    });
    for (const index of [3, 1, 0, 2]) {
      gates[index]!.resolve();
      await settle();
    }
    expect(await run).toStrictEqual([0, 10, 20, 30]);
  });

  it('never runs more than `concurrency` calls at once, and starts the next as one ends', async () => {
    let running = 0;
    let peak = 0;
    const gates = Array.from({ length: 7 }, () => deferred<void>());
    const started: number[] = [];
    const run = boundedMap(
      Array.from({ length: 7 }, (_, index) => index),
      { concurrency: 3 },
      async (item) => {
        started.push(item);
        running++;
        peak = Math.max(peak, running);
        await gates[item]!.promise;
        running--;
        return item;
      },
    );
    await settle();
    expect(started).toStrictEqual([0, 1, 2]);
    gates[1]!.resolve();
    await settle();
    expect(started).toStrictEqual([0, 1, 2, 3]);
    for (const gate of gates) gate.resolve();
    expect(await run).toStrictEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(peak).toBe(3);
  });

  it('pulls a lazy iterable only as slots free up', async () => {
    let pulled = 0;
    function* items() {
      for (let index = 0; index < 1000; index++) {
        pulled++;
        yield index;
      }
    }
    const gate = deferred<void>();
    const run = boundedMap(items(), { concurrency: 2 }, async (item) => {
      await gate.promise;
      return item;
    });
    await settle();
    // Two running and at most two waiting: the other 996 are not made yet.
    expect(pulled).toBeLessThanOrEqual(5);
    gate.resolve();
    expect((await run).length).toBe(1000);
    expect(pulled).toBe(1000);
  });

  it('on the first error aborts the calls running, starts no more, and throws it once they have settled', async () => {
    const failure = new Error('provider down');
    const started: number[] = [];
    const settled: number[] = [];
    const fail = deferred<number>();
    const never = deferred<number>();
    const run = boundedMap([0, 1, 2, 3, 4], { concurrency: 3 }, async (item, signal) => {
      started.push(item);
      try {
        return item === 1 ? await fail.promise : await abortable(signal, never.promise);
      } finally {
        // The aborted calls end one tick later, to show the map waits for them.
        await settle();
        settled.push(item);
      }
    });
    let thrown: unknown;
    void run.catch((error: unknown) => {
      thrown = error;
    });
    await settle();
    fail.reject(failure);
    const error = await run.catch((caught: unknown) => caught);
    expect(error).toBe(failure);
    expect(thrown).toBe(failure);
    expect(started).toStrictEqual([0, 1, 2]);
    expect(settled.sort()).toStrictEqual([0, 1, 2]);
  });

  it('keeps the first error, not the aborts it causes in the others', async () => {
    const failure = new WeftError('MODEL_CONFIG', 'no key');
    const error = await boundedMap([0, 1, 2], { concurrency: 3 }, (item, signal) =>
      item === 2 ? Promise.reject(failure) : abortable(signal, new Promise(() => {})),
    ).catch((caught: unknown) => caught);
    expect(error).toBe(failure);
  });

  it("stops on the caller's abort: running calls see it, the rest never start, and it throws the abort", async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const finished: number[] = [];
    const run = boundedMap([0, 1, 2, 3], { concurrency: 2, signal: controller.signal }, async (item, signal) => {
      started.push(item);
      const value = await abortable(signal, new Promise(() => {}));
      finished.push(item);
      return value;
    });
    await settle();
    controller.abort();
    const error = await run.catch((caught: unknown) => caught);
    expect(isAbortError(error)).toBe(true);
    expect(started).toStrictEqual([0, 1]);
    expect(finished).toStrictEqual([]);
  });

  it('starts nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    const error = await boundedMap([1, 2], { concurrency: 1, signal: controller.signal }, async (item) => {
      calls++;
      return item;
    }).catch((caught: unknown) => caught);
    expect(isAbortError(error)).toBe(true);
    expect(calls).toBe(0);
  });

  it('treats a failing lazy iterable as fatal, after the running calls settle', async () => {
    const settled: number[] = [];
    function* items() {
      yield 0;
      throw new Error('bad source');
    }
    const error = await boundedMap(items(), { concurrency: 2 }, async (item, signal) => {
      try {
        return await abortable(signal, new Promise(() => {}));
      } finally {
        settled.push(item);
      }
    }).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('bad source');
    expect(settled).toStrictEqual([0]);
  });

  it('returns an empty list for no items', async () => {
    expect(await boundedMap([], { concurrency: 1 }, async () => 1)).toStrictEqual([]);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2'])(
    'rejects concurrency %s with a BAD_INPUT naming the field, before any call',
    async (concurrency) => {
      let calls = 0;
      const error = await boundedMap([1], { concurrency: concurrency as number }, async () => calls++).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(WeftError);
      expect(error).toMatchObject({ code: 'BAD_INPUT', location: { field: 'concurrency' } });
      expect((error as Error).message).toContain('concurrency expects an integer >= 1');
      expect(calls).toBe(0);
      const named = await boundedMap([1], { concurrency: 0, field: 'jobs' }, async () => 1).catch((e: unknown) => e);
      expect(named).toMatchObject({ location: { field: 'jobs' } });
    },
  );
});

describe("boundedMap's signal", () => {
  it('takes many listeners without a warning, and can be read and raised by the code it is passed to', async () => {
    const limits = await boundedMap([1], { concurrency: 1 }, async (_item, signal) => {
      const before = getMaxListeners(signal);
      setMaxListeners(50, signal);
      return before;
    });
    expect(limits).toStrictEqual([Number.POSITIVE_INFINITY]);
  });
});
