/**
 * Wraps a worker's model so every call of one job is recorded for the coordinator, numbered per (purpose, key,
 * attempt) exactly as the coordinator's metered model numbers them (the `sim:` model seeds on that number).
 */
import type { ChatCall, ChatModel, ChatResult } from '../llm/chat-model.js';
import { callKey, type RemoteCall } from '../run/metered-model.js';

/** A call found in `replay` (by `callKey`) is answered from it, and not recorded: the coordinator has it. */
export function recordingModel(model: ChatModel, calls: RemoteCall[], replay: ReadonlyMap<string, ChatResult> = new Map()): ChatModel {
  const sequences = new Map<string, number>();
  return {
    id: model.id,
    kind: model.kind,
    async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      const purpose = call.tag?.purpose ?? 'other';
      const series = JSON.stringify([purpose, call.tag?.key ?? null, call.tag?.attempt ?? null]);
      const sequence = sequences.get(series) ?? 0;
      sequences.set(series, sequence + 1);
      const recorded = replay.get(callKey(purpose, call.tag?.key, call.tag?.attempt, sequence));
      if (recorded) return recorded;
      const tag = { ...(call.tag ?? { purpose: 'other' as const }), sequence };
      const identity = { purpose, sequence, ...(tag.key !== undefined ? { key: tag.key } : {}), ...(tag.attempt !== undefined ? { attempt: tag.attempt } : {}) };
      const started = performance.now();
      try {
        const result = await model.generate({ ...call, tag }, signal);
        calls.push({
          ...identity, text: result.text, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens,
          model: result.model, durationMs: Math.round(performance.now() - started),
        });
        return result;
      } catch (error) {
        calls.push({
          ...identity, inputTokens: 0, outputTokens: 0, model: model.id, durationMs: Math.round(performance.now() - started),
          error: error instanceof Error ? error.message : String(error),
        });
        throw error;
      }
    },
  };
}
