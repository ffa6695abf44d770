/**
 * A model that counts its calls and tokens for one stage of distillation and stops the stage's loop when the step
 * budget is spent or the workflow is finished: the call is then not made, and `StopLoop` (caught by the stage)
 * comes out of `runToolLoop` or `generateStructured`. So `maxSteps` is an exact deadline, and no call is spent after
 * an accepted `finish`.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { wrapModel } from '../llm/wrap-model.js';

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
  const counted = wrapModel(model, {
    async wrapGenerate({ call, signal, next }) {
      if (stopped()) throw new StopLoop('finished');
      if (calls >= maxCalls) throw new StopLoop('deadline');
      calls++;
      const result = await next(call, signal);
      inputTokens += result.usage.inputTokens;
      outputTokens += result.usage.outputTokens;
      return result;
    },
  });
  // The wrapped model's generate does not use `this`, so spreading it keeps it working.
  return {
    ...counted,
    get calls() {
      return calls;
    },
    get inputTokens() {
      return inputTokens;
    },
    get outputTokens() {
      return outputTokens;
    },
  };
}
