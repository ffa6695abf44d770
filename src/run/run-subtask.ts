/**
 * One attempt at one subtask: the agent sees the task, its objective and its parents' outputs
 * (docs/algorithms.md#execution), then the result is double-checked. Fault injection ("masking",
 * docs/algorithms.md#fault-injection) replaces the result with "none" before the check and before any child can see it.
 */
import type { Role } from '../graph/workflow.js';
import type { ChatModel } from '../llm/chat-model.js';
import { AGENT_SYSTEM_SUFFIX, executePrompt, type ParentOutput } from '../plan/prompts.js';
import { verifySubtask } from '../plan/verify-subtask.js';
import type { Verdict } from './events.js';

export const MASKED_OUTPUT = 'none';

/** Only the first non-empty line counts, as the agent prompt says, so a result may quote the phrase. */
const CANNOT_PROCEED = /^\s*CANNOT PROCEED:[ \t]*(.*)/i;

export interface SubtaskAttempt {
  readonly task: string;
  readonly id: string;
  readonly objective: string;
  readonly role: Role;
  readonly parents: readonly ParentOutput[];
  readonly attempt: number;
  readonly model: ChatModel;
  readonly verify: boolean;
  /** Decides, for this attempt, whether the output is masked. */
  readonly mask: boolean;
  readonly signal: AbortSignal;
}

export type AttemptOutcome =
  | {
      readonly kind: 'verified';
      readonly output: string;
      readonly masked: boolean;
      readonly verdict: Verdict;
      readonly reason: string;
    }
  /** The agent said it cannot proceed: a re-plan without a verification call. */
  | { readonly kind: 'blocked'; readonly output: string; readonly reason: string };

export async function runSubtask(attempt: SubtaskAttempt): Promise<AttemptOutcome> {
  const result = await attempt.model.generate(
    {
      system: `${attempt.role.prompt}${AGENT_SYSTEM_SUFFIX}`,
      messages: [{ role: 'user', content: executePrompt(attempt.task, attempt.objective, attempt.parents) }],
      tag: { purpose: 'execute', key: attempt.id, attempt: attempt.attempt },
    },
    attempt.signal,
  );
  const blocked = CANNOT_PROCEED.exec(result.text);
  if (blocked)
    return { kind: 'blocked', output: result.text, reason: blocked[1]?.trim() || 'the agent cannot proceed' };

  return verifyOutput(attempt, result.text);
}

/** Verifies what an attempt produced (masked first under fault injection); shared by agents and teams. */
export async function verifyOutput(attempt: SubtaskAttempt, produced: string): Promise<AttemptOutcome> {
  const output = attempt.mask ? MASKED_OUTPUT : produced;
  if (!attempt.verify)
    return { kind: 'verified', output, masked: attempt.mask, verdict: 'accept', reason: 'verification disabled' };
  const verdict = await verifySubtask({
    model: attempt.model,
    task: attempt.task,
    subtaskId: attempt.id,
    objective: attempt.objective,
    output,
    attempt: attempt.attempt,
    signal: attempt.signal,
  });
  return { kind: 'verified', output, masked: attempt.mask, verdict: verdict.verdict, reason: verdict.reason };
}
