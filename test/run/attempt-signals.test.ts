/**
 * Each attempt's abort signal is its own: an abort meant for one running attempt never reaches work an earlier,
 * finished attempt left listening (the executor reuses the controllers of attempts that settled cleanly).
 */
import { describe, expect, it } from 'vitest';
import type { ChatCall, ChatModel, ChatResult } from '../../src/llm/chat-model.js';
import { diamond, run, tick } from './execution-harness.js';

/** Executes `a` at once and leaves a listener on its signal; `b` and `c` wait until their signal aborts. */
function strayListenerModel(fired: string[], signals: Map<string, AbortSignal>): ChatModel {
  return {
    id: 'test:stray',
    kind: 'scripted',
    async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      const key = call.tag?.key ?? '';
      const usage = { inputTokens: 1, outputTokens: 1 };
      if (call.tag?.purpose === 'verify') return { text: '{"verdict":"accept","reason":""}', usage, model: 'test' };
      if (signal) signals.set(key, signal);
      if (key === 'a') {
        // Work of a's that outlives its attempt (a stray timer, say) and still listens.
        signal?.addEventListener('abort', () => fired.push('a'));
        return { text: 'out a', usage, model: 'test' };
      }
      return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
    },
  };
}

describe('attempt signals', () => {
  it('a cancel aborts the running attempts and nothing a finished attempt left listening', async () => {
    const fired: string[] = [];
    const signals = new Map<string, AbortSignal>();
    const cancel = new AbortController();
    const { promise } = run(diamond(), { model: strayListenerModel(fired, signals), signal: cancel.signal });
    for (let i = 0; i < 10 && !(signals.has('b') && signals.has('c')); i++) await tick();
    expect([...signals.keys()].sort()).toEqual(['a', 'b', 'c']);
    cancel.abort();
    const result = await promise;
    expect(result.status).toBe('cancelled');
    expect(signals.get('b')?.aborted).toBe(true);
    expect(signals.get('c')?.aborted).toBe(true);
    expect(signals.get('a')?.aborted).toBe(false);
    expect(fired).toEqual([]);
  });

  it('an attempt that settled with nothing listening lends its controller to a later attempt, unaborted', async () => {
    const signals: AbortSignal[] = [];
    const model: ChatModel = {
      id: 'test:plain',
      kind: 'scripted',
      async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
        if (call.tag?.purpose === 'execute' && signal) signals.push(signal);
        const text = call.tag?.purpose === 'verify' ? '{"verdict":"accept","reason":""}' : 'out';
        return { text, usage: { inputTokens: 1, outputTokens: 1 }, model: 'test' };
      },
    };
    const { promise } = run(diamond(), { model });
    expect((await promise).status).toBe('completed');
    expect(signals).toHaveLength(4);
    expect(signals.every((signal) => !signal.aborted)).toBe(true);
    // a settles before b and c start, and d after them: fewer controllers than attempts.
    expect(new Set(signals).size).toBeLessThan(4);
  });
});
