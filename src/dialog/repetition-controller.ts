/**
 * API repetition: a call of the same API with the same arguments — compared as canonical JSON, not as whole message
 * strings as in the paper's code — is judged against the calls already made, by one of three rules:
 * - `safe` (the default): an API that is not idempotent (its tool does not say calling twice is calling once, or it
 *   has no tool) is never called again with the same arguments after a call that succeeded or whose outcome is
 *   unknown (interrupted, timed out): renewing a loan twice is worse than asking the user. Failed calls, and every
 *   call of an idempotent API, count against `limit`.
 * - `count`: every API may run `limit` times with the same arguments; the next such call is refused.
 * - `paper`: the FlowAgent paper's rule: a call identical to the last call made is refused, whatever came before.
 * Failed calls count under `safe` and `count`: asking again with the same arguments will not change the answer.
 */
import { canonicalJson } from '../text/canonical-json.js';
import { clip } from '../text/clip.js';
import type { Controller } from './controller.js';
import type { ApiCallRecord } from './dialog-state.js';
import type { RepetitionRule } from './pdl.js';

export const REPETITION_CONTROLLER = 'repetition';
export const DEFAULT_REPETITION_LIMIT = 2;
export const DEFAULT_REPETITION_RULE: RepetitionRule = 'safe';

export interface RepetitionOptions {
  /** Calls with the same arguments allowed under `safe` (idempotent APIs and failed calls) and `count` (default 2). */
  readonly limit?: number;
  readonly rule?: RepetitionRule;
}

/** `repetitionController(3)` is short for `repetitionController({ limit: 3 })`. */
export function repetitionController(options: number | RepetitionOptions = {}): Controller {
  const { limit = DEFAULT_REPETITION_LIMIT, rule = DEFAULT_REPETITION_RULE } =
    typeof options === 'number' ? { limit: options } : options;
  return {
    name: REPETITION_CONTROLLER,
    post(action, { state, idempotentApis }) {
      if (action.kind !== 'tool') return { accepted: true };
      const key = canonicalJson(action.args);
      const same = (call: ApiCallRecord) => call.name === action.name && canonicalJson(call.args) === key;
      if (rule === 'paper') {
        const last = state.calls[state.calls.length - 1];
        if (!last || !same(last)) return { accepted: true };
        return {
          accepted: false,
          reason: `${action.name} was just called with these arguments (${outcomeOf(last)}); use that result or do something else (the API was not called)`,
        };
      }
      const earlier = state.calls.filter(same);
      if (rule === 'safe' && idempotentApis?.has(action.name) !== true) {
        const done = findLast(earlier, (call) => call.ok || call.unknownOutcome === true);
        if (done) return { accepted: false, reason: notAgain(action.name, done, idempotentApis) };
      }
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

/** Why a non-idempotent call is not made again, and what the bot can do instead. */
function notAgain(name: string, done: ApiCallRecord, idempotentApis: ReadonlySet<string> | undefined): string {
  const again = [...(idempotentApis ?? [])].filter((api) => api !== name).slice(0, 3);
  const check = `check with an API that reads the state first${again.length > 0 ? ` (${again.join(', ')} may be called again)` : ''}`;
  if (done.ok) {
    return `${name} already succeeded with these arguments in turn ${done.turn} (it returned ${clip(JSON.stringify(done.result ?? null), 200)}); it is not idempotent, so calling it again would do it a second time. Use that result and tell the user; if they want it done again, ask what should differ (the API was not called)`;
  }
  return `${name} was already called with these arguments in turn ${done.turn} and its outcome is unknown (${clip(done.error ?? 'interrupted', 200)}); it is not idempotent, so calling it again could do it twice. Tell the user it may already have gone through, and ${check} (the API was not called)`;
}

function outcomeOf(call: ApiCallRecord): string {
  if (call.ok) return 'it already answered';
  return call.unknownOutcome ? 'its outcome is unknown' : `it failed: ${call.error ?? 'error'}`;
}

function findLast<T>(items: readonly T[], test: (item: T) => boolean): T | undefined {
  for (let index = items.length - 1; index >= 0; index--) if (test(items[index] as T)) return items[index];
  return undefined;
}
