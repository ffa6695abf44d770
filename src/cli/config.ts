/**
 * `<home>/config.yaml`: the user's defaults. Every problem is reported with file, line and field.
 *
 *   model: openai:gpt-4o-mini
 *   prices: { "my-model": { inputPerMillion: 0.5, outputPerMillion: 1.5 } }   # USD per million tokens
 *   callTimeoutSeconds: 300
 *   retries: 3
 *   providerConcurrency: 8   # calls in flight per provider
 *   store: postgres://user@host/db   # default: SQLite in the home
 *   maxOutputTokens: { default: 4096, execute: 8192, verify: 512 }   # or one number for every call
 *   caseTimeLimitMs: 2000   # a workflow case's computing time (weft exec --time-limit)
 *   workerMemoryMb: 256     # the heap of the worker thread a case runs in (weft exec --worker-memory)
 *   jobs: 2                 # worker threads workflow cases run on (weft exec --jobs; default one a core)
 *
 * Reading the file is `load-config.ts`'s job; this module (zod, yaml) loads only when there is a file to check.
 */
import { z } from 'zod';
import {
  closestWord,
  DEFAULT_MAX_OUTPUT_TOKENS,
  describeTypeMismatch,
  formatFieldPath,
  MIN_WORKER_MEMORY_MB,
  readStructuredSource,
  valueAt,
  WeftError,
  type FieldPath,
  type LocatedIssue,
  type OutputTokenSetting,
  type PathIssue,
} from '../internal.js';

const priceSchema = z
  .object({ inputPerMillion: z.number().nonnegative(), outputPerMillion: z.number().nonnegative() })
  .strict();

const outputTokens = z.number().int().positive();

const configSchema = z
  .object({
    model: z.string().min(1).optional(),
    prices: z.record(z.string(), priceSchema).optional(),
    callTimeoutSeconds: z.number().positive().optional(),
    retries: z.number().int().nonnegative().optional(),
    providerConcurrency: z.number().int().positive().optional(),
    store: z.string().min(1).optional(),
    // The hard limits of a workflow case (weft exec, weft mcp's weft_exec, distill eval's test cases, workflow
    // tools): --time-limit and --worker-memory.
    caseTimeLimitMs: z.number().int().positive().optional(),
    workerMemoryMb: z.number().int().min(MIN_WORKER_MEMORY_MB).optional(),
    jobs: z.number().int().min(1).max(256).optional(),
    maxOutputTokens: z
      .union(
        [
          outputTokens,
          z
            .object(
              Object.fromEntries(
                ['default', ...Object.keys(DEFAULT_MAX_OUTPUT_TOKENS)].map((purpose) => [
                  purpose,
                  outputTokens.optional(),
                ]),
              ),
            )
            .strict(),
        ],
        {
          // Only when neither form fits at all; a bad value inside one form keeps its own located message.
          error: (issue) =>
            issue.code === 'invalid_union'
              ? 'expected a whole number of tokens > 0, or per purpose: { default, plan, execute, verify, update, rank, answer, worfbench, other }'
              : undefined,
        },
      )
      .optional(),
  })
  .strict();

export type WeftConfig = Omit<z.infer<typeof configSchema>, 'maxOutputTokens'> & {
  maxOutputTokens?: OutputTokenSetting;
};

const CONFIG_FIELDS = Object.keys(configSchema.shape);
const PRICE_FIELDS = Object.keys(priceSchema.shape);

export function parseConfig(text: string, file: string): WeftConfig {
  const source = readStructuredSource(text, file);
  if ('issues' in source)
    throw new WeftError('BAD_INPUT', 'The config file is not valid YAML', {
      location: { file },
      issues: source.issues,
    });
  const value = source.value ?? {};
  const parsed = configSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues: LocatedIssue[] = parsed.error.issues
    .flatMap((issue) => describeConfigIssue(issue, value))
    .map(({ path, message }) => {
      const position = source.positionOf(path);
      const field = formatFieldPath(path);
      return { file, ...(position ?? {}), ...(field ? { field } : {}), message };
    });
  issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  throw new WeftError('BAD_INPUT', 'The config file has invalid fields', { location: { file }, issues });
}

function describeConfigIssue(issue: z.core.$ZodIssue, root: unknown): PathIssue[] {
  const path: FieldPath = issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
  // zod reports unknown keys at the object holding them; each is located at its own key instead.
  if (issue.code === 'unrecognized_keys') {
    const allowed = path.length === 0 ? CONFIG_FIELDS : path.length === 2 && path[0] === 'prices' ? PRICE_FIELDS : [];
    return issue.keys.map((key) => {
      const guess = closestWord(
        key,
        allowed.map((field) => field.toLowerCase()),
      );
      const meant = allowed.find((field) => field.toLowerCase() === guess);
      const suggestion = meant === undefined ? '' : ` (did you mean "${meant}"?)`;
      return {
        path: [...path, key],
        message: `unknown field "${key}"${suggestion}; allowed fields: ${allowed.join(', ')}`,
      };
    });
  }
  if (issue.code === 'invalid_type' && issue.expected !== 'int') {
    return [{ path, message: describeTypeMismatch(valueAt(root, path), path, issue.expected) }];
  }
  return [{ path, message: issue.message }];
}
