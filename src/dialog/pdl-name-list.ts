/**
 * Lists of names in a PDL file (request, response, precondition), in every form found in the wild: a YAML list, a
 * comma string (`"a, b"`, also `"[a, b]"` or `"['a', 'b']"`), a single name, or none (`None`, null, `[]`).
 * Parsing reports through the caller's `report`, located at the item (or at the string holding it).
 */
import { describeValue } from '../text/describe-value.js';
import type { FieldPath } from '../text/source-locator.js';
import type { PdlProblem } from './pdl.js';
import { MAX_PDL_NAME_LENGTH } from './pdl-keys.js';
import { looksLikeCondition } from '../text/result-condition.js';

/** Names in one request, response or precondition. */
export const MAX_PDL_LIST_ITEMS = 200;

export type PdlReport = (severity: PdlProblem['severity'], path: FieldPath, message: string) => void;

/** One entry of a list as written: its text and where it is; `index` is its place in a YAML list (none in a string). */
export interface PdlListItem {
  readonly text: string;
  readonly path: FieldPath;
  readonly index?: number;
}

const NONE = /^(?:none|null|nil|\[\s*\]|-)?$/i;
const QUOTES = /^['"‘’“”]|['"‘’“”]$/g;

/**
 * Visits the entries of a list in order, trimmed, with `None`-like ones left out; what is not text is reported and
 * left out (in order with what `visit` reports).
 */
export function forEachListItem(
  value: unknown,
  path: FieldPath,
  report: PdlReport,
  visit: (item: PdlListItem) => void,
): void {
  if (value === undefined || value === null) return;
  let items: { text: unknown; path: FieldPath; index?: number }[];
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (NONE.test(trimmed)) return;
    const inner = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
    items = splitOutsideQuotes(inner)
      .map((part) => unquote(part.trim()))
      .filter((part) => part !== '')
      .map((text) => ({ text, path }));
  } else if (Array.isArray(value)) {
    items = value.map((text: unknown, index) => ({ text, path: [...path, index], index }));
  } else {
    report('error', path, `expected a list of names (or "a, b"), got ${describeValue(value)}`);
    return;
  }
  if (items.length > MAX_PDL_LIST_ITEMS) {
    report('error', path, `lists ${items.length} names; at most ${MAX_PDL_LIST_ITEMS}`);
    return;
  }
  for (const item of items) {
    if (typeof item.text !== 'string' || item.text.trim() === '') {
      if (item.text !== null) report('error', item.path, `expected a name, got ${describeValue(item.text)}`);
      continue;
    }
    const text = item.text.trim();
    if (NONE.test(text)) continue;
    visit({ text, path: item.path, ...(item.index === undefined ? {} : { index: item.index }) });
  }
}

/** Whether an item is a new name: too long a name is an error, a name listed again a warning. */
export function uniqueNameCheck(report: PdlReport): (item: PdlListItem) => boolean {
  const seen = new Set<string>();
  return (item) => {
    if (item.text.length > MAX_PDL_NAME_LENGTH) {
      report('error', item.path, `a name of ${item.text.length} characters; at most ${MAX_PDL_NAME_LENGTH}`);
      return false;
    }
    if (seen.has(item.text)) {
      report('warning', item.path, `lists "${item.text}" twice`);
      return false;
    }
    seen.add(item.text);
    return true;
  };
}

/** A list of names, each once. */
export function nameList(value: unknown, path: FieldPath, report: PdlReport): string[] {
  const names: string[] = [];
  const isNew = uniqueNameCheck(report);
  forEachListItem(value, path, report, (item) => {
    if (isNew(item)) names.push(item.text);
  });
  return names;
}

/**
 * Quotes around a name in a comma string (`'a'`) are not part of it. A condition keeps its own quotes
 * (`check.ok == "yes"`) and loses only a pair around the whole of it.
 */
function unquote(part: string): string {
  if (!looksLikeCondition(part)) return part.replace(QUOTES, '');
  const first = part[0] as string;
  const inner = part.slice(1, -1);
  // `'a == "x"'` → `a == "x"`; `"x" == "y"`, which merely starts and ends with a quote, is kept.
  return part.length >= 2 && (first === "'" || first === '"') && part.endsWith(first) && !inner.includes(first)
    ? inner
    : part;
}

/** Splits on commas that are not inside '…' or "…" (a condition's text may hold a comma). */
function splitOutsideQuotes(text: string): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (quote !== undefined) {
      if (char === '\\' && quote === '"') at++;
      else if (char === quote) quote = undefined;
    } else if ((char === '"' || char === "'") && afterOperator(text, at, start)) {
      // Only a condition's value (right after its operator) opens a string: a name list's own quotes (`'a', 'b'`)
      // are stripped later.
      quote = char;
    } else if (char === ',') {
      parts.push(text.slice(start, at));
      start = at + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Whether the last character before `at` (back to `start`, spaces skipped) ends an operator: `=`, `<` or `>`. */
function afterOperator(text: string, at: number, start: number): boolean {
  let back = at - 1;
  while (back >= start && (text[back] === ' ' || text[back] === '\t')) back--;
  return back >= start && (text[back] === '=' || text[back] === '<' || text[back] === '>');
}
