/**
 * Wraps a worker's model so every call of one job is recorded for the coordinator, numbered per (purpose, key,
 * attempt) exactly as the coordinator's metered model numbers them (the `sim:` model seeds on that number).
 */
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import { wrapModel } from '../llm/wrap-model.js';
import { callModelName, callSequencer, recordedToolCalls, type RemoteCall } from '../runtime/metered-model.js';

export interface RecordingOptions {
  /** The arguments of tool calls as recorded (secret ones redacted). */
  readonly redactToolArgs?: (name: string, args: unknown) => unknown;
  /** Awaited after each call is recorded (the job's journal). */
  readonly onCall?: (call: RemoteCall) => Promise<void>;
}

/** A call found in `replay` (by `callKey`) is answered from it, and not recorded: the coordinator has it. */
export function recordingModel(
  model: ChatModel,
  calls: RemoteCall[],
  replay: ReadonlyMap<string, ChatResult> = new Map(),
  recording: RecordingOptions = {},
): ChatModel {
  const identify = callSequencer();
  return wrapModel(model, {
    async wrapGenerate({ call, signal, next }) {
      const { purpose, identity: numbered, tagged, key } = identify(call);
      const recorded = replay.get(key);
      if (recorded) return recorded;
      const identity = { purpose, ...numbered };
      const started = performance.now();
      try {
        const result = await next(tagged, signal);
        const recorded: RemoteCall = {
          ...identity,
          text: result.text,
          ...recordedToolCalls(result, recording.redactToolArgs),
          inputTokens: result.usage.inputTokens,
          outputTokens: result.usage.outputTokens,
          model: callModelName(model.id, result.model),
          durationMs: Math.round(performance.now() - started),
        };
        calls.push(recorded);
        await recording.onCall?.(recorded);
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
  });
}
