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
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { WeftError, type LocatedIssue } from '../errors.js';
import { DEFAULT_MAX_OUTPUT_TOKENS, type OutputTokenSetting } from '../llm/output-limit.js';
import { formatFieldPath, positionsInDocument } from '../text/source-locator.js';

const outputTokens = z.number().int().positive();

const configSchema = z
  .object({
    model: z.string().min(1).optional(),
    prices: z.record(z.string(), z.object({ inputPerMillion: z.number().nonnegative(), outputPerMillion: z.number().nonnegative() }).strict()).optional(),
    callTimeoutSeconds: z.number().positive().optional(),
    retries: z.number().int().nonnegative().optional(),
    providerConcurrency: z.number().int().positive().optional(),
    store: z.string().min(1).optional(),
    maxOutputTokens: z
      .union([
        outputTokens,
        z.object(Object.fromEntries(['default', ...Object.keys(DEFAULT_MAX_OUTPUT_TOKENS)].map((purpose) => [purpose, outputTokens.optional()]))).strict(),
      ], {
        // Only when neither form fits at all; a bad value inside one form keeps its own located message.
        error: (issue) => (issue.code === 'invalid_union' ? 'expected a whole number of tokens > 0, or per purpose: { default, plan, execute, verify, update, rank, answer, worfbench, other }' : undefined),
      })
      .optional(),
  })
  .strict();

export type WeftConfig = Omit<z.infer<typeof configSchema>, 'maxOutputTokens'> & { maxOutputTokens?: OutputTokenSetting };

export const CONFIG_FILE = 'config.yaml';

export async function loadConfig(home: string): Promise<WeftConfig> {
  const file = join(home, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new WeftError('BAD_INPUT', `Cannot read config: ${(error as Error).message}`, { location: { file }, cause: error });
  }
  return parseConfig(text, file);
}

export function parseConfig(text: string, file: string): WeftConfig {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    const issues: LocatedIssue[] = document.errors.map((error) => {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      return { file, line, column: col, message: error.message.split('\n')[0] ?? error.message };
    });
    throw new WeftError('BAD_INPUT', 'The config file is not valid YAML', { location: { file }, issues });
  }
  const value: unknown = document.toJS() ?? {};
  const parsed = configSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const positionOf = positionsInDocument(document, lineCounter);
  const issues: LocatedIssue[] = parsed.error.issues.map((issue) => {
    const position = positionOf(issue.path as (string | number)[]);
    const field = formatFieldPath(issue.path as (string | number)[]);
    return { file, ...(position ?? {}), ...(field ? { field } : {}), message: issue.message };
  });
  throw new WeftError('BAD_INPUT', 'The config file has invalid fields', { location: { file }, issues });
}
