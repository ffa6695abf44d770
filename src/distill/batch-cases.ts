/**
 * The cases file of a batch (`weft exec --inputs cases.jsonl`): one `{ id, input, expected? }` a line. Read as a
 * stream twice — a first pass checks every line (all problems reported at once, located) and hashes the bytes;
 * the second yields the cases one by one — so 100k cases are never held in memory, only their ids (to refuse
 * duplicates).
 *
 * Decisions:
 * - `id` is a non-empty string or a whole number; `7` and `"7"` are the same id (results and the batch log key
 *   cases by the text), so the second is a duplicate.
 * - A line longer than MAX_CASE_LINE_BYTES, nesting deeper than MAX_NESTING_DEPTH, holding a NUL byte or bytes
 *   that are not UTF-8 (decoding would change them silently) is a problem of that line, never a hang or a stack
 *   overflow.
 * - Only a regular file: a resume compares its hash, and a pipe cannot be read twice.
 */
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type LocatedIssue, WeftError } from '../errors.js';
import { describeValue } from '../text/describe-value.js';
import { closestWord } from '../text/edit-distance.js';
import { jsonLines } from '../text/json-lines.js';
import { lineIssues } from '../text/line-issues.js';
import { MAX_NESTING_DEPTH, nestingMessage } from '../text/nesting-depth.js';
import type { PathIssue } from '../text/source-locator.js';

export const MAX_CASE_LINE_BYTES = 1_000_000;
/** More problems than this are counted, not listed. */
const MAX_LISTED_ISSUES = 50;
const FIELDS = ['id', 'input', 'expected'] as const;

export interface BatchCase {
  /** As written: a string or a whole number. */
  readonly id: string | number;
  /** The id as text: what the batch log and duplicates go by. */
  readonly key: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** Set when the line has `expected` (which may itself be `null`). */
  readonly expected?: { readonly value: unknown };
  readonly line: number;
}

export interface CasesScan {
  readonly cases: number;
  /** sha256 of the file's bytes, hex. */
  readonly sha256: string;
}

/** Checks every line; throws one BAD_INPUT listing every problem (file, line, column, field). */
export async function scanBatchCases(file: string): Promise<CasesScan> {
  await checkRegularFile(file);
  const hash = createHash('sha256');
  const issues: LocatedIssue[] = [];
  let problemCount = 0;
  const firstLine = new Map<string, number>();
  let cases = 0;
  for await (const raw of rawLines(file, hash)) {
    // Problems past the listed ones are counted without locating them (that parses the line again).
    const read = readCaseLine(file, raw, issues.length < MAX_LISTED_ISSUES);
    if ('issues' in read) {
      problemCount += read.issues.length;
      if (issues.length < MAX_LISTED_ISSUES) issues.push(...read.issues.slice(0, MAX_LISTED_ISSUES - issues.length));
      continue;
    }
    if (!read.case) continue;
    const first = firstLine.get(read.case.key);
    if (first !== undefined) {
      problemCount += 1;
      if (issues.length < MAX_LISTED_ISSUES)
        issues.push(
          ...lineIssues(file, raw.line, raw.text ?? '', [
            { path: ['id'], message: `duplicate id ${JSON.stringify(read.case.key)} (first on line ${first})` },
          ]),
        );
      continue;
    }
    firstLine.set(read.case.key, raw.line);
    cases += 1;
  }
  if (problemCount > 0) {
    throw new WeftError(
      'BAD_INPUT',
      `invalid cases file: ${problemCount} ${problemCount === 1 ? 'problem' : 'problems'}${problemCount > issues.length ? ` (the first ${issues.length} listed)` : ''}`,
      { location: { file }, issues },
    );
  }
  if (cases === 0) throw new WeftError('BAD_INPUT', 'the cases file has no cases', { location: { file } });
  return { cases, sha256: hash.digest('hex') };
}

/** The cases in file order; the file must have passed `scanBatchCases` (a bad line here is an error at once). */
export async function* readBatchCases(file: string): AsyncGenerator<BatchCase> {
  for await (const raw of rawLines(file)) {
    const read = readCaseLine(file, raw);
    if ('issues' in read)
      throw new WeftError('BAD_INPUT', `the cases file changed while it was read: ${read.issues[0]?.message}`, {
        location: { file, line: raw.line },
      });
    if (read.case) yield read.case;
  }
}

/** sha256 of a file's bytes (a resume compares it with the one recorded). */
export async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function checkRegularFile(file: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(file);
  } catch {
    throw new WeftError('BAD_INPUT', `no cases file ${file}`, { location: { field: '--inputs' } });
  }
  if (!info.isFile())
    throw new WeftError('BAD_INPUT', `${file} is not a regular file (a batch reads its cases file twice)`, {
      location: { field: '--inputs' },
    });
}

