/**
 * Finding JSON in what models actually write (docs/algorithms.md#parsing-model-output): prose around it, code fences,
 * several objects, trailing commas, truncation. Order of preference: the whole text as JSON → each JSON object/array
 * found in the text → the same repaired with `jsonrepair`.
 */
import { jsonrepair } from 'jsonrepair';

export type LooseJsonResult = { ok: true; value: unknown } | { ok: false; error: string };

/** One JSON value found in a text, and how it was obtained. */
export interface JsonValueCandidate {
  readonly value: unknown;
  /** `whole`: the text is JSON. `candidate`: an extracted span parsed as is. `repaired`: needed jsonrepair. */
  readonly source: 'whole' | 'candidate' | 'repaired';
  /** The text that was parsed (before repair). */
  readonly text: string;
}

/** Scanning stops after this many character visits; pathological texts (thousands of unclosed braces) stay fast. */
const SCAN_BUDGET = 5_000_000;

const FENCE = /```[ \t]*(?:json5?|jsonc)\b[^\n]*\n([\s\S]*?)(?:```|$)/gi;

/**
 * JSON-looking spans of a text, in order: the contents of ```json fences first, then every balanced
 * top-level `{…}` / `[…]` span (brackets inside strings and escapes are respected). Spans are not checked
 * for validity; duplicates are dropped.
 */
export function extractJsonCandidates(text: string): string[] {
  const seen = new Set<string>();
  const candidates: string[] = [];
  const add = (candidate: string): void => {
    const trimmed = candidate.trim();
    if (trimmed === '' || seen.has(trimmed)) return;
    seen.add(trimmed);
    candidates.push(trimmed);
  };
  for (const match of text.matchAll(FENCE)) add(match[1] ?? '');
  for (const [start, end] of scanBalanced(text).spans) add(text.slice(start, end));
  return candidates;
}

/** The first JSON value in the text: plain parse, then extracted candidates, then repaired ones. */
export function parseJsonLoose(text: string): LooseJsonResult {
  const values = parseJsonValues(text);
  const first = values[0];
  if (first) return { ok: true, value: first.value };
  return { ok: false, error: describeJsonFailure(text) };
}

/**
 * Every distinct JSON value the text yields, best first: the whole text if it is JSON (then only that);
 * otherwise each candidate that parses as is, then each candidate that parses after repair, then the
 * repaired tail from an unclosed `{`/`[` (truncated output), then the whole text repaired when it starts
 * with `{` or `[`. Repairs count only when they give an object or array, so prose never "parses".
 */
export function parseJsonValues(text: string): JsonValueCandidate[] {
  const whole = tryParse(text.trim());
  if (whole.ok) return [{ value: whole.value, source: 'whole', text }];

  const seen = new Set<string>();
  const values: JsonValueCandidate[] = [];
  const add = (candidate: JsonValueCandidate): void => {
    const key = stableKey(candidate.value);
    if (seen.has(key)) return;
    seen.add(key);
    values.push(candidate);
  };

  const candidates = extractJsonCandidates(text);
  const unparsed: string[] = [];
  for (const candidate of candidates) {
    const parsed = tryParse(candidate);
    if (parsed.ok) add({ value: parsed.value, source: 'candidate', text: candidate });
    else unparsed.push(candidate);
  }
  for (const candidate of unparsed) {
    const repaired = tryRepair(candidate);
    if (repaired.ok && isStructured(repaired.value))
      add({ value: repaired.value, source: 'repaired', text: candidate });
  }
  const { unclosedStart } = scanBalanced(text);
  if (unclosedStart !== undefined) {
    const tail = text.slice(unclosedStart).replace(/```\s*$/, '');
    const repaired = tryRepair(tail);
    if (repaired.ok && isStructured(repaired.value)) add({ value: repaired.value, source: 'repaired', text: tail });
  }
  // Only a text that starts like JSON: jsonrepair happily turns "Sorry, no." into ["Sorry", "no."].
  if (/^\s*[[{]/.test(text)) {
    const repairedWhole = tryRepair(text);
    if (repairedWhole.ok && isStructured(repairedWhole.value))
      add({ value: repairedWhole.value, source: 'repaired', text });
  }
  return values;
}

/** Why nothing in the text parsed, phrased for a re-prompt. */
function describeJsonFailure(text: string): string {
  const candidates = extractJsonCandidates(text);
  const primary = candidates[0] ?? (/^\s*[[{]/.test(text) ? text.trim() : undefined);
  if (primary === undefined) {
    const { unclosedStart } = scanBalanced(text);
    if (unclosedStart !== undefined) return 'the JSON is incomplete: a `{` or `[` is never closed';
    return 'no JSON object or array found in the reply';
  }
  const parsed = tryParse(primary);
  return parsed.ok ? 'the JSON could not be used' : `invalid JSON: ${parsed.error}`;
}

interface ScanResult {
  readonly spans: (readonly [number, number])[];
  /** Where the first `{`/`[` that is never closed starts, if any. */
  readonly unclosedStart: number | undefined;
}

function scanBalanced(text: string): ScanResult {
  const spans: (readonly [number, number])[] = [];
  let unclosedStart: number | undefined;
  const budget = { steps: 0 };
  let index = 0;
  while (index < text.length && budget.steps < SCAN_BUDGET) {
    const char = text[index];
    if (char !== '{' && char !== '[') {
      index++;
      continue;
    }
    const end = scanSpan(text, index, budget);
    if (end >= 0) {
      spans.push([index, end + 1]);
      index = end + 1;
    } else {
      if (end === UNCLOSED && unclosedStart === undefined) unclosedStart = index;
      index++;
    }
  }
  return { spans, unclosedStart };
}

const UNCLOSED = -1;
const MISMATCHED = -2;

/** The index of the bracket closing the one at `start`, or UNCLOSED / MISMATCHED. */
function scanSpan(text: string, start: number, budget: { steps: number }): number {
  const expected: string[] = [];
  let inString = false;
  let escaped = false;
  for (let index = start; index < text.length; index++) {
    budget.steps++;
    const char = text[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    switch (char) {
      case '"':
        inString = true;
        break;
      case '{':
        expected.push('}');
        break;
      case '[':
        expected.push(']');
        break;
      case '}':
      case ']':
        if (expected.pop() !== char) return MISMATCHED;
        if (expected.length === 0) return index;
        break;
      default:
        break;
    }
  }
  return UNCLOSED;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function tryRepair(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(jsonrepair(text)) as unknown };
  } catch {
    return { ok: false };
  }
}

function isStructured(value: unknown): boolean {
  return value !== null && typeof value === 'object';
}

function stableKey(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}
