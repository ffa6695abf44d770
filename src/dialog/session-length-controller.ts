/**
 * Conversation length: past `maxTurns` user turns the bot is steered to close the conversation (soft
 * guidance); the engine ends the session after the reply of the turn past the limit.
 */
import type { Controller } from './controller.js';

export const SESSION_LENGTH_CONTROLLER = 'session-length';
export const DEFAULT_MAX_TURNS = 20;

export function sessionLengthController(maxTurns = DEFAULT_MAX_TURNS): Controller {
  return {
    name: SESSION_LENGTH_CONTROLLER,
    pre({ state }) {
      if (state.turn < maxTurns) return undefined;
      return `The conversation has reached its limit of ${maxTurns} turns: do not start anything new; summarise what was done, say what is left, and close the conversation politely in this reply.`;
    },
  };
}
