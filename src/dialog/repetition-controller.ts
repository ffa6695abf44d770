/**
 * API repetition (SPEC §4.2): the same API with the same arguments — compared as canonical JSON, not as whole
 * message strings as in the paper's code — may run `limit` times; the next such call is refused. Failed calls count
 * too: asking again with the same arguments will not change the answer.
 */
import { canonicalJson } from '../text/canonical-json.js';
import type { Controller } from './controller.js';

export const REPETITION_CONTROLLER = 'repetition';
export const DEFAULT_REPETITION_LIMIT = 2;

export function repetitionController(limit = DEFAULT_REPETITION_LIMIT): Controller {
  return {
    name: REPETITION_CONTROLLER,
    post(action, { state }) {
      if (action.kind !== 'tool') return { accepted: true };
      const key = canonicalJson(action.args);
      const earlier = state.calls.filter((call) => call.name === action.name && canonicalJson(call.args) === key);
      if (earlier.length < limit) return { accepted: true };
      const last = earlier[earlier.length - 1];
      const outcome = last?.ok ? 'it already answered' : `it failed: ${last?.error ?? 'error'}`;
      return {
        accepted: false,
        reason: `${action.name} was already called ${earlier.length} times with these arguments (${outcome}); use that result or ask the user for different details (the API was not called)`,
      };
    },
  };
}
