/**
 * Which APIs of a procedure's text lie on a side branch, as the sim bot reads the procedure in its prompt: an API
 * called only inside `except …:` blocks is for when a call of its `try:` failed (register a patient that was not
 * found); one called only inside `if <condition>:` blocks (and maybe `except` blocks) is optional, done when the
 * user asked for it. Everything else — the main line, `try:`, `while`, `else:` bodies, and APIs the text does not
 * name — is the main path. Indentation gives the blocks (the text is pseudocode, not Python); comments and strings
 * are blanked first (scan-procedure.ts). Pure.
 */
import { blankCommentsAndStrings, scanProcedure } from './scan-procedure.js';

export interface SideBranch {
  /** The APIs whose failed call opens this API (the `try:` bodies of the `except` blocks that call it). */
  readonly afterFailureOf: ReadonlySet<string>;
  /** Called in an `if` block: optional, when the user asks for it. */
  readonly optional: boolean;
}

interface Block {
  readonly indent: number;
  readonly kind: 'if' | 'else' | 'try' | 'except' | 'loop';
  /** For `except`: the APIs of the `try:` body before it. */
  readonly tried?: readonly string[];
}

/** Blocks nested deeper than this are read as part of the block around them. */
const MAX_DEPTH = 32;
const HEADER = /^(if|elif|else|try|except|while|for)\b[^\n]*:\s*$/;

/** Procedures read lately: the bot reads the same one at every decision of every session. */
const CACHE_SIZE = 32;
const cache = new Map<string, ReadonlyMap<string, SideBranch>>();

/** The APIs on a side branch, by name; an API not in the map is on the main path. */
export function sideBranches(procedure: string, apiNames: readonly string[]): ReadonlyMap<string, SideBranch> {
  const key = `${apiNames.join(',')}\n${procedure}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const branches = readSideBranches(procedure, apiNames);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, branches);
  return branches;
}

function readSideBranches(procedure: string, apiNames: readonly string[]): Map<string, SideBranch> {
  const text = blankCommentsAndStrings(procedure);
  const references = scanProcedure(procedure, { apiNames: new Set(apiNames) }).references.filter(
    (reference) => reference.kind === 'api',
  );
  const lines = text.split('\n');
  const lineStarts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    lineStarts.push(offset);
    offset += line.length + 1;
  }
  // The blocks around each line, and the APIs of each `try:` body, in one pass.
  const contexts: (readonly Block[])[] = [];
  const stack: Block[] = [];
  const lastTry = new Map<number, string[]>();
  // Each reference's line, found once: a long procedure has thousands of lines and calls.
  const byLine = new Map<number, string[]>();
  for (const reference of references) {
    const line = lineOf(reference.offset, lineStarts);
    const names = byLine.get(line) ?? [];
    names.push(reference.name);
    byLine.set(line, names);
  }
  const apisOnLine = (index: number): readonly string[] => byLine.get(index) ?? [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const trimmed = line.trim();
    if (trimmed === '') {
      contexts.push([...stack]);
      continue;
    }
    const indent = line.length - line.trimStart().length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    contexts.push([...stack]);
    for (const block of stack) if (block.kind === 'try') lastTry.get(block.indent)?.push(...apisOnLine(index));
    const header = HEADER.exec(trimmed);
    // Deeper blocks count as the deepest kept: real procedures nest a few levels, and the work stays linear.
    if (!header || stack.length >= MAX_DEPTH) continue;
    const word = header[1]!;
    if (word === 'try') {
      lastTry.set(indent, []);
      stack.push({ indent, kind: 'try' });
    } else if (word === 'except') stack.push({ indent, kind: 'except', tried: lastTry.get(indent) ?? [] });
    else if (word === 'if' || word === 'elif') stack.push({ indent, kind: 'if' });
    else if (word === 'else') stack.push({ indent, kind: 'else' });
    else stack.push({ indent, kind: 'loop' });
  }

  const branches = new Map<string, { afterFailureOf: Set<string>; optional: boolean; main: boolean }>();
  for (const reference of references) {
    const entry = branches.get(reference.name) ?? { afterFailureOf: new Set<string>(), optional: false, main: false };
    branches.set(reference.name, entry);
    const blocks = contexts[lineOf(reference.offset, lineStarts)] ?? [];
    const side = [...blocks].reverse().find((block) => block.kind === 'if' || block.kind === 'except');
    if (side === undefined) entry.main = true;
    else if (side.kind === 'if') entry.optional = true;
    else for (const name of side.tried ?? []) entry.afterFailureOf.add(name);
  }
  const result = new Map<string, SideBranch>();
  for (const [name, entry] of branches) {
    if (entry.main) continue;
    const afterFailureOf = new Set([...entry.afterFailureOf].filter((api) => api !== name));
    result.set(name, { afterFailureOf, optional: entry.optional });
  }
  return result;
}

/** The line holding an offset, by binary search over the lines' start offsets. */
function lineOf(offset: number, lineStarts: readonly number[]): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (lineStarts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}
