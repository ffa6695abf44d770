import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WeftError, isAbortError } from '../../src/errors.js';
import { withRetries } from '../../src/llm/retry.js';
import { abortErrorOf, sleep, withTimeout } from '../../src/llm/timeout.js';
import { manualModel, sequenceModel, simpleCall } from './fake-models.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('sleep', () => {
  it('waits the given time', async () => {
    let done = false;
    void sleep(100).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(99);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });

  it('uses no timer for 0 ms', async () => {
    const pending = sleep(0);
    expect(vi.getTimerCount()).toBe(0);
    await pending;
  });

  it('rejects on abort and clears its timer', async () => {
    const controller = new AbortController();
    const pending = sleep(1_000, controller.signal).catch((error: unknown) => error);
    controller.abort();
    expect(isAbortError(await pending)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once for an aborted signal, even for 0 ms', async () => {
    const controller = new AbortController();
    controller.abort('reason text');
    const error = await sleep(0, controller.signal).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ABORTED', cause: 'reason text' });
  });

  it('abortErrorOf keeps abort reasons and wraps others', () => {
    const controller = new AbortController();
    controller.abort();
    expect(abortErrorOf(controller.signal)).toBe(controller.signal.reason);
    const custom = new AbortController();
    custom.abort(new Error('why'));
    expect(abortErrorOf(custom.signal)).toMatchObject({ code: 'ABORTED' });
  });
});

describe('withTimeout', () => {
  it('returns the result of a fast call and leaves no timer behind', async () => {
    const model = withTimeout(sequenceModel(['fast']), 1_000);
    await expect(model.generate(simpleCall)).resolves.toMatchObject({ text: 'fast' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('turns a slow call into a retryable TIMEOUT and aborts the inner signal', async () => {
    const inner = manualModel();
    const pending = withTimeout(inner, 1_000)
      .generate(simpleCall)
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_000);
    const error = await pending;
    expect(error).toBeInstanceOf(WeftError);
    expect(error).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect(inner.pending[0]?.signal?.aborted).toBe(true);
  });

  it('reports TIMEOUT even when the inner model rejects with its abort', async () => {
    const inner = manualModel({ honourAbort: true });
    const pending = withTimeout(inner, 50)
      .generate(simpleCall)
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(50);
    expect(await pending).toMatchObject({ code: 'TIMEOUT' });
  });

  it('keeps a caller abort an abort', async () => {
    const controller = new AbortController();
    const inner = manualModel({ honourAbort: true });
    const pending = withTimeout(inner, 1_000)
      .generate(simpleCall, controller.signal)
      .catch((error: unknown) => error);
    controller.abort();
    const error = await pending;
    expect(isAbortError(error)).toBe(true);
    expect((error as { code?: string }).code).not.toBe('TIMEOUT');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('settles on caller abort even if the inner model ignores its signal', async () => {
    const controller = new AbortController();
    const pending = withTimeout(manualModel(), 1_000)
      .generate(simpleCall, controller.signal)
      .catch((error: unknown) => error);
    controller.abort();
    expect(isAbortError(await pending)).toBe(true);
  });

  it('does not call the model for an already aborted signal', async () => {
    const inner = manualModel();
    const controller = new AbortController();
    controller.abort();
    await expect(withTimeout(inner, 10).generate(simpleCall, controller.signal)).rejects.toSatisfy(isAbortError);
    expect(inner.started).toBe(0);
  });

  it('passes other errors through', async () => {
    const error = new WeftError('PROVIDER', 'boom');
    await expect(withTimeout(sequenceModel([error]), 10).generate(simpleCall)).rejects.toBe(error);
  });

  it('is retried by withRetries', async () => {
    const inner = manualModel();
    const model = withRetries(withTimeout(inner, 100), { sleep: async () => {} });
    const pending = model.generate(simpleCall);
    await vi.advanceTimersByTimeAsync(100);
    expect(inner.started).toBe(2);
    inner.pending[1]!.resolve('second try');
    await expect(pending).resolves.toMatchObject({ text: 'second try' });
  });

  it('accepts Infinity as "no timeout" and rejects nonsense', () => {
    const inner = sequenceModel(['x']);
    expect(withTimeout(inner, Number.POSITIVE_INFINITY)).toBe(inner);
    expect(() => withTimeout(inner, 0)).toThrow(WeftError);
    expect(() => withTimeout(inner, Number.NaN)).toThrow(/timeout/);
  });
});
