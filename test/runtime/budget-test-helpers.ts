/** Helpers shared by the budget tests: a model that answers only by failing when aborted, and a rejection's code. */
import { isWeftError } from '../../src/errors.js';
import type { ChatCall, ChatModel, ChatResult } from '../../src/llm/chat-model.js';

/** A model that never answers: each call waits until its signal aborts. Counts calls started and aborted. */
export function hangingModel(): ChatModel & { readonly started: number; readonly aborted: number } {
  let started = 0;
  let aborted = 0;
  return {
    id: 'test:hanging',
    kind: 'scripted',
    get started() {
      return started;
    },
    get aborted() {
      return aborted;
    },
    generate(_call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      started += 1;
      return new Promise((_resolve, reject) =>
        signal?.addEventListener(
          'abort',
          () => {
            aborted += 1;
            reject(signal.reason);
          },
          { once: true },
        ),
      );
    },
  };
}

/** The WeftError a promise rejects with, as code, message and field; fails the test when it resolves instead. */
export async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string; field?: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isWeftError(error)) throw new Error(`expected a WeftError, got ${String(error)}`);
  return {
    code: error.code,
    message: error.message,
    ...(error.location?.field ? { field: error.location.field } : {}),
  };
}
