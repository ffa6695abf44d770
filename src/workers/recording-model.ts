/**
 * Wraps a worker's model so every call of one job is recorded for the coordinator, numbered per (purpose, key,
 * attempt) exactly as the coordinator's metered model numbers them (the `sim:` model seeds on that number).
 */
import type { ChatCall, ChatModel, ChatResult } from '../llm/chat-model.js';
import { callModelName, callSequencer, type RemoteCall } from '../run/metered-model.js';

/** A call found in `replay` (by `callKey`) is answered from it, and not recorded: the coordinator has it. */
export function recordingModel(
  model: ChatModel,
  calls: RemoteCall[],
  replay: ReadonlyMap<string, ChatResult> = new Map(),
): ChatModel {
  const identify = callSequencer();
  return {
    id: model.id,
    kind: model.kind,
    async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      const { purpose, identity: numbered, tagged, key } = identify(call);
      const recorded = replay.get(key);
      if (recorded) return recorded;
      const identity = { purpose, ...numbered };
      const started = performance.now();
      try {
        const result = await model.generate(tagged, signal);
        calls.push({
          ...identity,
          text: result.text,
          inputTokens: result.usage.inputTokens,
          outputTokens: result.usage.outputTokens,
          model: callModelName(model.id, result.model),
          durationMs: Math.round(performance.now() - started),
        });
        return result;
      } catch (error) {
        calls.push({
          ...identity,
          inputTokens: 0,
          outputTokens: 0,
          model: callModelName(model.id),
          durationMs: Math.round(performance.now() - started),
          error: error instanceof Error ? error.message : String(error),
        });
        throw error;
      }
    },
  };
}
