/**
 * Team datasets (`weft team eval --data mc.jsonl`) and sample queries (`weft team optimize --queries q.jsonl`):
 * JSONL, one `{id, question, choices?, answer, tests?}` a line, in the MMLU/MATH style users bring.
 *
 * Decisions:
 * - A dataset is curated input, unlike a model's predictions: any bad line stops the load with one BAD_INPUT
 *   listing every problem by file, line, column and field. A skipped line would silently change the accuracy.
 * - `id` is a non-empty string or a whole number (read as its decimal string); ids must be unique.
 * - With `choices` (at least two non-empty strings, labelled A, B, …) the answer must be one of their letters;
 *   `b`, `(B)` and `B.` are read as `B`. Without choices the answer is any non-empty string or a number.
 * - Fields other than these are ignored (datasets often carry `subject`, `level`, …). Blank lines are skipped.
 * - Sample queries for optimisation may leave out `answer`: importance scores do not need the truth.
 */
import { lineIssues } from '../text/line-issues.js';
import { readFile } from 'node:fs/promises';
import { WeftError, type LocatedIssue } from '../errors.js';
import { describeValue } from '../text/describe-value.js';
import { jsonLines } from '../text/json-lines.js';
import type { FieldPath } from '../text/source-locator.js';
import { choiceLabel } from './extract-answer.js';
import type { AnswerKind, TeamQuery } from './team.js';

export interface TeamQueryItem {
  readonly id: string;
  readonly question: string;
  readonly choices?: readonly string[];
  /** The expected answer: a choice letter (`B`) when there are choices. */
  readonly answer?: string;
  /** For code questions: tests for a code-runner agent (see code-runner.ts). */
  readonly tests?: string;
  /** 1-based line in its file. */
  readonly line: number;
}

export interface TeamDatasetItem extends TeamQueryItem {
  readonly answer: string;
}

/** More than this many problems are counted, not listed. */
const MAX_LISTED_ISSUES = 50;

/** Reads a dataset for `weft team eval`: every line must have an answer. */
export async function readTeamDataset(path: string): Promise<{ items: TeamDatasetItem[] }> {
  return parseTeamDataset(await readText(path, 'dataset'), path);
}

/** Reads sample queries for `weft team optimize`: answers are optional. */
export async function readTeamQueries(path: string): Promise<{ items: TeamQueryItem[] }> {
  return parseTeamDataset(await readText(path, 'queries file'), path, { requireAnswer: false });
}

export function parseTeamDataset(text: string, file: string): { items: TeamDatasetItem[] };
export function parseTeamDataset(
  text: string,
  file: string,
  options: { requireAnswer?: boolean },
): { items: TeamQueryItem[] };
export function parseTeamDataset(
  text: string,
  file: string,
  options: { requireAnswer?: boolean } = {},
): { items: TeamQueryItem[] } {
  const requireAnswer = options.requireAnswer ?? true;
  const issues: LocatedIssue[] = [];
  const items: TeamQueryItem[] = [];
  const firstLine = new Map<string, number>();
  for (const entry of jsonLines(text)) {
    const { line, text: lineText } = entry;
    if (!entry.ok) {
      issues.push({ file, line, column: entry.column, message: `invalid JSON: ${entry.message}` });
      continue;
    }
    const value = entry.value;
    const problems: { path: FieldPath; message: string }[] = [];
    const item = readItem(value, line, requireAnswer, problems);
    if (item) {
      const first = firstLine.get(item.id);
      if (first !== undefined)
        problems.push({ path: ['id'], message: `duplicate id "${item.id}" (first on line ${first})` });
      else firstLine.set(item.id, line);
    }
    if (problems.length > 0) {
      issues.push(...lineIssues(file, line, lineText, problems));
      continue;
    }
    if (item) items.push(item);
  }
  if (issues.length > 0) {
    const n = issues.length;
    throw new WeftError(
      'BAD_INPUT',
      `invalid ${requireAnswer ? 'dataset' : 'queries file'}: ${n} ${n === 1 ? 'problem' : 'problems'}${n > MAX_LISTED_ISSUES ? ` (the first ${MAX_LISTED_ISSUES} listed)` : ''}`,
      { location: { file }, issues: issues.slice(0, MAX_LISTED_ISSUES) },
    );
  }
  if (items.length === 0)
    throw new WeftError('BAD_INPUT', `the ${requireAnswer ? 'dataset' : 'queries file'} has no items`, {
      location: { file },
    });
  return { items };
}

/**
 * The query a team is asked for an item. Its kind: `kind` when given (a team file's `answerKind`), else
 * `choice` when the item has choices, else `exact`.
 */
