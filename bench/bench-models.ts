/**
 * Models for the benchmarks: one that sleeps each subtask's latency, and one that answers at once. Neither parses
 * prompts; they answer by the call's tag, so the measured time is the engine's, not the model's.
 */
import type { ChatCall, ChatModel, ChatResult } from '../src/llm/chat-model.js';
import type { Span } from './schedule-check.js';
import { sleep } from './sleep.js';

const ACCEPT = '{"verdict":"accept","reason":"ok"}';

function reply(text: string): ChatResult {
  return { text, usage: { inputTokens: 0, outputTokens: 0 }, model: 'bench' };
}

/** Sleeps `latencyMs[key]` on each execute call and records when each sleep really began and ended. */
export function latencyModel(latencyMs: ReadonlyMap<string, number>, spans: Span[] = []): ChatModel {
  return {
    id: 'bench:latency',
    kind: 'sim',
    async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      if (call.tag?.purpose === 'verify') return reply(ACCEPT);
      const id = call.tag?.key ?? '';
      const latency = latencyMs.get(id);
      if (latency === undefined) throw new Error(`No latency for subtask "${id}"`);
      const start = performance.now();
      await sleep(latency, signal);
      spans.push({ id, start, end: performance.now() });
      return reply(`done ${id}`);
    },
  };
}

/** Answers every call immediately: execute with a short text, verify with an accept verdict. */
export function instantModel(): ChatModel {
  const done = Promise.resolve(reply('done'));
  const accepted = Promise.resolve(reply(ACCEPT));
  return {
    id: 'bench:instant',
    kind: 'sim',
    generate(call: ChatCall): Promise<ChatResult> {
      return call.tag?.purpose === 'verify' ? accepted : done;
    },
  };
}
