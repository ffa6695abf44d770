/**
 * WorfBench gold data (the WorfBench release; test/fixtures/worfbench/README.md describes a subset): a JSON array of records or JSONL, one record a line,
 * or a folder of such files. Every record is validated and its gold answer parsed up front, because gold that
 * cannot be scored would silently lower every score: any problem stops the load with all problems located by
 * file, line and field.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { yaml } from '../text/yaml.js';
import { z } from 'zod';
import { WeftError, type LocatedIssue } from '../errors.js';
import { describeTypeMismatch, describeValue, valueAt } from '../text/describe-value.js';
import { jsonLines } from '../text/json-lines.js';
import { findJsonSyntaxError } from '../text/json-syntax.js';
import {
  formatFieldPath,
  positionAtOffset,
  positionsInDocument,
  type FieldPath,
  type SourcePosition,
} from '../text/source-locator.js';
import { parseWorkflowText, type SkippedText } from './parse-workflow-text.js';
import { scenarioOf, sourceOfId, type Scenario } from './scenarios.js';
import type { WorkflowText } from './workflow-text.js';

export interface GoldRecord {
  readonly id: string;
  /** The record's `source`, else the prefix of its id (`alfworld_12` → `alfworld`), else its file's name. */
  readonly source: string;
  /** Undefined for a source outside the four WorfBench scenarios. */
  readonly scenario: Scenario | undefined;
  /** The file it was read from, as opened. */
  readonly file: string;
  /** 0-based position in its file. */
  readonly index: number;
  /** 1-based line where the record starts in its file. */
  readonly line: number;
  /** The system message ("" when there is none). */
  readonly system: string;
  /** The user message before the gold answer: the task and its action list. */
  readonly task: string;
  /** The gold assistant text, as written. */
  readonly answer: string;
  /** The gold answer, parsed. */
  readonly workflow: WorkflowText;
  /** What the parser skipped in the gold answer (trailing prose, …). */
  readonly skipped: readonly SkippedText[];
}

/** More than this many problems are counted, not listed. */
const MAX_LISTED_ISSUES = 50;

const messageSchema = z.object({ role: z.string(), content: z.string() });
const recordSchema = z.object({
  id: z.string().refine((id) => id.trim() !== '', { error: 'must not be empty' }),
  source: z.string().optional(),
  conversations: z.array(messageSchema),
});

/** One record as found in a file, before validation. */
interface RawRecord {
  readonly value: unknown;
  readonly index: number;
  readonly line: number;
  /** Where a path inside the record is in the file. */
  readonly locate: (path: FieldPath) => SourcePosition | undefined;
  /** Field paths of array files start with the record's index; JSONL lines need none. */
  readonly fieldPrefix: FieldPath;
}

/** Reads and validates gold records from a file or a folder of `.json`/`.jsonl` files (in name order). */
export async function loadGold(path: string): Promise<GoldRecord[]> {
  const files = await goldFiles(path);
  const issues: LocatedIssue[] = [];
  const records: GoldRecord[] = [];
  const firstSeen = new Map<string, { file: string; line: number }>();
  for (const file of files) {
    const text = await readText(file);
    const raw = readRecords(text, file, issues);
    for (const record of raw) {
      const gold = validateRecord(record, file, issues);
      if (!gold) continue;
      const first = firstSeen.get(gold.id);
      if (first) {
        issues.push(issueAt(file, record, ['id'], `duplicate id "${gold.id}"; first at ${first.file}:${first.line}`));
        continue;
      }
      firstSeen.set(gold.id, { file, line: gold.line });
      records.push(gold);
    }
  }
  if (issues.length > 0) {
    const count = issues.length;
    throw new WeftError(
      'BAD_INPUT',
      `unusable gold data: ${count} ${count === 1 ? 'problem' : 'problems'}${count > MAX_LISTED_ISSUES ? ` (the first ${MAX_LISTED_ISSUES} listed)` : ''}`,
      { location: { file: path }, issues: issues.slice(0, MAX_LISTED_ISSUES) },
    );
  }
  if (records.length === 0) throw new WeftError('BAD_INPUT', 'no gold records', { location: { file: path } });
  return records;
}

