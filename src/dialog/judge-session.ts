/**
 * The session judge of `weft simulate`: after a simulated session, a model (purpose `judge`) reads
 * the user's goals (`<goals>`), the API calls with whether they succeeded (`<api-calls>`) and the transcript, and
 * says whether the session succeeded and which goals were achieved. Task progress = achieved / goals.
 *
 * The reply is parsed as every structured reply is (structured-output.ts, docs/algorithms.md#parsing-model-output): JSON taken from mixed text or a fence, repaired
 * when broken, validated with zod; when that fails the judge is asked once more, shown its error. No provider
 * JSON mode is forced. Goal indices are 0-based, as the `<goals>` array is; out-of-range, fractional and repeated
 * ones are dropped; a reason that is not a string is dropped, a long one cut.
 */
import { z } from 'zod';
import type { ChatModel, ChatResult, Usage } from '../llm/chat-model.js';
import { DIALOG_TAGS, dialogBlock, type DialogApiCallSpec, type DialogGoalSpec } from './dialog-prompt-tags.js';
import { generateStructured } from '../llm/structured-output.js';
import type { SessionEvent } from './session-events.js';

/** Re-prompts after an unusable judge reply. */
export const JUDGE_REPAIRS = 1;
/** A transcript line longer than this is cut: the judge needs the gist, and a huge message must not blow its context. */
const MAX_TRANSCRIPT_LINE = 2_000;
/** The whole transcript at most (characters): a long session must not overflow a judge's context. */
const MAX_TRANSCRIPT = 60_000;

export interface SessionJudgement {
  readonly success: boolean;
  /** 0-based indices into the goals, sorted, unique. */
  readonly achieved: readonly number[];
  /** achieved / goals (with no goals: 1 on success, else 0). */
  readonly progress: number;
  readonly reason?: string;
  /** Calls made (2 when the first reply needed a re-prompt). */
  readonly calls: number;
  readonly usage: Usage;
  /** The last reply, with the usage of every call: what cost is priced from. */
  readonly result: ChatResult;
}

/** A judge's reason longer than this is cut: it is kept in every session's report (100,000 of them at most). */
export const MAX_JUDGE_REASON = 1_000;

/**
 * The reason is a comment, not the verdict: one of another type is dropped rather than failing the verdict, and a
 * long one is cut.
 */
export const judgeReasonSchema = z
  .string()
  .optional()
  .catch(undefined)
  .transform((value) =>
    value !== undefined && value.length > MAX_JUDGE_REASON ? `${value.slice(0, MAX_JUDGE_REASON)}… (cut)` : value,
  );

const verdictSchema = z.object({
  success: z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]),
  // Any number is read: a fraction or one past the safe integers is dropped below, as an out-of-range index is,
  // rather than failing a verdict whose `success` is clear.
  achieved: z
    .array(z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]))
    .nullish()
    .transform((value) => value ?? []),
  reason: judgeReasonSchema,
});

const SYSTEM = [
  'You evaluate a finished conversation between a customer and a service assistant that follows a business',
  'procedure. You are given what the customer wanted (the goals, numbered from 0 in the order listed), the API',
  'calls the assistant made with whether each succeeded, and the transcript.',
  'A goal counts as achieved only when the conversation shows it was actually done: an API call that reached',
  'it succeeded, or the assistant gave the information asked for. A promise or a failed call does not count.',
  'The session is a success when the customer’s main goals were achieved.',
  'Answer with one JSON object and nothing else:',
  '{"success": true or false, "achieved": [indices of the achieved goals], "reason": "one short sentence"}',
].join('\n');

export interface JudgeSessionOptions {
  readonly goals: readonly DialogGoalSpec[];
  /** What the session recorded; the transcript and API calls are read from it. */
  readonly events: readonly SessionEvent[];
  /** The simulated session's id: the judge call's key (seeded models). */
  readonly key: string;
  readonly signal?: AbortSignal;
}

export async function judgeSession(model: ChatModel, options: JudgeSessionOptions): Promise<SessionJudgement> {
  // The transcript (free text from the user and the bot) comes first: the blocks after it are the last of their
  // name in the prompt, which is the one a reader of tagged blocks takes.
  const prompt = [
    'The transcript:',
    judgeTranscript(options.events),
    '',
    'The customer’s goals:',
    dialogBlock(DIALOG_TAGS.goals, options.goals),
    '',
    'The API calls the assistant made, in order:',
    dialogBlock(DIALOG_TAGS.apiCalls, apiCallsOf(options.events)),
    '',
    'Your verdict, as JSON:',
  ].join('\n');
  const structured = await generateStructured(
    model,
    {
      system: SYSTEM,
      messages: [{ role: 'user', content: prompt }],
      temperature: 0,
      tag: { purpose: 'judge', key: options.key },
    },
    verdictSchema,
    { maxRepairs: JUDGE_REPAIRS, select: 'last', ...(options.signal ? { signal: options.signal } : {}) },
  );
  const goals = options.goals.length;
  const achieved = [...new Set(structured.value.achieved)]
    .filter((index) => Number.isInteger(index) && index >= 0 && index < goals)
    .sort((a, b) => a - b);
  const success = structured.value.success;
  return {
    success,
    achieved,
    progress: goals === 0 ? (success ? 1 : 0) : achieved.length / goals,
    ...(structured.value.reason !== undefined ? { reason: structured.value.reason } : {}),
    calls: structured.attempts,
    usage: structured.usage,
    result: { ...structured.result, usage: structured.usage },
  };
}

/** The API calls of a session with their outcome: a call with no result (the process died mid-call) failed. */
export function apiCallsOf(events: readonly SessionEvent[]): DialogApiCallSpec[] {
  const outcomes = new Map<string, boolean>();
  for (const event of events) if (event.type === 'tool-result') outcomes.set(event.callId, event.ok);
  return events.flatMap((event) =>
    event.type === 'tool-call' ? [{ name: event.name, ok: outcomes.get(event.callId) ?? false }] : [],
  );
}

/** The conversation as the judge reads it: user and assistant lines, API calls and results in between. */
export function judgeTranscript(events: readonly SessionEvent[]): string {
  const lines: string[] = [];
  for (const event of events) {
    if (event.type === 'user-message') lines.push(`Customer: ${cut(event.text)}`);
    else if (event.type === 'bot-reply') lines.push(`Assistant: ${cut(event.text)}`);
    else if (event.type === 'tool-call') lines.push(`[API call] ${event.name} ${cut(JSON.stringify(event.args))}`);
    else if (event.type === 'tool-result')
      lines.push(
        event.ok
          ? `[API result] ${event.name}: ${cut(JSON.stringify(event.result ?? null))}`
          : `[API error] ${event.name}: ${cut(event.error ?? 'failed')}`,
      );
  }
  if (lines.length === 0) return '(the conversation is empty)';
  const text = lines.join('\n');
  if (text.length <= MAX_TRANSCRIPT) return text;
  // The start (what the user wanted) and the end (how it ended) matter most to a verdict.
  const head = text.slice(0, MAX_TRANSCRIPT / 3);
  const tail = text.slice(text.length - (2 * MAX_TRANSCRIPT) / 3);
  return `${head}\n… (${text.length - head.length - tail.length} characters of the middle cut)\n${tail}`;
}

function cut(text: string): string {
  return text.length > MAX_TRANSCRIPT_LINE ? `${text.slice(0, MAX_TRANSCRIPT_LINE)}… (cut)` : text;
}
