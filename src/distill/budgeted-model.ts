/**
 * A model that counts its calls and tokens for one stage of distillation and stops the stage's loop when the step
 * budget is spent or the workflow is finished: the call is then not made, and `StopLoop` (caught by the stage)
 * comes out of `runToolLoop` or `generateStructured`. So `maxSteps` is an exact deadline, and no call is spent after
 * an accepted `finish`.
 */
import type { ChatCall, ChatModel, ChatResult } from '../llm/chat-model.js';

export class StopLoop extends Error {
  constructor(readonly reason: 'deadline' | 'finished') {
    super(`distillation loop stopped: ${reason}`);
  }
}

export interface BudgetedModel extends ChatModel {
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export function budgetedModel(model: ChatModel, maxCalls: number, stopped: () => boolean): BudgetedModel {
  let calls = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  return {
    id: model.id,
    kind: model.kind,
    ...(model.toolCalling ? { toolCalling: model.toolCalling } : {}),
    get calls() {
      return calls;
    },
    get inputTokens() {
      return inputTokens;
    },
    get outputTokens() {
      return outputTokens;
    },
    async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      if (stopped()) throw new StopLoop('finished');
      if (calls >= maxCalls) throw new StopLoop('deadline');
      calls++;
      const result = await model.generate(call, signal);
      inputTokens += result.usage.inputTokens;
      outputTokens += result.usage.outputTokens;
      return result;
    },
  };
}
