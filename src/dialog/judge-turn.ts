/**
 * The turn judge of `weft dialog eval`: given the conversation before a bot move, the reference move
 * (`<reference>`) and the predicted one (`<prediction>`), a model (purpose `judge`) says whether the prediction is
 * consistent with the reference (Weft's binary verdict) and scores it from 1 to 10 (the FlowAgent paper's verdict;
 * a turn passes at 9). Parsed as the session judge's reply is (judge-session.ts).
 */
import { z } from 'zod';
import type { ChatModel, ChatResult, Usage } from '../llm/chat-model.js';
import { DIALOG_TAGS, dialogBlock, type DialogMoveSpec } from './dialog-prompt-tags.js';
import { generateStructured } from '../llm/structured-output.js';
import { JUDGE_REPAIRS, judgeReasonSchema } from './judge-session.js';

export interface TurnJudgement {
  readonly consistent: boolean;
  /** The FlowAgent paper's score, 1 (wrong) to 10 (as good as the reference); a turn passes at 9 or more. */
  readonly score: number;
  readonly reason?: string;
  readonly calls: number;
  readonly usage: Usage;
  readonly result: ChatResult;
}

const verdictSchema = z.object({
  consistent: z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]),
  score: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\s*\d+(?:\.\d+)?\s*$/)
        .transform(Number),
    ])
    .pipe(z.number().min(1).max(10)),
  reason: judgeReasonSchema,
});

/**
 * Two verdicts in one call: Weft's binary consistency, and the FlowAgent paper's 1–10 score with its rubric
 * (correctness against the procedure, helpfulness, humanness; 9–10 nearly identical to the reference), so that
 * both protocols are reported from the same judgement of the same move.
 */
const SYSTEM = [
  'You compare two candidate next moves of a service assistant that follows a business procedure: the reference',
  'move (what a correct assistant did) and the predicted move. A move is either an API call (name and arguments)',
  'or a reply to the customer. Give two verdicts.',
  '1. consistent: whether the prediction does the same thing — the same API with equivalent arguments, or a reply',
  '   with the same purpose and the same key information (asking for the same details, giving the same answer).',
  '   Wording may differ. An API call against a reply is not consistent.',
  '2. score, from 1 to 10: the quality of the prediction against the reference, judged on correctness (it keeps',
  '   to the procedure and contradicts nothing), helpfulness (it understands and serves the customer’s request',
  '   within the procedure) and humanness (clear, coherent, complete, courteous). 9-10: as good as the reference,',
  '   nearly identical in effect; 7-8: close to it; 5-6: of moderate quality; 3-4: poor; 1-2: with serious errors.',
  'Answer with one JSON object and nothing else:',
  '{"consistent": true or false, "score": <1 to 10>, "reason": "one short sentence"}',
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
    score: structured.value.score,
    ...(structured.value.reason !== undefined ? { reason: structured.value.reason } : {}),
    calls: structured.attempts,
    usage: structured.usage,
    result: { ...structured.result, usage: structured.usage },
  };
}
