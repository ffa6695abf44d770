/**
 * The turn judge of `weft dialog eval` (SPEC §4.3): given the conversation before a bot move, the reference move
 * (`<reference>`) and the predicted one (`<prediction>`), a model (purpose `judge`) says whether the prediction is
 * consistent with the reference — a binary verdict. Parsed as the session judge's reply is (judge-session.ts).
 */
import { z } from 'zod';
import type { ChatModel, ChatResult, Usage } from '../llm/chat-model.js';
import { DIALOG_TAGS, dialogBlock, type DialogMoveSpec } from '../llm/dialog-prompt-tags.js';
import { generateStructured } from '../llm/structured-output.js';
import { JUDGE_REPAIRS, judgeReasonSchema } from './judge-session.js';

export interface TurnJudgement {
  readonly consistent: boolean;
  readonly reason?: string;
  readonly calls: number;
  readonly usage: Usage;
  readonly result: ChatResult;
}

const verdictSchema = z.object({
  consistent: z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]),
  reason: judgeReasonSchema,
});

const SYSTEM = [
  'You compare two candidate next moves of a service assistant that follows a business procedure: the reference',
  'move (what a correct assistant did) and the predicted move. A move is either an API call (name and arguments)',
  'or a reply to the customer.',
  'They are consistent when the prediction does the same thing: the same API with equivalent arguments, or a',
  'reply with the same purpose and the same key information (asking for the same details, giving the same',
  'answer). Wording may differ. An API call against a reply is not consistent.',
  'Answer with one JSON object and nothing else: {"consistent": true or false, "reason": "one short sentence"}',
].join('\n');

export interface JudgeTurnOptions {
  /** The conversation before the move, as text. */
  readonly context: string;
  readonly reference: DialogMoveSpec;
  readonly prediction: DialogMoveSpec;
  /** `<reference session id>/<message index>`: the call's key (seeded models). */
  readonly key: string;
  readonly signal?: AbortSignal;
}

export async function judgeTurn(model: ChatModel, options: JudgeTurnOptions): Promise<TurnJudgement> {
  const prompt = [
    'The conversation so far:',
    options.context,
    '',
    'The reference move:',
    dialogBlock(DIALOG_TAGS.reference, options.reference),
    '',
    'The predicted move:',
    dialogBlock(DIALOG_TAGS.prediction, options.prediction),
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
  return {
    consistent: structured.value.consistent,
    ...(structured.value.reason !== undefined ? { reason: structured.value.reason } : {}),
    calls: structured.attempts,
    usage: structured.usage,
    result: { ...structured.result, usage: structured.usage },
  };
}
