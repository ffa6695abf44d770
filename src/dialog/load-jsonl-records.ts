/**
 * Reading the JSONL files of the dialog evaluation (user profiles, reference sessions): one object a line, every
 * problem of every line reported at once as one BAD_INPUT with file, line, column and field, ids unique.
 *
 * Decisions:
 * - Curated input: any bad line stops the load (a skipped line would silently change the scores).
 * - Limits: the file (MAX_JSONL_FILE_BYTES), a line (MAX_JSONL_LINE_BYTES) and nesting (MAX_NESTING_DEPTH) —
 *   a hostile or mistaken file is refused with a message, never a hang or a stack overflow. NUL bytes (a binary
 *   file given by mistake) are refused before parsing.
 * - Unknown keys are errors with a did-you-mean: `require_apis` silently ignored would score every session 0.
 */
import { lineIssues } from '../text/line-issues.js';
import { WeftError, type LocatedIssue } from '../errors.js';
import { describeValue } from '../text/describe-value.js';
import { closestWord } from '../text/edit-distance.js';
import { jsonLines } from '../text/json-lines.js';
import { MAX_NESTING_DEPTH, nestingMessage } from '../text/nesting-depth.js';
import { jsonArrayElementLines } from '../text/json-array-lines.js';
import { findJsonSyntaxError } from '../text/json-syntax.js';
import { readStructuredSource } from '../text/read-structured-source.js';
import { type FieldPath, formatFieldPath, type PathIssue, positionAtOffset } from '../text/source-locator.js';
import { readInputFile } from '../tools/read-input-file.js';

export const MAX_JSONL_FILE_BYTES = 50_000_000;
export const MAX_JSONL_LINE_BYTES = 1_000_000;
/** More problems than this are counted, not listed. */
const MAX_LISTED_ISSUES = 50;

export type Problems = PathIssue[];

/**
 * Reads one record's object, pushing problems with paths relative to that object. `index` is the record's place
 * among the file's records, from 0 (blank lines aside).
 */
export type RecordReader<T> = (
  record: Record<string, unknown>,
  problems: Problems,
  position: { readonly index: number },
) => T | undefined;

export async function loadJsonlRecords<T extends { readonly id: string }>(
  file: string,
  what: string,
  read: RecordReader<T>,
): Promise<(T & { readonly line: number })[]> {
  return parseJsonlRecords(await readInputFile(file, what, MAX_JSONL_FILE_BYTES), file, what, read);
}

/** The records of a JSON Lines file or of a JSON array (a file whose text starts with `[`), read alike. */
export async function loadRecordsFile<T extends { readonly id: string }>(
  file: string,
  what: string,
  read: RecordReader<T>,
): Promise<(T & { readonly line: number })[]> {
  return parseRecordsText(await readInputFile(file, what, MAX_JSONL_FILE_BYTES), file, what, read);
}