async function goldFiles(path: string): Promise<string[]> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (error) {
    throw cannotRead(path, error);
  }
  if (!isDirectory) return [path];
  let names: string[];
  try {
    names = await readdir(path);
  } catch (error) {
    throw cannotRead(path, error);
  }
  // README.md and anything else that is not a data file is ignored.
  const files = names
    .filter((name) => /\.jsonl?$/i.test(name))
    .sort()
    .map((name) => join(path, name));
  if (files.length === 0)
    throw new WeftError('BAD_INPUT', 'no .json or .jsonl files in the gold folder', { location: { file: path } });
  return files;
}

async function readText(file: string): Promise<string> {
  try {
    const text = await readFile(file, 'utf8');
    return text.startsWith('\uFEFF') ? text.slice(1) : text;
  } catch (error) {
    throw cannotRead(file, error);
  }
}

function cannotRead(path: string, error: unknown): WeftError {
  const reason =
    (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'no such file or folder'
      : error instanceof Error
        ? error.message
        : String(error);
  return new WeftError('BAD_INPUT', `Cannot read gold data: ${reason}`, { location: { file: path }, cause: error });
}

/** The records of one file: a JSON array, a single JSON object, or JSONL. Syntax problems go to `issues`. */
function readRecords(text: string, file: string, issues: LocatedIssue[]): RawRecord[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) return readArray(text, file, issues);
  if (!/\.jsonl$/i.test(file) && trimmed.startsWith('{') && !firstLineIsJson(text)) {
    // A pretty-printed single record: one JSON document, not JSONL.
    const value = parseJson(text, file, issues);
    return value === undefined
      ? []
      : [
          {
            value,
            index: 0,
            line: positionAtOffset(text, text.length - trimmed.length).line,
            locate: locatorFor(text, 1, 1),
            fieldPrefix: [],
          },
        ];
  }
  return readJsonLines(text, file, issues);
}

function firstLineIsJson(text: string): boolean {
  const first = text.split('\n').find((line) => line.trim() !== '') ?? '';
  try {
    JSON.parse(first);
    return true;
  } catch {
    return false;
  }
}

function parseJson(text: string, file: string, issues: LocatedIssue[]): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const error = findJsonSyntaxError(text);
    issues.push({
      file,
      ...positionAtOffset(text, error?.offset ?? 0),
      message: `invalid JSON: ${error?.message ?? 'cannot parse'}`,
    });
    return undefined;
  }
}

function readArray(text: string, file: string, issues: LocatedIssue[]): RawRecord[] {
  const value = parseJson(text, file, issues);
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push({ file, line: 1, message: 'expected an array of records' });
    return [];
  }
  const spans = topLevelElements(text);
  return value.map((element: unknown, index) => {
    const span = spans[index] ?? { start: 0, end: text.length, line: 1, column: 1 };
    return {
      value: element,
      index,
      line: span.line,
      locate: locatorFor(text.slice(span.start, span.end), span.line, span.column),
      fieldPrefix: [index],
    };
  });
}

function readJsonLines(text: string, file: string, issues: LocatedIssue[]): RawRecord[] {
  const records: RawRecord[] = [];
  for (const entry of jsonLines(text)) {
    if (!entry.ok) {
      issues.push({ file, line: entry.line, column: entry.column, message: `invalid JSON: ${entry.message}` });
      continue;
    }
    records.push({
      value: entry.value,
      index: records.length,
      line: entry.line,
      locate: locatorFor(entry.text, entry.line, 1),
      fieldPrefix: [],
    });
  }
  return records;
}

interface Span {
  readonly start: number;
  readonly end: number;
  readonly line: number;
  readonly column: number;
}

/**
 * Where each element of a top-level JSON array starts and ends, with its line, in one pass (the text is valid
 * JSON, so a string never holds a raw line break). Positions of fields are found later, only for records
 * with a problem: parsing positions for every record would cost far more than the load itself.
 */
