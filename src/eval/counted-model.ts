/**
 * Wraps a model for one benchmark record: counts its calls and tokens (the K-candidate planner costs K calls a
 * record, the baseline one) and keys every call by the record id, so a seeded model (`sim:`) answers each
 * record the same whatever the order, concurrency or resumption of the run.
 */
import type { ChatCall, ChatModel, ChatResult } from '../llm/chat-model.js';

export interface CallCount {
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

export interface CountedModel {
  readonly model: ChatModel;
  readonly count: CallCount;
}

/** `scope` becomes the tag key (`<scope>` or `<scope>/<key>`); failed calls count as calls without tokens. */
export function countedModel(model: ChatModel, scope: string): CountedModel {
  const count: CallCount = { calls: 0, inputTokens: 0, outputTokens: 0 };
  return {
    count,
    model: {
      id: model.id,
      kind: model.kind,
      ...(model.toolCalling ? { toolCalling: model.toolCalling } : {}),
      async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
        const tag = call.tag ?? { purpose: 'other' as const };
        const scoped: ChatCall = {
          ...call,
          tag: { ...tag, key: tag.key === undefined ? scope : `${scope}/${tag.key}` },
        };
        count.calls += 1;
        const result = await model.generate(scoped, signal);
        count.inputTokens += result.usage.inputTokens;
        count.outputTokens += result.usage.outputTokens;
        return result;
      },
    },
  };
}