/** `parseJsonArrayRecords` when the text is a JSON array, else `parseJsonlRecords`. */
export function parseRecordsText<T extends { readonly id: string }>(
  text: string,
  file: string,
  what: string,
  read: RecordReader<T>,
): (T & { readonly line: number })[] {
  // A line of JSON Lines is an object: a text opening with `[` can only be one array.
  return /^\uFEFF?\s*\[/.test(text)
    ? parseJsonArrayRecords(text, file, what, read)
    : parseJsonlRecords(text, file, what, read);
}

/**
 * The records of a JSON array, as the FlowAgent authors ship their profiles: one object an element, each problem
 * located at its field (line and column in the file, the path from the element's index), all at once.
 */
export function parseJsonArrayRecords<T extends { readonly id: string }>(
  text: string,
  file: string,
  what: string,
  read: RecordReader<T>,
): (T & { readonly line: number })[] {
  refuseBinary(text, file, what, 'a JSON array');
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const syntax = findJsonSyntaxError(body);
  if (syntax) {
    const { line, column } = positionAtOffset(body, syntax.offset);
    throw new WeftError('BAD_INPUT', `invalid ${what}: invalid JSON: ${syntax.message}`, {
      location: { file },
      issues: [{ file, line, column, message: `invalid JSON: ${syntax.message}` }],
    });
  }
  const value: unknown = JSON.parse(body);
  if (!Array.isArray(value))
    throw new WeftError('BAD_INPUT', `the ${what} is not a JSON array`, { location: { file } });
  const issues: PathIssue[] = [];
  const records: { record: T; index: number }[] = [];
  const seen = new Map<string, string>();
  value.forEach((element: unknown, index) => {
    const { record, problems } = readRecord(element, read, index, seen, `at [${index}]`);
    if (problems.length > 0)
      issues.push(...problems.map((problem) => ({ ...problem, path: [index, ...problem.path] })));
    else if (record) records.push({ record, index });
  });
  // A parse that keeps every field's position is slow and large for a big file: the records' lines come from a light
  // scan, and fields are located (column and all) only for problems in a file of a size a person edits.
  const lines = jsonArrayElementLines(body);
  const located =
    issues.length > 0 && body.length <= MAX_LOCATED_ARRAY_CHARS
      ? readStructuredSource(body, `${file}.json`)
      : undefined;
  const positionOf = located && 'positionOf' in located ? located.positionOf : () => undefined;
  const placed = issues.slice(0, MAX_LISTED_ISSUES + 1).map((issue): LocatedIssue => {
    // Every path starts with its element's index.
    const at = positionOf(issue.path) ?? { line: lines[Number(issue.path[0])] ?? 1 };
    const field = formatFieldPath(issue.path);
    return { file, ...at, ...(field === undefined ? {} : { field }), message: issue.message };
  });
  if (issues.length > placed.length)
    placed.push(...issues.slice(placed.length).map((issue) => ({ file, message: issue.message })));
  return settle(
    records.map(({ record, index }) => ({ ...record, line: lines[index] ?? 1 })),
    placed,
    file,
    what,
  );
}

/** A JSON array larger than this is read without the positions of its fields (a problem then names its path). */
const MAX_LOCATED_ARRAY_CHARS = 2_000_000;

export function parseJsonlRecords<T extends { readonly id: string }>(
  text: string,
  file: string,
  what: string,
  read: RecordReader<T>,
): (T & { readonly line: number })[] {
  refuseBinary(text, file, what, 'JSON Lines text');
  const issues: LocatedIssue[] = [];
  const records: (T & { line: number })[] = [];
  const seen = new Map<string, string>();
  let index = 0;
  for (const entry of splitLines(text)) {
    const { line, text: lineText } = entry;
    if (Buffer.byteLength(lineText, 'utf8') > MAX_JSONL_LINE_BYTES) {
      issues.push({ file, line, message: `the line is longer than ${MAX_JSONL_LINE_BYTES} bytes` });
      continue;
    }
    const [parsed] = jsonLines(lineText);
    if (!parsed) continue;
    if (!parsed.ok) {
      issues.push({ file, line, column: parsed.column, message: `invalid JSON: ${parsed.message}` });
      continue;
    }
    if (nestingDepth(parsed.value) > MAX_NESTING_DEPTH) {
      issues.push({ file, line, message: nestingMessage() });
      continue;
    }
    const { record, problems } = readRecord(parsed.value, read, index, seen, `on line ${line}`);
    // Objects are numbered whether or not they read well, as an array's elements are.
    if (isPlainObject(parsed.value)) index++;
    if (problems.length > 0) {
      issues.push(...lineIssues(file, line, lineText, problems));
      continue;
    }
    if (record) records.push({ ...record, line });
  }
  return settle(records, issues, file, what);
}

/**
 * One record read, with its problems (paths relative to it): an object handed to `read`, then its id checked
 * against the earlier ones (`seen`: id → where it was first, said as `where` is).
 */
function readRecord<T extends { readonly id: string }>(
  value: unknown,
  read: RecordReader<T>,
  index: number,
  seen: Map<string, string>,
  where: string,
): { record?: T; problems: Problems } {
  const problems: Problems = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push({ path: [], message: `expected an object, got ${describeValue(value)}` });
    return { problems };
  }
  const record = read(value as Record<string, unknown>, problems, { index });
  if (record && problems.length === 0) {
    const first = seen.get(record.id);
    if (first !== undefined) problems.push({ path: ['id'], message: `duplicate id "${record.id}" (first ${first})` });
    else seen.set(record.id, where);
  }
  return { ...(record ? { record } : {}), problems };
}

