import { describe, expect, it } from 'vitest';
import { WeftError } from '../../../src/errors.js';
import { isRetryableStatus, retryAfterMs, toWeftError } from '../../../src/llm/providers/provider-error.js';

const CONTEXT = {
  provider: 'OpenAI',
  model: 'gpt-4o-mini',
  baseURL: 'https://api.openai.com/v1',
  apiKeyEnv: 'OPENAI_API_KEY',
};

describe('provider error policy', () => {
  it('retries 408, 409, 429 and 5xx only', () => {
    expect([400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 529].filter(isRetryableStatus)).toEqual([
      408, 409, 429, 500, 502, 503, 529,
    ]);
  });

  it('reads retry-after-ms, then retry-after as seconds or an HTTP date', () => {
    const now = Date.parse('2025-03-10T01:31:24Z');
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500.4', 'retry-after': '9' }), now)).toBe(1500);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.25' }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Mon, 10 Mar 2025 01:31:41 GMT' }), now)).toBe(17_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Mon, 10 Mar 2025 01:31:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after-ms': 'x', 'retry-after': '3' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  it('obeys x-should-retry over the status', () => {
    const no = toWeftError(
      { kind: 'http', status: 503, headers: new Headers({ 'x-should-retry': 'false' }) },
      new Error('x'),
      CONTEXT,
    );
    expect(no.retryable).toBe(false);
    const yes = toWeftError(
      { kind: 'http', status: 400, headers: new Headers({ 'x-should-retry': 'true' }) },
      new Error('x'),
      CONTEXT,
    );
    expect(yes.retryable).toBe(true);
  });

  it('turns anything after an abort into ABORTED and keeps WeftErrors as they are', () => {
    const controller = new AbortController();
    controller.abort();
    const aborted = toWeftError({ kind: 'connection' }, new Error('fetch failed'), CONTEXT, controller.signal);
    expect(aborted.code).toBe('ABORTED');
    expect(aborted.retryable).toBe(false);
    const original = new WeftError('BUDGET', 'over');
    expect(toWeftError({ kind: 'other' }, original, CONTEXT)).toBe(original);
  });

  it('maps SDK timeouts to a retryable TIMEOUT and unknown failures to a non-retryable PROVIDER error', () => {
    const timeout = toWeftError({ kind: 'timeout' }, new Error('Request timed out.'), CONTEXT);
    expect(timeout.code).toBe('TIMEOUT');
    expect(timeout.retryable).toBe(true);
    const other = toWeftError({ kind: 'other' }, new TypeError('bad JSON'), CONTEXT);
    expect(other.code).toBe('PROVIDER');
    expect(other.retryable).toBe(false);
    expect(other.message).toContain('bad JSON');
  });
});
