/**
 * Traces from a file for `weft distill --traces FILE`: what `weft traces show --json` prints — one trace
 * object, `{ "trace": {...} }`, `{ "traces": [...] }` or an array of them — as JSON (or YAML), or JSON Lines (one
 * of those a line, `.jsonl`). Every problem is located (file, line, column, field) and reported at once as one
 * BAD_INPUT; files past MAX_TRACES_FILE_BYTES, folders and pipes are refused before reading.
 */
import { z } from 'zod';
import { type LocatedIssue, WeftError } from '../errors.js';
import { nestsDeeperThan } from '../store/trace-value.js';
import { TRACE_MODES, type NewTrace } from '../store/traces.js';
import { jsonLines } from '../text/json-lines.js';
import { MAX_NESTING_DEPTH } from '../text/nesting-depth.js';
import { looksLikeJson, readStructuredSource } from '../text/read-structured-source.js';
import { type FieldPath, formatFieldPath } from '../text/source-locator.js';
import { readInputFile } from '../tools/read-input-file.js';

export const MAX_TRACES_FILE_BYTES = 50_000_000;
const MAX_REPORTED = 50;
/** JSON traces files up to this size get lines and columns in their problems; larger ones name the field only. */
const MAX_LOCATED_BYTES = 5_000_000;

/** The value of JSON text, or undefined when it does not parse (the located reader says why). */
function fastJson(text: string): { value: unknown } | undefined {
  try {
    const value = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text) as unknown;
    // Too deep for what reads a trace later (prompts, printing): the located reader refuses it, cheaply.
    return nestsDeeperThan(value, MAX_NESTING_DEPTH) ? undefined : { value };
  } catch {
    return undefined;
  }
}

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
    const fast = looksLikeJson(text, file) ? fastJson(text) : undefined;
    if (fast !== undefined) check(fast.value, [], () => ({}));
    // Valid JSON is read with JSON.parse alone: locating fields builds a YAML tree of ~130 bytes per byte of text,
    // which ran a 50 MB traces file out of memory. Problems get their lines from it only in a file small enough.
    if (fast === undefined || (issues.length > 0 && text.length <= MAX_LOCATED_BYTES)) {
      issues.length = 0;
      traces.length = 0;
      const source = readStructuredSource(text, file);
      if ('issues' in source) issues.push(...source.issues);
      else check(source.value, [], (path) => source.positionOf(path) ?? {});
    }
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
