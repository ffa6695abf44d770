/**
 * The "double-check" of docs/algorithms.md#verification: after a subtask completes, the model judges whether its
 * requirement is met, and its typed verdict picks the recovery (accept, retry the subtask, or re-plan).
 */
import type { ChatModel } from '../llm/chat-model.js';
import { generateStructured } from '../llm/structured-output.js';
import { verdictAnswerJsonSchema } from './answer-schemas.js';
import { verdictAnswerSchema, type VerdictAnswer } from './plan-schemas.js';
import { VERIFIER_SYSTEM, verifyPrompt } from './prompts.js';

export interface VerifyOptions {
  readonly model: ChatModel;
  readonly task: string;
  readonly subtaskId: string;
  readonly objective: string;
  readonly output: string;
  readonly attempt: number;
  readonly signal?: AbortSignal;
}

export async function verifySubtask(options: VerifyOptions): Promise<VerdictAnswer> {
  const { value } = await generateStructured(
    options.model,
    {
      system: VERIFIER_SYSTEM,
      messages: [{ role: 'user', content: verifyPrompt(options.task, options.objective, options.output) }],
      json: { name: 'verdict', schema: verdictAnswerJsonSchema },
      temperature: 0,
      tag: { purpose: 'verify', key: options.subtaskId, attempt: options.attempt },
    },
    verdictAnswerSchema,
    { signal: options.signal },
  );
  return value;
}
