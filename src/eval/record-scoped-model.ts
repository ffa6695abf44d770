/**
 * Keys every call of one benchmark record by the record id, so a seeded model (`sim:`) answers each record the same
 * whatever the order, concurrency or resumption of the run. Counting the record's calls is the runtime meter's job.
 */
import type { ChatCall, ChatModel, ChatResult } from '../llm/chat-model.js';

/** `scope` becomes the tag key (`<scope>` or `<scope>/<key>`). */
export function recordScopedModel(model: ChatModel, scope: string): ChatModel {
  return {
    id: model.id,
    kind: model.kind,
    ...(model.toolCalling ? { toolCalling: model.toolCalling } : {}),
    generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      const tag = call.tag ?? { purpose: 'other' as const };
      return model.generate(
        { ...call, tag: { ...tag, key: tag.key === undefined ? scope : `${scope}/${tag.key}` } },
        signal,
      );
    },
  };
}
