/**
 * Whether a proposed tool call's arguments are too large or too deep to run and record (bad input from
 * the model). Depth is measured before anything serialises the value, so a value nested a million deep costs
 * at most MAX_TOOL_ARGS_DEPTH levels of recursion.
 */
import { MAX_TOOL_ARGS_BYTES, MAX_TOOL_ARGS_DEPTH } from './conversation-limits.js';

export function toolArgsProblem(args: unknown): string | undefined {
  if (tooDeep(args, 0)) return `the arguments nest deeper than ${MAX_TOOL_ARGS_DEPTH} levels`;
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(args) ?? '', 'utf8');
  } catch {
    return 'the arguments are not JSON';
  }
  if (bytes > MAX_TOOL_ARGS_BYTES) {
    return `the arguments are ${bytes.toLocaleString('en-US')} bytes of JSON; at most ${MAX_TOOL_ARGS_BYTES.toLocaleString('en-US')} are accepted`;
  }
  return undefined;
}

/** Whether collections in the value nest more than `limit` deep (recursion stops at the limit). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  return tooDeep(value, 0, limit);
}

function tooDeep(value: unknown, depth: number, limit = MAX_TOOL_ARGS_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth >= limit) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    if (tooDeep(child, depth + 1, limit)) return true;
  }
  return false;
}