function topLevelElements(text: string): Span[] {
  const spans: Span[] = [];
  let depth = 0;
  let inString = false;
  let line = 1;
  let lineStart = 0;
  let open: { start: number; line: number; column: number } | undefined;
  const close = (end: number) => {
    if (open) spans.push({ ...open, end });
    open = undefined;
  };
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
      continue;
    }
    if (code === 0x0a) {
      line++;
      lineStart = index + 1;
      continue;
    }
    if (code === 0x20 || code === 0x09 || code === 0x0d) continue;
    if (depth === 1 && open === undefined && code !== 0x2c && code !== 0x5d)
      open = { start: index, line, column: index - lineStart + 1 };
    if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) depth++;
    else if (code === 0x7d || code === 0x5d) {
      depth--;
      if (depth === 0) close(index);
    } else if (code === 0x2c && depth === 1) close(index);
  }
  return spans;
}

/** Positions of paths inside `source` (a record's text), shifted to where the record starts in its file. */
function locatorFor(source: string, startLine: number, startColumn: number): RawRecord['locate'] {
  let positionOf: ((path: FieldPath) => SourcePosition | undefined) | undefined;
  return (path) => {
    if (!positionOf) {
      // JSON is YAML: the YAML parser knows where every field is.
      const lineCounter = new (yaml().LineCounter)();
      positionOf = positionsInDocument(yaml().parseDocument(source, { lineCounter, prettyErrors: false }), lineCounter);
    }
    const position = positionOf(path);
    if (!position) return undefined;
    return {
      line: startLine + position.line - 1,
      column: position.line === 1 ? startColumn + position.column - 1 : position.column,
    };
  };
}

function issueAt(file: string, record: RawRecord, path: FieldPath, message: string): LocatedIssue {
  const position = record.locate(path) ?? { line: record.line };
  const field = formatFieldPath([...record.fieldPrefix, ...path]);
  return { file, ...position, ...(field === undefined ? {} : { field }), message };
}

function validateRecord(record: RawRecord, file: string, issues: LocatedIssue[]): GoldRecord | undefined {
  const { value } = record;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push(issueAt(file, record, [], `expected a record object, got ${describeValue(value)}`));
    return undefined;
  }
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path: FieldPath = issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
      issues.push(issueAt(file, record, path, describeIssue(issue, value, path)));
    }
    return undefined;
  }
  const { id, conversations } = parsed.data;
  // The gold answer is the last assistant message; the task is the user message before it.
  const answerIndex = conversations.findLastIndex((message) => message.role === 'assistant');
  if (answerIndex < 0) {
    issues.push(issueAt(file, record, ['conversations'], `record "${id}" has no assistant message (the gold answer)`));
    return undefined;
  }
  const taskIndex = conversations.slice(0, answerIndex).findLastIndex((message) => message.role === 'user');
  if (taskIndex < 0) {
    issues.push(
      issueAt(file, record, ['conversations'], `record "${id}" has no user message (the task) before its gold answer`),
    );
    return undefined;
  }
  const answer = conversations[answerIndex]?.content ?? '';
  const result = parseWorkflowText(answer);
  if (!result.ok) {
    const first = result.issues[0];
    const where = first ? ` (line ${first.line}, column ${first.column} of the answer)` : '';
    issues.push(
      issueAt(
        file,
        record,
        ['conversations', answerIndex, 'content'],
        `the gold answer of "${id}" is not a usable workflow: ${first?.message ?? 'unknown problem'}${where}`,
      ),
    );
    return undefined;
  }
  const source = parsed.data.source?.trim() || sourceOfId(id) || basename(file).replace(/\.jsonl?$/i, '');
  return {
    id,
    source,
    scenario: scenarioOf(source),
    file,
    index: record.index,
    line: record.line,
    system: conversations.find((message) => message.role === 'system')?.content ?? '',
    task: conversations[taskIndex]?.content ?? '',
    answer,
    workflow: result.workflow,
    skipped: result.skipped,
  };
}

function describeIssue(issue: z.core.$ZodIssue, root: unknown, path: FieldPath): string {
  if (issue.code !== 'invalid_type') return issue.message;
  return describeTypeMismatch(valueAt(root, path), path, issue.expected);
}
