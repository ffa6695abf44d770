/**
 * Traces from a file for `weft distill --traces FILE` (issue 14): what `weft traces show --json` prints — one trace
 * object, `{ "trace": {...} }`, `{ "traces": [...] }` or an array of them — as JSON (or YAML), or JSON Lines (one
 * of those a line, `.jsonl`). Every problem is located (file, line, column, field) and reported at once as one
 * BAD_INPUT; files past MAX_TRACES_FILE_BYTES, folders and pipes are refused before reading.
 */
import { z } from 'zod';
import { type LocatedIssue, WeftError } from '../errors.js';
import { TRACE_MODES, type NewTrace } from '../store/traces.js';
import { jsonLines } from '../text/json-lines.js';
import { readStructuredSource } from '../text/read-structured-source.js';
import { type FieldPath, formatFieldPath } from '../text/source-locator.js';
import { readInputFile } from '../tools/read-input-file.js';

export const MAX_TRACES_FILE_BYTES = 50_000_000;
const MAX_REPORTED = 50;

const usage = z.looseObject({
  calls: z.number().int().nonnegative(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative().optional(),
});
const call = z.looseObject({
  tool: z.string().min(1),
  args: z.unknown(),
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.string().optional(),
  durationMs: z.number().nonnegative(),
  step: z.union([z.number(), z.string()]).optional(),
});
export const traceSchema = z.looseObject({
  traceId: z.string().min(1).max(200),
  task: z.string(),
  taskKey: z.string().optional(),
  mode: z.enum(TRACE_MODES),
  model: z.string(),
  input: z.unknown(),
  toolsPath: z.string().optional(),
  plan: z.array(z.string()).optional(),
  calls: z.array(call),
  answer: z.unknown().optional(),
  expected: z.unknown().optional(),
  success: z.boolean(),
  error: z.string().optional(),
  usage,
});

/** The traces of a value: a trace, `{trace}`, `{traces: [...]}` or an array; with the path of each. */
function tracesIn(value: unknown): { value: unknown; path: FieldPath }[] {
  if (Array.isArray(value)) return value.map((item, index) => ({ value: item, path: [index] }));
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (Array.isArray(record['traces'])) {
      return (record['traces'] as unknown[]).map((item, index) => ({ value: item, path: ['traces', index] }));
    }
    if (record['trace'] !== undefined && record['traceId'] === undefined)
      return [{ value: record['trace'], path: ['trace'] }];
  }
  return [{ value, path: [] }];
}

export async function readTracesFile(file: string): Promise<NewTrace[]> {
  const text = await readInputFile(file, 'traces file', MAX_TRACES_FILE_BYTES);
  const issues: LocatedIssue[] = [];
  const traces: NewTrace[] = [];
  const check = (value: unknown, path: FieldPath, locate: (path: FieldPath) => { line?: number; column?: number }) => {
    for (const entry of tracesIn(value)) {
      const parsed = traceSchema.safeParse(entry.value);
      if (parsed.success) traces.push(parsed.data as NewTrace);
      else {
        for (const issue of parsed.error.issues) {
          const full = [...path, ...entry.path, ...(issue.path as FieldPath)];
          issues.push({ file, ...locate(full), field: formatFieldPath(full) || '(the trace)', message: issue.message });
        }
      }
    }
  };
  if (/\.jsonl$/i.test(file)) {
    for (const line of jsonLines(text)) {
      if (!line.ok) issues.push({ file, line: line.line, column: line.column, message: line.message });
      else check(line.value, [], () => ({ line: line.line, column: 1 }));
    }
  } else {
    const source = readStructuredSource(text, file);
    if ('issues' in source) issues.push(...source.issues);
    else check(source.value, [], (path) => source.positionOf(path) ?? {});
  }
  if (issues.length > 0) {
    throw new WeftError('BAD_INPUT', `invalid traces file: ${issues.length} problem${issues.length === 1 ? '' : 's'}`, {
      location: { file },
      issues: issues.slice(0, MAX_REPORTED),
    });
  }
  if (traces.length === 0) throw new WeftError('BAD_INPUT', `${file} holds no traces`, { location: { file } });
  return traces;
}
