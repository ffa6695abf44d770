/**
 * Node dependency (the FlowAgent paper's controller): an API is available only once every API in its `precondition`
 * has returned successfully — a call whose check passed but whose response was an error does not count (the
 * paper's code counted it) — and every condition on a result holds for the latest successful result
 * (unmet-preconditions.ts). Pre: lists what is not yet available and what each still needs. Post: refuses such a
 * call, naming the missing preconditions, the condition and the value the API returned, so it never reaches the API.
 */
import { clip } from '../text/clip.js';
import type { Controller, ControllerContext } from './controller.js';
import { conditionText } from '../text/result-condition.js';
import { latestResults, type UnmetPrecondition, unmetPreconditions } from './unmet-preconditions.js';

export const DEPENDENCY_CONTROLLER = 'dependency';

export function dependencyController(halves: { readonly pre?: boolean; readonly post?: boolean } = {}): Controller {
  const pre = halves.pre ?? true;
  const post = halves.post ?? true;
  return {
    name: DEPENDENCY_CONTROLLER,
    ...(pre
      ? {
          pre({ pdl, state }: ControllerContext) {
            const latest = latestResults(state.calls);
            const blocked = pdl.apis
              .map((api) => ({ api: api.name, unmet: unmetPreconditions(pdl, api.name, latest) }))
              .filter((entry) => entry.unmet.length > 0);
            if (blocked.length === 0) return undefined;
            const lines = blocked.map((entry) => `- ${entry.api} (${needs(entry.unmet).join('; ')})`);
            return `These APIs are not available yet; do not call them until what each needs holds:\n${lines.join('\n')}`;
          },
        }
      : {}),
    ...(post
      ? {
          post(action, { pdl, state }) {
            if (action.kind !== 'tool') return { accepted: true };
            const unmet = unmetPreconditions(pdl, action.name, latestResults(state.calls));
            if (unmet.length === 0) return { accepted: true };
            return {
              accepted: false,
              reason: `${action.name} is not available yet: ${missing(unmet).join('; ')} (the API was not called)`,
            };
          },
        }
      : {}),
  };
}

/** For guidance: `needs a, b first`, `needs check.ok == true, but the latest check returned ok = false`. */
function needs(unmet: readonly UnmetPrecondition[]): string[] {
  const first = notYet(unmet);
  return [
    ...(first ? [`needs ${first} first`] : []),
    ...failing(unmet).map((entry) => `needs ${conditionText(entry.condition)}, but ${returned(entry)}`),
  ];
}

/** For a refusal: `a, b must succeed first`, `check.ok == true does not hold: the latest check returned ok = false`. */
function missing(unmet: readonly UnmetPrecondition[]): string[] {
  const first = notYet(unmet);
  return [
    ...(first ? [`${first} must succeed first`] : []),
    ...failing(unmet).map((entry) => `${conditionText(entry.condition)} does not hold: ${returned(entry)}`),
  ];
}

/** The APIs that have not succeeded, each once, with the conditions their result will have to meet. */
function notYet(unmet: readonly UnmetPrecondition[]): string | undefined {
  const byApi = new Map<string, string[]>();
  for (const entry of unmet) {
    if (entry.kind !== 'not-succeeded') continue;
    const conditions = byApi.get(entry.api) ?? [];
    if (entry.condition) conditions.push(conditionText(entry.condition, { withApi: false }));
    byApi.set(entry.api, conditions);
  }
  if (byApi.size === 0) return undefined;
  return [...byApi]
    .map(([api, conditions]) => (conditions.length > 0 ? `${api} (with ${conditions.join(' and ')})` : api))
    .join(', ');
}

function failing(unmet: readonly UnmetPrecondition[]): Extract<UnmetPrecondition, { kind: 'condition' }>[] {
  return unmet.filter(
    (entry): entry is Extract<UnmetPrecondition, { kind: 'condition' }> => entry.kind === 'condition',
  );
}

function returned(entry: Extract<UnmetPrecondition, { kind: 'condition' }>): string {
  const field = entry.condition.field.join('.');
  const what = entry.found ? `${field} = ${clip(JSON.stringify(entry.actual ?? null), 100)}` : `no ${field}`;
  return `the latest successful ${entry.api} call returned ${what}`;
}