function refuseBinary(text: string, file: string, what: string, expected: string): void {
  if (text.includes('\u0000'))
    throw new WeftError('BAD_INPUT', `the ${what} holds binary data (a NUL byte); expected ${expected}`, {
      location: { file },
    });
}

/** The records, or one BAD_INPUT listing the problems (the first MAX_LISTED_ISSUES). */
function settle<T>(records: T[], issues: readonly LocatedIssue[], file: string, what: string): T[] {
  if (issues.length > 0) {
    const n = issues.length;
    throw new WeftError(
      'BAD_INPUT',
      `invalid ${what}: ${n} ${n === 1 ? 'problem' : 'problems'}${n > MAX_LISTED_ISSUES ? ` (the first ${MAX_LISTED_ISSUES} listed)` : ''}`,
      { location: { file }, issues: issues.slice(0, MAX_LISTED_ISSUES) },
    );
  }
  if (records.length === 0) throw new WeftError('BAD_INPUT', `the ${what} has no records`, { location: { file } });
  return records;
}

/** Pushes a problem for every key not in `allowed`, with a did-you-mean when one is close. */
export function checkKeys(
  record: Record<string, unknown>,
  allowed: readonly string[],
  problems: Problems,
  path: FieldPath = [],
): void {
  const byLower = new Map(allowed.map((key) => [key.toLowerCase(), key]));
  for (const key of Object.keys(record)) {
    if (allowed.includes(key)) continue;
    const guess = closestWord(key, [...byLower.keys()]);
    const suggestion = guess === undefined ? '' : ` (did you mean "${byLower.get(guess)}"?)`;
    problems.push({
      path: [...path, key],
      message: `unknown field "${key}"${suggestion}; allowed fields: ${allowed.join(', ')}`,
    });
  }
}

/** An id: a non-empty string, or a whole number read as its decimal string. */
export function readId(value: unknown, problems: Problems, path: FieldPath = ['id']): string | undefined {
  if (value === undefined || value === null) problems.push({ path, message: 'missing "id"' });
  else if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  else if (typeof value === 'string' && value.trim() !== '') return value;
  else
    problems.push({ path, message: `"id" must be a non-empty string or a whole number, got ${describeValue(value)}` });
  return undefined;
}

/** A string; `required` ones must be present and not blank. */
export function readString(
  value: unknown,
  path: FieldPath,
  problems: Problems,
  { required = false }: { required?: boolean } = {},
): string | undefined {
  const name = String(path.at(-1));
  if (value === undefined || value === null) {
    if (required) problems.push({ path, message: `missing "${name}"` });
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.push({ path, message: `"${name}" must be a string, got ${describeValue(value)}` });
    return undefined;
  }
  if (required && value.trim() === '') {
    problems.push({ path, message: `"${name}" is empty` });
    return undefined;
  }
  return value;
}

/** An array of non-empty strings (absent: empty). */
export function readStringList(value: unknown, path: FieldPath, problems: Problems): string[] {
  if (value === undefined || value === null) return [];
  const name = String(path.at(-1));
  if (!Array.isArray(value)) {
    problems.push({ path, message: `"${name}" must be an array of strings, got ${describeValue(value)}` });
    return [];
  }
  const items: string[] = [];
  value.forEach((item: unknown, index) => {
    if (typeof item === 'string' && item.trim() !== '') items.push(item);
    else
      problems.push({
        path: [...path, index],
        message: `"${name}" must list non-empty strings; this one is ${typeof item === 'string' ? 'empty' : describeValue(item)}`,
      });
  });
  return items;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function splitLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  (text.startsWith('\uFEFF') ? text.slice(1) : text).split('\n').forEach((raw, index) => {
    const lineText = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (lineText.trim() !== '') lines.push({ line: index + 1, text: lineText });
  });
  return lines;
}

/** How deeply a parsed value nests, walked without recursion. */
function nestingDepth(root: unknown): number {
  let deepest = 0;
  const pending: { value: unknown; depth: number }[] = [{ value: root, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > deepest) deepest = depth;
    if (depth > MAX_NESTING_DEPTH) return depth;
    for (const child of Object.values(next.value)) pending.push({ value: child, depth });
  }
  return deepest;
}
