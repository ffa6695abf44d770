/**
 * Structured output without the provider's JSON mode (docs/algorithms.md#parsing-model-output): call, parse loosely,
 * validate with zod, and when that fails, show the model its reply and the concrete error and ask for the corrected
 * JSON — a bounded number of times.
 */
import type { z } from 'zod';
import { WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import type { ChatCall, ChatMessage, ChatModel, ChatResult, Usage } from './chat-model.js';
import { parseJsonValues, parseJsonLoose } from './extract-json.js';
import { throwIfAborted } from './timeout.js';
import { addUsage } from './token-estimate.js';

export interface StructuredOptions {
  /** Re-prompts after the first reply (default 2, so at most 3 calls). */
  readonly maxRepairs?: number;
  readonly signal?: AbortSignal;
  /** When a reply holds several JSON values, try them from the first (default) or from the last. */
  readonly select?: 'first' | 'last';
}

export interface StructuredResult<T> {
  readonly value: T;
  /** The reply that validated. */
  readonly result: ChatResult;
  /** Calls made, including the one that validated. */
  readonly attempts: number;
  /** Usage summed over every call. */
  readonly usage: Usage;
  /** Every reply text, in order. */
  readonly raw: string[];
}

export const DEFAULT_MAX_REPAIRS = 2;

/** What a reply yielded: a value that validates, or the error to show the model. */
export type ReplyOutcome<T> = { ok: true; value: T } | { ok: false; error: string; cause?: unknown };

export async function generateStructured<T>(
  model: ChatModel,
  call: ChatCall,
  schema: z.ZodType<T>,
  options: StructuredOptions = {},
): Promise<StructuredResult<T>> {
  const maxRepairs = options.maxRepairs ?? DEFAULT_MAX_REPAIRS;
  integerOption(maxRepairs, 'maxRepairs', { min: 0 });
  const messages: ChatMessage[] = [...call.messages];
  const raw: string[] = [];
  const usages: Usage[] = [];
  let last: ReplyOutcome<T> | undefined;
  for (let attempt = 1; attempt <= maxRepairs + 1; attempt++) {
    throwIfAborted(options.signal);
    // What this attempt streamed, so that a reply thrown away for a re-prompt is withdrawn, not shown twice.
    let shown = 0;
    const onStream = call.onStream;
    const counted: ChatCall = onStream
      ? {
          ...call,
          onStream: (event) => {
            shown = event.kind === 'delta' ? shown + event.text.length : 0;
            onStream(event);
          },
        }
      : call;
    const result = await model.generate({ ...counted, messages: [...messages] }, options.signal);
    raw.push(result.text);
    usages.push(result.usage);
    last = interpretReply(result.text, schema, options.select ?? 'first');
    if (last.ok) return { value: last.value, result, attempts: attempt, usage: addUsage(...usages), raw };
    if (onStream && shown > 0) onStream({ kind: 'discard', chars: shown });
    messages.push({ role: 'assistant', content: result.text }, { role: 'user', content: repairPrompt(last.error) });
  }
  const failure = last as { ok: false; error: string; cause?: unknown };
  throw new WeftError(
    'PARSE',
    `The model's reply could not be used after ${maxRepairs + 1} attempt(s): ${failure.error}. Last reply: ${snippet(raw.at(-1) ?? '')}`,
    { cause: failure.cause },
  );
}

/**
 * Parses a reply and validates it. With several JSON values, the first that validates wins (in `select`
 * order); when none does, the error reported is that of the value with the fewest issues.
 */
export function interpretReply<T>(
  text: string,
  schema: z.ZodType<T>,
  select: 'first' | 'last' = 'first',
): ReplyOutcome<T> {
  const values = parseJsonValues(text);
  if (values.length === 0) {
    const loose = parseJsonLoose(text);
    return { ok: false, error: loose.ok ? 'no usable JSON value in the reply' : loose.error };
  }
  const strict = values.filter((v) => v.source !== 'repaired');
  const repaired = values.filter((v) => v.source === 'repaired');
  const ordered = select === 'last' ? [...strict.reverse(), ...repaired.reverse()] : [...strict, ...repaired];
  let best: z.ZodError | undefined;
  for (const candidate of ordered) {
    const parsed = schema.safeParse(candidate.value);
    if (parsed.success) return { ok: true, value: parsed.data };
    if (!best || parsed.error.issues.length < best.issues.length) best = parsed.error;
  }
  return { ok: false, error: `the JSON does not match the expected shape: ${formatIssues(best!)}`, cause: best };
}

/** `subtasks[0].objective: expected string, received undefined; verdict: …` */
export function formatIssues(error: z.ZodError, limit = 8): string {
  const lines = error.issues.slice(0, limit).map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  if (error.issues.length > limit) lines.push(`… and ${error.issues.length - limit} more`);
  return lines.join('; ');
}

export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text === '' ? String(part) : `.${String(part)}`;
  }
  return text;
}

export function repairPrompt(error: string): string {
  return `Your previous reply could not be used: ${error}.\nReply again with only the corrected JSON — no explanation, no other text.`;
}

function snippet(text: string, limit = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > limit ? `${flat.slice(0, limit)}…` : flat);
}