export function teamQueryOf(item: TeamQueryItem, kind?: AnswerKind, taskType?: string): TeamQuery {
  return {
    question: item.question,
    kind: kind ?? (item.choices ? 'choice' : 'exact'),
    ...(item.choices ? { choices: item.choices } : {}),
    ...(item.tests !== undefined ? { tests: item.tests } : {}),
    ...(taskType !== undefined ? { taskType } : {}),
  };
}

function readItem(
  value: unknown,
  line: number,
  requireAnswer: boolean,
  problems: { path: FieldPath; message: string }[],
): TeamQueryItem | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push({
      path: [],
      message: `expected an object like {"id", "question", "answer"}, got ${describeValue(value)}`,
    });
    return undefined;
  }
  const record = value as Record<string, unknown>;
  const before = problems.length;

  let id = '';
  if (record.id === undefined || record.id === null) problems.push({ path: ['id'], message: 'missing "id"' });
  else if (typeof record.id === 'number' && Number.isInteger(record.id)) id = String(record.id);
  else if (typeof record.id === 'string' && record.id.trim() !== '') id = record.id;
  else
    problems.push({
      path: ['id'],
      message: `"id" must be a non-empty string or a whole number, got ${describeValue(record.id)}`,
    });

  let question = '';
  if (record.question === undefined || record.question === null)
    problems.push({ path: ['question'], message: 'missing "question"' });
  else if (typeof record.question !== 'string')
    problems.push({
      path: ['question'],
      message: `"question" must be a string, got ${describeValue(record.question)}`,
    });
  else if (record.question.trim() === '') problems.push({ path: ['question'], message: '"question" is empty' });
  else question = record.question;

  const choices = readChoices(record.choices, problems);

  let answer: string | undefined;
  if (record.answer === undefined || record.answer === null) {
    if (requireAnswer)
      problems.push({
        path: ['answer'],
        message:
          'a dataset line without an answer: add "answer" (the expected answer; a choice letter when there are choices)',
      });
  } else if (typeof record.answer === 'number' && Number.isFinite(record.answer)) {
    answer = String(record.answer);
  } else if (typeof record.answer !== 'string') {
    problems.push({
      path: ['answer'],
      message: `"answer" must be a string or a number, got ${describeValue(record.answer)}`,
    });
  } else if (record.answer.trim() === '') {
    problems.push({ path: ['answer'], message: '"answer" is empty' });
  } else {
    answer = record.answer.trim();
  }
  if (answer !== undefined && choices) {
    const letter = /^\(?([A-Za-z])\)?\.?$/.exec(answer)?.[1]?.toUpperCase();
    const last = choiceLabel(choices.length - 1);
    if (letter === undefined || letter.charCodeAt(0) - 65 >= choices.length) {
      problems.push({
        path: ['answer'],
        message: `answer ${JSON.stringify(answer)} is not a choice letter: expected one of A–${last} (the ${choices.length} choices)`,
      });
    } else {
      answer = letter;
    }
  }

  let tests: string | undefined;
  if (record.tests !== undefined && record.tests !== null) {
    if (typeof record.tests === 'string') tests = record.tests;
    else
      problems.push({
        path: ['tests'],
        message: `"tests" must be a string of JavaScript, got ${describeValue(record.tests)}`,
      });
  }

  if (problems.length > before) return undefined;
  return {
    id,
    question,
    ...(choices ? { choices } : {}),
    ...(answer !== undefined ? { answer } : {}),
    ...(tests !== undefined ? { tests } : {}),
    line,
  };
}

function readChoices(value: unknown, problems: { path: FieldPath; message: string }[]): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    problems.push({ path: ['choices'], message: `"choices" must be an array of strings, got ${describeValue(value)}` });
    return undefined;
  }
  const before = problems.length;
  if (value.length < 2)
    problems.push({ path: ['choices'], message: `"choices" must list at least 2 options, got ${value.length}` });
  if (value.length > 26)
    problems.push({ path: ['choices'], message: `"choices" may list at most 26 options (A–Z), got ${value.length}` });
  value.forEach((choice: unknown, index) => {
    if (typeof choice !== 'string')
      problems.push({
        path: ['choices', index],
        message: `"choices" must be an array of strings; this one is ${describeValue(choice)}`,
      });
    else if (choice.trim() === '') problems.push({ path: ['choices', index], message: 'empty choice' });
  });
  return problems.length > before ? undefined : (value as string[]);
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message;
    throw new WeftError('BAD_INPUT', `cannot read the ${what}: ${reason}`, { location: { file: path }, cause: error });
  }
}
