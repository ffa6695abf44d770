/** A hand-controlled model for executor tests: each purpose answers through a function of the call. */
import type { ChatCall, ChatModel, ChatResult } from '../../src/llm/chat-model.js';

export interface Behaviour {
  execute?: (key: string, attempt: number, call: ChatCall) => string | Promise<string>;
  verify?: (
    key: string,
    attempt: number,
    call: ChatCall,
  ) =>
    | { verdict: 'accept' | 'retry' | 'replan'; reason?: string }
    | Promise<{ verdict: 'accept' | 'retry' | 'replan'; reason?: string }>;
  update?: (call: ChatCall) => unknown;
}

export interface TestModel extends ChatModel {
  readonly calls: ChatCall[];
  count(purpose: string, key?: string): number;
}

export function testModel(behaviour: Behaviour = {}): TestModel {
  const calls: ChatCall[] = [];
  return {
    id: 'test:model',
    kind: 'scripted',
    calls,
    count: (purpose, key) =>
      calls.filter((c) => c.tag?.purpose === purpose && (key === undefined || c.tag.key === key)).length,
    async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      calls.push(call);
      const key = call.tag?.key ?? '';
      const attempt = call.tag?.attempt ?? 1;
      let text: string;
      switch (call.tag?.purpose) {
        case 'execute':
          text = await abortable(
            Promise.resolve(behaviour.execute?.(key, attempt, call) ?? `output of ${key}`),
            signal,
          );
          break;
        case 'verify': {
          const verdict = await (behaviour.verify?.(key, attempt, call) ?? { verdict: 'accept' as const });
          text = JSON.stringify({ reason: '', ...verdict });
          break;
        }
        case 'update':
          text = JSON.stringify((await behaviour.update?.(call)) ?? {});
          break;
        default:
          text = '{}';
      }
      return { text, usage: { inputTokens: 10, outputTokens: 5 }, model: 'test' };
    },
  };
}

/** A promise with its resolve handle, for steering timing by hand. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    promise.then(resolve, reject);
  });
}
