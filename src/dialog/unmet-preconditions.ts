/**
 * Whether an API's preconditions hold, by one rule for everything that asks — the dependency controller, the
 * engine's `preconditionsMet` on each executed call, and the session metrics' violations:
 * - a precondition API holds once a call of it has returned successfully (a failed or interrupted call does not
 *   count);
 * - a result condition (`checkAvailability.is_air == "true"`) holds when the *latest successful* call of its API
 *   returned a result that meets it: a later "no" withdraws an earlier "yes", and a failed call changes nothing,
 *   since it returned no result.
 * Pure.
 */
import type { JsonValue } from '../tools/tool.js';
import type { Pdl, PdlResultCondition } from './pdl.js';
import { judgeCondition } from '../text/result-condition.js';

/** A precondition of an API that does not hold (yet). */
export type UnmetPrecondition =
  /** `api` has not returned successfully; `condition`, when the precondition is a condition on its result. */
  | { readonly kind: 'not-succeeded'; readonly api: string; readonly condition?: PdlResultCondition }
  /** `api` succeeded, but its latest result does not meet `condition`: `actual` is what the field held. */
  | {
      readonly kind: 'condition';
      readonly api: string;
      readonly condition: PdlResultCondition;
      readonly found: boolean;
      readonly actual?: unknown;
    };

/** The latest successful result of each API that returned successfully (null when it returned nothing). */
export function latestResults(
  calls: Iterable<{ readonly name: string; readonly ok: boolean; readonly result?: JsonValue }>,
): Map<string, JsonValue> {
  const latest = new Map<string, JsonValue>();
  for (const call of calls) if (call.ok) latest.set(call.name, call.result ?? null);
  return latest;
}

/** The preconditions of `api` that do not hold, given the latest results ([] when all do or it is not an API). */
export function unmetPreconditions(
  pdl: Pick<Pdl, 'apis'>,
  api: string,
  latest: ReadonlyMap<string, JsonValue>,
): UnmetPrecondition[] {
  const spec = pdl.apis.find((candidate) => candidate.name === api);
  if (!spec) return [];
  const unmet: UnmetPrecondition[] = [];
  for (const name of spec.precondition) {
    if (!latest.has(name)) unmet.push({ kind: 'not-succeeded', api: name });
  }
  for (const condition of spec.conditions ?? []) {
    if (!latest.has(condition.api)) {
      unmet.push({ kind: 'not-succeeded', api: condition.api, condition });
      continue;
    }
    const judgement = judgeCondition(condition, latest.get(condition.api));
    if (judgement.holds) continue;
    unmet.push({
      kind: 'condition',
      api: condition.api,
      condition,
      found: judgement.found,
      ...(judgement.found ? { actual: judgement.actual } : {}),
    });
  }
  return unmet;
}
