/**
 * Keys every call of one benchmark record by the record id, so a seeded model (`sim:`) answers each record the same
 * whatever the order, concurrency or resumption of the run. Counting the record's calls is the runtime meter's job.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { wrapModel } from '../llm/wrap-model.js';

/** `scope` becomes the tag key (`<scope>` or `<scope>/<key>`). */
export function recordScopedModel(model: ChatModel, scope: string): ChatModel {
  return wrapModel(model, {
    transformCall(call) {
      const tag = call.tag ?? { purpose: 'other' as const };
      return { ...call, tag: { ...tag, key: tag.key === undefined ? scope : `${scope}/${tag.key}` } };
    },
  });
}
