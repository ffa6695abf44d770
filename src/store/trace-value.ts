/**
 * A value a model or a tool produced, as a trace keeps it. A model can send tool arguments (or an
 * answer) of any size and depth, and a tool's result can nest as deep as its byte limit allows: kept whole, a
 * 5,000-level argument made the whole trace unstorable (json-blobs.ts refuses past 512 levels), and a trace nested
 * past 100 levels could not be read back by `weft distill --traces` (input files nest at most 100 levels). Such a
 * value is kept as text that says what it was, so the trace and every call in it are still saved.
 */
import { MAX_NESTING_DEPTH } from '../text/nesting-depth.js';

/** Levels a kept value may nest: an input file's limit less the levels of a traces file around it. */
export const MAX_TRACE_VALUE_DEPTH = MAX_NESTING_DEPTH - 10;
/** Characters of JSON kept of a model's tool arguments; longer ones are cut (the trace notes their length). */
export const MAX_TRACE_ARGS_CHARS = 100_000;

/** Whether `value` nests deeper than `limit` levels (a scalar: 0), without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * `value` as a trace keeps it: as is, or — nested deeper than MAX_TRACE_VALUE_DEPTH, or (with `maxChars`) longer
 * than that as JSON — a string saying so (with the start of the JSON, when it could be written).
 */
export function traceValue(value: unknown, maxChars?: number): unknown {
  if (nestsDeeperThan(value, MAX_TRACE_VALUE_DEPTH)) {
    return `[not kept: nested deeper than ${MAX_TRACE_VALUE_DEPTH} levels]`;
  }
  if (maxChars === undefined) return value;
  const json = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  if (json.length <= maxChars) return value;
  return `${json.slice(0, maxChars)}… [cut: ${json.length.toLocaleString('en-US')} characters]`;
}
