/**
 * A `precondition` (or `pre`) of an API or answer: API names, as every variant of docs/pdl.md writes them, and
 * conditions on their results written `api.field <op> value` among them:
 *
 *   precondition: [find_customer, checkAvailability.is_air == "true", quote.price <= 500]
 *
 * A condition's API counts as a precondition too (it must have succeeded), so the dependency graph, its order and
 * its cycles see it. Where each item stands in the file is returned, for problems found later (checkPdl).
 */
import { callNameOf } from './call-name.js';
import type { FieldPath } from '../text/source-locator.js';
import { conditionText, looksLikeCondition, parseResultCondition } from '../text/result-condition.js';
import type { PdlResultCondition } from './pdl.js';
import { forEachListItem, type PdlReport, uniqueNameCheck } from './pdl-name-list.js';

export interface ParsedPrecondition {
  /** The APIs, named or conditioned on, each once, in the order written. */
  readonly precondition: string[];
  readonly conditions: PdlResultCondition[];
  /** The index in the file's list of each API and each condition (undefined: written in a comma string). */
  readonly items: { readonly precondition: (number | undefined)[]; readonly conditions: (number | undefined)[] };
}

export function parsePrecondition(value: unknown, path: FieldPath, report: PdlReport): ParsedPrecondition {
  const precondition: string[] = [];
  const conditions: PdlResultCondition[] = [];
  const items: ParsedPrecondition['items'] = { precondition: [], conditions: [] };
  const isNewName = uniqueNameCheck(report);
  const written = new Set<string>();
  const needs = (api: string, index: number | undefined) => {
    if (precondition.includes(api)) return;
    precondition.push(api);
    items.precondition.push(index);
  };
  forEachListItem(value, path, report, (item) => {
    if (!looksLikeCondition(item.text)) {
      // An API named in free text is called with its spaces as underscores (call-name.ts).
      if (isNewName(item)) needs(callNameOf(item.text), item.index);
      return;
    }
    const parsed = parseResultCondition(item.text);
    if ('error' in parsed) {
      report('error', item.path, `bad condition: ${parsed.error}`);
      return;
    }
    const text = conditionText(parsed.condition);
    if (written.has(text)) {
      report('warning', item.path, `lists the condition ${text} twice`);
      return;
    }
    written.add(text);
    conditions.push(parsed.condition);
    items.conditions.push(item.index);
    needs(parsed.condition.api, item.index);
  });
  return { precondition, conditions, items };
}
