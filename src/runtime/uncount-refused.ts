/**
 * For a meter that counts the calls of a model which has a budget of its own further down (a command's budget
 * scope): a call that budget refused was never made, so it comes off the count again. Without this, a trace or a
 * prediction counted one call more than the command's budget did.
 */
import { isWeftError } from '../errors.js';
import type { ChatModel } from '../llm/chat-model.js';
import { wrapModel } from '../llm/wrap-model.js';
import type { Meter } from './budget.js';

/** `model`, taking a call it refuses with BUDGET off `meter.calls` (which `meteredModel` counted before the call). */
export function uncountRefused(model: ChatModel, meter: Meter): ChatModel {
  return wrapModel(model, {
    async wrapGenerate({ call, signal, next }) {
      try {
        return await next(call, signal);
      } catch (error) {
        if (isWeftError(error) && error.code === 'BUDGET') meter.calls -= 1;
        throw error;
      }
    },
  });
}
