import { describe, expect, it } from 'vitest';
import { WeftError, isAbortError } from '../../src/errors.js';
import { createLimiter, withConcurrency } from '../../src/llm/concurrency.js';
import { withResilience } from '../../src/llm/resilient-model.js';
import { manualModel, sequenceModel, simpleCall } from './fake-models.js';

const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('withConcurrency', () => {
  it('runs at most `limit` calls at once and starts queued ones as slots free', async () => {
    const inner = manualModel();
    const model = withConcurrency(inner, 2);
    const results = Array.from({ length: 5 }, (_, i) =>
      model.generate({ messages: [{ role: 'user', content: String(i) }] }),
    );
    await flush();
    expect(inner.started).toBe(2);
    inner.pending[0]!.resolve('a');
    await flush();
    expect(inner.started).toBe(3);
    for (let i = 1; i < 5; i++) {
      inner.pending[i]!.resolve(String(i));
      await flush();
    }
    await expect(Promise.all(results)).resolves.toHaveLength(5);
    expect(inner.maxRunning).toBe(2);
  });

  it('shares one limiter between models', async () => {
    const limiter = createLimiter(1);
    const first = manualModel();
    const second = manualModel();
    const a = withConcurrency(first, limiter).generate(simpleCall);
    const b = withConcurrency(second, limiter).generate(simpleCall);
    await flush();
    expect([first.started, second.started]).toEqual([1, 0]);
    expect(limiter.running).toBe(1);
    expect(limiter.waiting).toBe(1);
    first.pending[0]!.resolve('a');
    await flush();
    expect(second.started).toBe(1);
    second.pending[0]!.resolve('b');
    await expect(Promise.all([a, b])).resolves.toHaveLength(2);
  });

  it('removes an aborted call from the queue without running it', async () => {
    const inner = manualModel();
    const model = withConcurrency(inner, 1);
    const running = model.generate(simpleCall);
    const controller = new AbortController();
    const queued = model.generate(simpleCall, controller.signal).catch((error: unknown) => error);
    await flush();
    controller.abort();
    expect(isAbortError(await queued)).toBe(true);
    inner.pending[0]!.resolve('first');
    await running;
    await flush();
    expect(inner.started).toBe(1);
  });

  it('maps a non-error abort reason to ABORTED', async () => {
    const inner = manualModel();
    const model = withConcurrency(inner, 1);
    void model.generate(simpleCall);
    const controller = new AbortController();
    const queued = model.generate(simpleCall, controller.signal).catch((error: unknown) => error);
    controller.abort('user pressed ctrl-c');
    expect(await queued).toMatchObject({ code: 'ABORTED' });
    inner.pending[0]!.resolve('done');
  });

  it('rejects at once for an already aborted signal', async () => {
    const inner = manualModel();
    const controller = new AbortController();
    controller.abort();
    await expect(withConcurrency(inner, 1).generate(simpleCall, controller.signal)).rejects.toSatisfy(isAbortError);
    expect(inner.started).toBe(0);
  });

  it('validates the limit', () => {
    expect(() => createLimiter(0)).toThrow(WeftError);
    expect(() => createLimiter(1.5)).toThrow(/concurrency expects an integer >= 1/);
    expect(createLimiter(Number.POSITIVE_INFINITY).concurrency).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('withResilience', () => {
  it('composes retries, concurrency and timeout', async () => {
    const inner = sequenceModel([new WeftError('PROVIDER', '503', { retryable: true }), 'ok']);
    const model = withResilience(inner, { retry: { sleep: async () => {} }, timeoutMs: 1_000, concurrency: 2 });
    await expect(model.generate(simpleCall)).resolves.toMatchObject({ text: 'ok' });
    expect(inner.signals).toHaveLength(2);
    expect(model.id).toBe(inner.id);
  });

  it('can turn retries off', async () => {
    const error = new WeftError('PROVIDER', '503', { retryable: true });
    await expect(withResilience(sequenceModel([error, 'ok']), { retry: false }).generate(simpleCall)).rejects.toBe(
      error,
    );
  });
});
