/**
 * The predictions `weft eval` scores: JSONL, one `{"id": …, "output": "<workflow text>"}` a line. A bad line is
 * skipped with a located reason and never stops the evaluation; only an unreadable file does.
 */
import { readFile } from 'node:fs/promises';
import { formatLocation, WeftError } from '../errors.js';
import { jsonLines } from '../text/json-lines.js';

export interface Prediction {
  readonly id: string;
  /** The predicted workflow text. */
  readonly output: string;
  /** 1-based line in the predictions file. */
  readonly line: number;
  /** The benchmark writes `error` when generating the record failed; kept so the skip can say why. */
  readonly error?: string;
}

/** Why a prediction line was not scored: the kind of problem, and a message located by file, line and field. */
export type PredictionSkipProblem =
  | 'not-json'
  | 'not-an-object'
  | 'missing-id'
  | 'bad-id'
  | 'missing-output'
  | 'bad-output'
  | 'unknown-id'
  | 'duplicate-id'
  | 'empty'
  | 'no-nodes'
  | 'unknown-node'
  | 'cycle'
  | 'bad-edge';

export interface SkippedPrediction {
  /** 1-based line in the predictions file. */
  readonly line: number;
  /** When the line names one. */
  readonly id?: string;
  /** Located, e.g. `predictions.jsonl:7 output: expected a string, got a number`. */
  readonly reason: string;
  readonly problem: PredictionSkipProblem;
  /** The offending field of the line (`id`, `output`), when there is one. */
  readonly field?: string;
}

export interface PredictionsFile {
  readonly predictions: Prediction[];
  readonly skipped: SkippedPrediction[];
}

/** Reads a predictions file; throws a BAD_INPUT naming the path only when the file cannot be read. */
export async function readPredictions(file: string): Promise<PredictionsFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a folder'
          : error instanceof Error
            ? error.message
            : String(error);
    throw new WeftError('BAD_INPUT', `Cannot read predictions file: ${reason}`, { location: { file }, cause: error });
  }
  return parsePredictions(text, file);
}

/** The predictions in `text` (the content of `file`, which is only used to locate reasons). */
export function parsePredictions(text: string, file?: string): PredictionsFile {
  const predictions: Prediction[] = [];
  const skipped: SkippedPrediction[] = [];
  for (const entry of jsonLines(text)) {
    const { line } = entry;
    const skip = (
      problem: PredictionSkipProblem,
      message: string,
      extra: { field?: string; column?: number; id?: string } = {},
    ): void => {
      skipped.push({
        line,
        ...(extra.id === undefined ? {} : { id: extra.id }),
        reason: locatedReason(message, { file, line, column: extra.column, field: extra.field }),
        problem,
        ...(extra.field === undefined ? {} : { field: extra.field }),
      });
    };
    if (!entry.ok) {
      skip('not-json', `not JSON: ${entry.message}`, { column: entry.column });
      continue;
    }
    const value = entry.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      skip('not-an-object', `expected an object {"id", "output"}, got ${describeValue(value)}`);
      continue;
    }
    const record = value as Record<string, unknown>;
    // An id is kept whenever it is a usable string, so a skip can still be counted against its gold record.
    const id = typeof record.id === 'string' && record.id.trim() !== '' ? record.id : undefined;
    if (record.id === undefined) {
      skip('missing-id', 'missing required field "id"', { field: 'id' });
      continue;
    }
    if (id === undefined) {
      skip('bad-id', `expected a non-empty string, got ${describeValue(record.id)}`, { field: 'id' });
      continue;
    }
    if (record.output === undefined) {
      skip('missing-output', 'missing required field "output"', { field: 'output', id });
      continue;
    }
    if (typeof record.output !== 'string') {
      skip('bad-output', `expected a string, got ${describeValue(record.output)}`, { field: 'output', id });
      continue;
    }
    predictions.push({
      id,
      output: record.output,
      line,
      ...(typeof record.error === 'string' ? { error: record.error } : {}),
    });
  }
  return { predictions, skipped };
}

/** `file:line:column field: message`, or `line N …` without a file. */
export function locatedReason(
  message: string,
  location: { file?: string | undefined; line: number; column?: number | undefined; field?: string | undefined },
): string {
  const where = formatLocation({
    ...(location.file === undefined ? {} : { file: location.file }),
    line: location.line,
    ...(location.column === undefined ? {} : { column: location.column }),
    ...(location.field === undefined ? {} : { field: location.field }),
  });
  return `${where}: ${message}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.trim() === '' ? 'an empty string' : 'a string';
  return `${/^[aeiou]/.test(typeof value) ? 'an' : 'a'} ${typeof value}`;
}
