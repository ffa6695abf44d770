import { afterEach, describe, expect, it, vi } from 'vitest';
import { WeftError, isAbortError } from '../../src/errors.js';
import { backoffDelay, withRetries } from '../../src/llm/retry.js';
import { manualModel, sequenceModel, simpleCall } from './fake-models.js';

const retryable = (message = 'rate limited', retryAfterMs?: number): WeftError =>
  new WeftError('PROVIDER', message, { retryable: true, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });

function recordingSleep(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('withRetries', () => {
  it('retries retryable errors with exponential backoff until success', async () => {
    const inner = sequenceModel([retryable(), retryable(), retryable(), 'done']);
    const { delays, sleep } = recordingSleep();
    const model = withRetries(inner, { sleep, random: () => 0.5 });
    await expect(model.generate(simpleCall)).resolves.toMatchObject({ text: 'done' });
    expect(delays).toEqual([375, 750, 1500]);
    expect(inner.signals).toHaveLength(4);
    expect(model.id).toBe(inner.id);
    expect(model.kind).toBe(inner.kind);
  });

  it('gives up after `retries` retries with an error that says so and carries the last one', async () => {
    const last = retryable('OpenAI answered HTTP 503');
    const inner = sequenceModel([retryable(), retryable(), last]);
    const { sleep } = recordingSleep();
    const failure = await withRetries(inner, { retries: 2, sleep })
      .generate(simpleCall)
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'PROVIDER',
      message: 'provider error after 2 retries: OpenAI answered HTTP 503',
      cause: last,
    });
    expect(inner.signals).toHaveLength(3);
    const timeout = await withRetries(
      sequenceModel([
        new WeftError('TIMEOUT', 'no answer within 5 s'),
        new WeftError('TIMEOUT', 'no answer within 5 s'),
      ]),
      { retries: 1, sleep },
    )
      .generate(simpleCall)
      .catch((error: unknown) => error);
    expect(timeout).toMatchObject({ code: 'TIMEOUT', message: 'timeout after 1 retry: no answer within 5 s' });
  });

  it('numbers the retries of a call in its tag (for seeded models) and leaves the first attempt untouched', async () => {
    const inner = sequenceModel([retryable(), retryable(), 'ok']);
    const { sleep } = recordingSleep();
    const call = { ...simpleCall, tag: { purpose: 'execute' as const, key: 't1', attempt: 1, sequence: 0 } };
    await withRetries(inner, { sleep }).generate(call);
    expect(inner.calls.map((seen) => seen.tag)).toEqual([
      call.tag,
      { ...call.tag, retry: 1 },
      { ...call.tag, retry: 2 },
    ]);
  });

  it('does not retry errors that are not retryable', async () => {
    for (const error of [
      new WeftError('MODEL_CONFIG', 'no key'),
      new WeftError('PROVIDER', 'bad request'),
      new Error('bug'),
    ]) {
      const inner = sequenceModel([error, 'never']);
      const { delays, sleep } = recordingSleep();
      await expect(withRetries(inner, { sleep }).generate(simpleCall)).rejects.toBe(error);
      expect(delays).toEqual([]);
    }
  });

  it('retries timeouts (retryable by default)', async () => {
    const inner = sequenceModel([new WeftError('TIMEOUT', 'slow'), 'ok']);
    const { sleep } = recordingSleep();
    await expect(withRetries(inner, { sleep }).generate(simpleCall)).resolves.toMatchObject({ text: 'ok' });
  });

  it('honours retryAfterMs, even above maxDelayMs', async () => {
    const inner = sequenceModel([retryable('429', 42_000), 'ok']);
    const { delays, sleep } = recordingSleep();
    await withRetries(inner, { sleep, maxDelayMs: 1000 }).generate(simpleCall);
    expect(delays).toEqual([42_000]);
  });

  it('caps the backoff at maxDelayMs and keeps jitter within [step/2, step]', () => {
    expect(backoffDelay(10, { baseDelayMs: 500, maxDelayMs: 20_000, random: () => 0.999 })).toBeLessThanOrEqual(20_000);
    expect(backoffDelay(10, { baseDelayMs: 500, maxDelayMs: 20_000, random: () => 0 })).toBe(10_000);
    expect(backoffDelay(1, { baseDelayMs: 500, maxDelayMs: 20_000, random: () => 0 })).toBe(250);
    expect(backoffDelay(1, { baseDelayMs: 500, maxDelayMs: 20_000, random: () => 0.9999999 })).toBe(500);
  });

  it('never retries an abort error', async () => {
    const abort = new WeftError('ABORTED', 'stop', { retryable: true });
    const inner = sequenceModel([abort, 'never']);
    const { delays, sleep } = recordingSleep();
    await expect(withRetries(inner, { sleep }).generate(simpleCall)).rejects.toBe(abort);
    expect(delays).toEqual([]);
  });

  it('does not retry once the caller has aborted, whatever the error', async () => {
    const controller = new AbortController();
    const inner = manualModel();
    const { delays, sleep } = recordingSleep();
    const pending = withRetries(inner, { sleep }).generate(simpleCall, controller.signal);
    controller.abort();
    inner.pending[0]!.reject(retryable());
    const failure = await pending.catch((error: unknown) => error);
    expect(isAbortError(failure)).toBe(true);
    expect(delays).toEqual([]);
    expect(inner.started).toBe(1);
  });

  it('aborts during the backoff sleep without another attempt (real abortable sleep, fake timers)', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const inner = sequenceModel([retryable(), 'late']);
    const pending = withRetries(inner, { baseDelayMs: 10_000 }).generate(simpleCall, controller.signal);
    const settled = pending.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    expect(isAbortError(await settled)).toBe(true);
    expect(inner.signals).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits for the backoff with the real sleep under fake timers', async () => {
    vi.useFakeTimers();
    const inner = sequenceModel([retryable(), 'ok']);
    const pending = withRetries(inner, { baseDelayMs: 1_000, random: () => 0 }).generate(simpleCall);
    await vi.advanceTimersByTimeAsync(499);
    expect(inner.signals).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(pending).resolves.toMatchObject({ text: 'ok' });
    expect(inner.signals).toHaveLength(2);
  });

  it('tells onRetry about each retry', async () => {
    const error = retryable();
    const onRetry = vi.fn();
    const { sleep } = recordingSleep();
    await withRetries(sequenceModel([error, 'ok']), { sleep, onRetry, random: () => 0 }).generate(simpleCall);
    expect(onRetry).toHaveBeenCalledWith({ attempt: 1, delayMs: 250, error });
  });

  it('rejects bad options', () => {
    const inner = sequenceModel(['ok']);
    expect(() => withRetries(inner, { retries: -1 })).toThrow(WeftError);
    expect(() => withRetries(inner, { retries: 1.5 })).toThrow(/retries/);
    expect(() => withRetries(inner, { baseDelayMs: Number.NaN })).toThrow(/baseDelayMs/);
  });
});
