/**
 * Node dependency (SPEC §4.2): an API is available only once every API in its `precondition` has returned
 * successfully — a call whose check passed but whose response was an error does not count (the paper's code counted
 * it). Pre: lists what is not yet available and what each still needs. Post: refuses such a call, naming the
 * missing preconditions, so it never reaches the API.
 */
import type { Controller, ControllerContext } from './controller.js';
import { succeededApis } from './dialog-state.js';
import type { Pdl } from './pdl.js';

export const DEPENDENCY_CONTROLLER = 'dependency';

/** The preconditions of `api` that have not succeeded yet ([] when it is available or not a PDL API). */
export function missingPreconditions(pdl: Pdl, api: string, succeeded: ReadonlySet<string>): string[] {
  const spec = pdl.apis.find((candidate) => candidate.name === api);
  return spec ? spec.precondition.filter((name) => !succeeded.has(name)) : [];
}

export function dependencyController(halves: { readonly pre?: boolean; readonly post?: boolean } = {}): Controller {
  const pre = halves.pre ?? true;
  const post = halves.post ?? true;
  return {
    name: DEPENDENCY_CONTROLLER,
    ...(pre
      ? {
          pre({ pdl, state }: ControllerContext) {
            const succeeded = succeededApis(state);
            const blocked = pdl.apis
              .map((api) => ({ api: api.name, missing: missingPreconditions(pdl, api.name, succeeded) }))
              .filter((entry) => entry.missing.length > 0);
            if (blocked.length === 0) return undefined;
            const lines = blocked.map((entry) => `- ${entry.api} (needs ${entry.missing.join(', ')} first)`);
            return `These APIs are not available yet; do not call them until their preconditions have succeeded:\n${lines.join('\n')}`;
          },
        }
      : {}),
    ...(post
      ? {
          post(action, { pdl, state }) {
            if (action.kind !== 'tool') return { accepted: true };
            const missing = missingPreconditions(pdl, action.name, succeededApis(state));
            if (missing.length === 0) return { accepted: true };
            return {
              accepted: false,
              reason: `${action.name} is not available yet: ${missing.join(', ')} must succeed first (the API was not called)`,
            };
          },
        }
      : {}),
  };
}