interface RawLine {
  readonly line: number;
  /** Undefined when the line was too long to keep, or not UTF-8. */
  readonly text?: string;
  readonly bytes: number;
  /** The line's bytes are not UTF-8: decoding would silently turn them into U+FFFD. */
  readonly notUtf8?: true;
}

/** The non-blank lines of a file, streamed; a line over the limit is reported by length without its text. */
async function* rawLines(file: string, hash?: ReturnType<typeof createHash>): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let tooLong = false;
  let line = 0;
  const finish = (): RawLine | undefined => {
    line += 1;
    const bytes = partBytes;
    const buffer = tooLong ? undefined : Buffer.concat(parts, partBytes);
    parts = [];
    partBytes = 0;
    const wasTooLong = tooLong;
    tooLong = false;
    if (wasTooLong) return { line, bytes };
    if (!isUtf8(buffer as Buffer)) return { line, bytes, notUtf8: true };
    let text = (buffer as Buffer).toString('utf8');
    if (line === 1 && text.startsWith('\uFEFF')) text = text.slice(1);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    return text.trim() === '' ? undefined : { line, text, bytes };
  };
  for await (const chunk of createReadStream(file)) {
    const data = chunk as Buffer;
    hash?.update(data);
    let from = 0;
    for (let newline = data.indexOf(10, from); newline >= 0; newline = data.indexOf(10, from)) {
      keep(data.subarray(from, newline));
      const done = finish();
      if (done) yield done;
      from = newline + 1;
    }
    keep(data.subarray(from));
  }
  if (partBytes > 0 || tooLong) {
    const done = finish();
    if (done) yield done;
  }

  function keep(piece: Buffer): void {
    partBytes += piece.length;
    if (partBytes > MAX_CASE_LINE_BYTES) {
      tooLong = true;
      parts = [];
    } else if (piece.length > 0) parts.push(Buffer.from(piece));
  }
}

function readCaseLine(file: string, raw: RawLine, locate = true): { case?: BatchCase } | { issues: LocatedIssue[] } {
  const located = (text: string, problems: PathIssue[]): LocatedIssue[] =>
    locate
      ? lineIssues(file, raw.line, text, problems)
      : problems.map(({ message }) => ({ file, line: raw.line, message }));
  const { line, text } = raw;
  if (raw.notUtf8)
    return { issues: [{ file, line, message: 'the line is not UTF-8 text (bytes that are no character)' }] };
  if (text === undefined)
    return { issues: [{ file, line, message: `the line is longer than ${MAX_CASE_LINE_BYTES} bytes` }] };
  if (text.includes('\u0000'))
    return { issues: [{ file, line, message: 'the line holds binary data (a NUL byte); expected JSON Lines text' }] };
  const [parsed] = jsonLines(text);
  if (!parsed) return {};
  if (!parsed.ok)
    return { issues: [{ file, line, column: parsed.column, message: `invalid JSON: ${parsed.message}` }] };
  if (depthOver(parsed.value, MAX_NESTING_DEPTH)) return { issues: [{ file, line, message: nestingMessage() }] };
  const value = parsed.value;
  const problems: PathIssue[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push({ path: [], message: `expected an object { id, input, expected? }, got ${describeValue(value)}` });
    return { issues: located(text, problems) };
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if ((FIELDS as readonly string[]).includes(key)) continue;
    const guess = closestWord(key, [...FIELDS]);
    problems.push({
      path: [key],
      message: `unknown field "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}; allowed fields: ${FIELDS.join(', ')}`,
    });
  }
  const id = record['id'];
  let key: string | undefined;
  if (id === undefined || id === null) problems.push({ path: ['id'], message: 'missing "id"' });
  else if (typeof id === 'number' && Number.isSafeInteger(id)) key = String(id);
  else if (typeof id === 'string' && id.trim() !== '' && id.length <= 1000) key = id;
  else
    problems.push({
      path: ['id'],
      message: `"id" must be a non-empty string (at most 1000 characters) or a whole number, got ${describeValue(id)}`,
    });
  const input = record['input'];
  if (input === undefined) problems.push({ path: ['input'], message: 'missing "input" (an object; {} for none)' });
  else if (typeof input !== 'object' || input === null || Array.isArray(input))
    problems.push({ path: ['input'], message: `"input" must be an object, got ${describeValue(input)}` });
  if (problems.length > 0) return { issues: located(text, problems) };
  return {
    case: {
      id: id as string | number,
      key: key as string,
      input: input as Record<string, unknown>,
      ...('expected' in record ? { expected: { value: record['expected'] } } : {}),
      line,
    },
  };
}

/** Whether a parsed value nests deeper than `limit`, walked without recursion. */
function depthOver(root: unknown, limit: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value: root, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    for (const child of Object.values(next.value)) pending.push({ value: child, depth });
  }
  return false;
}
