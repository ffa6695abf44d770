/**
 * The "double-check" of docs/algorithms.md#verification: after a subtask completes, the model judges whether its
 * requirement is met, and its typed verdict picks the recovery (accept, retry the subtask, or re-plan). For a role
 * with tools it also sees the attempt's tool calls, so it can catch an output that claims what they did not do.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { generateStructured } from '../llm/structured-output.js';
import { verdictAnswerJsonSchema } from './answer-schemas.js';
import { verdictAnswerSchema, type VerdictAnswer } from './plan-schemas.js';
import { VERIFIER_SYSTEM, verifyPrompt } from './prompts.js';
import { type ToolEvidenceCall, toolEvidenceSection } from './tool-evidence.js';

export interface VerifyOptions {
  readonly model: ChatModel;
  readonly task: string;
  readonly subtaskId: string;
  readonly objective: string;
  readonly output: string;
  readonly attempt: number;
  /** The attempt's tool calls, for a role with tools (an empty list says it made none); undefined for a role without. */
  readonly toolCalls?: readonly ToolEvidenceCall[];
  readonly signal?: AbortSignal;
}

export async function verifySubtask(options: VerifyOptions): Promise<VerdictAnswer> {
  const { value } = await generateStructured(
    options.model,
    {
      system: VERIFIER_SYSTEM,
      messages: [
        {
          role: 'user',
          content: verifyPrompt(
            options.task,
            options.objective,
            options.output,
            options.toolCalls ? toolEvidenceSection(options.toolCalls) : '',
          ),
        },
      ],
      json: { name: 'verdict', schema: verdictAnswerJsonSchema },
      temperature: 0,
      tag: { purpose: 'verify', key: options.subtaskId, attempt: options.attempt },
    },
    verdictAnswerSchema,
    { signal: options.signal },
  );
  return value;
}
