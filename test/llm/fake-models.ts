/** Hand-driven models for the resilience tests. */
import type { ChatCall, ChatModel, ChatResult } from '../../src/llm/chat-model.js';

export const okResult = (text = 'ok'): ChatResult => ({
  text,
  usage: { inputTokens: 1, outputTokens: 1 },
  model: 'fake',
});

export const simpleCall: ChatCall = { messages: [{ role: 'user', content: 'hi' }] };

/** Answers with the next outcome of the list (an Error is thrown); records each call's signal. */
export function sequenceModel(
  outcomes: readonly (string | Error)[],
): ChatModel & { signals: (AbortSignal | undefined)[]; calls: ChatCall[] } {
  let index = 0;
  const signals: (AbortSignal | undefined)[] = [];
  const calls: ChatCall[] = [];
  return {
    id: 'fake:sequence',
    kind: 'real',
    signals,
    calls,
    async generate(call, signal) {
      signals.push(signal);
      calls.push(call);
      const outcome = outcomes[Math.min(index++, outcomes.length - 1)]!;
      if (outcome instanceof Error) throw outcome;
      return okResult(outcome);
    },
  };
}

interface Pending {
  readonly signal: AbortSignal | undefined;
  resolve(text: string): void;
  reject(error: unknown): void;
}

/** Every call stays pending until the test settles it; `honourAbort` makes it reject on its signal. */
export function manualModel(
  options: { honourAbort?: boolean } = {},
): ChatModel & { pending: Pending[]; started: number; running: number; maxRunning: number } {
  const state = { pending: [] as Pending[], started: 0, running: 0, maxRunning: 0 };
  return Object.assign(state, {
    id: 'fake:manual',
    kind: 'real' as const,
    generate(_call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      state.started++;
      state.running++;
      state.maxRunning = Math.max(state.maxRunning, state.running);
      return new Promise<ChatResult>((resolve, reject) => {
        const done = (): void => {
          state.running--;
        };
        state.pending.push({
          signal,
          resolve: (text) => {
            done();
            resolve(okResult(text));
          },
          reject: (error) => {
            done();
            reject(error);
          },
        });
        if (options.honourAbort && signal) {
          signal.addEventListener(
            'abort',
            () => {
              done();
              reject(signal.reason);
            },
            { once: true },
          );
        }
      });
    },
  });
}
