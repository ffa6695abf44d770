/**
 * One attempt at one subtask: the agent sees the task, its objective and its parents' outputs, and (in tags of
 * their own) its output format, the objectives of the subtasks that need its result and, on a retry, its earlier
 * attempts with the verifier's reasons (docs/algorithms.md#execution), then the result is double-checked (docs/algorithms.md#verification), against the
 * attempt's tool calls when its role has tools. Fault injection ("masking", docs/algorithms.md#fault-injection)
 * replaces the result with "none" after the check and before any child can read it, as the Flow paper describes:
 * the subtask's own verifier judges what the agent produced, and the fault shows only downstream.
 */
import type { Role } from '../graph/workflow.js';
import type { ChatModel } from '../llm/chat-model.js';
import { AGENT_SYSTEM_SUFFIX, executePrompt, type ExecuteContext, type ParentOutput } from '../plan/prompts.js';
import type { ToolEvidenceCall } from '../plan/tool-evidence.js';
import { verifySubtask } from '../plan/verify-subtask.js';
import { WeftError } from '../errors.js';
import { runToolLoop } from '../tools/tool-loop.js';
import { attemptEvidence } from './attempt-evidence.js';
import type { Verdict } from './events.js';
import type { AttemptTools } from './run-tools.js';

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
  /** What else the agent is told: earlier attempts and their feedback, the children's objectives, the format. */
  readonly context?: ExecuteContext;
  readonly model: ChatModel;
  readonly verify: boolean;
  /** Decides, for this attempt, whether the output is masked. */
  readonly mask: boolean;
  readonly signal: AbortSignal;
  /** For a role with tools: its tools, the step limit and the hooks that log each call (run-tools.ts). */
  readonly tools?: AttemptTools;
}

export type AttemptOutcome =
  | {
      readonly kind: 'verified';
      readonly output: string;
      readonly masked: boolean;
      /** What the agent produced, when fault injection handed "none" on in its place (kept for the record). */
      readonly produced?: string;
      readonly verdict: Verdict;
      readonly reason: string;
    }
  /** The agent said it cannot proceed: a re-plan without a verification call. */
  | { readonly kind: 'blocked'; readonly output: string; readonly reason: string };

export async function runSubtask(attempt: SubtaskAttempt): Promise<AttemptOutcome> {
  const call = {
    system: `${attempt.role.prompt}${AGENT_SYSTEM_SUFFIX}`,
    messages: [
      {
        role: 'user' as const,
        content: executePrompt(attempt.task, attempt.objective, attempt.parents, attempt.context),
      },
    ],
    tag: { purpose: 'execute' as const, key: attempt.id, attempt: attempt.attempt },
  };
  let text: string;
  let toolCalls: ToolEvidenceCall[] | undefined;
  if (attempt.role.tools && attempt.role.tools.length > 0) {
    if (!attempt.tools) {
      throw new WeftError(
        'BAD_INPUT',
        `Role "${attempt.role.name}" lists tools (${attempt.role.tools.join(', ')}) and this run has none (--tools FILE)`,
        { location: { field: `roles.${attempt.role.name}.tools` } },
      );
    }
    const loop = await runToolLoop({
      model: attempt.model,
      call,
      tools: attempt.tools.tools,
      maxSteps: attempt.tools.maxSteps,
      hooks: attempt.tools.hooks,
      ...(attempt.tools.scope !== undefined ? { callOptions: { scope: attempt.tools.scope } } : {}),
      signal: attempt.signal,
    });
    text = loop.text;
    toolCalls = attemptEvidence(attempt.id, attempt.attempt, loop.calls);
  } else {
    text = (await attempt.model.generate(call, attempt.signal)).text;
  }
  const result = { text };
  const blocked = CANNOT_PROCEED.exec(result.text);
  if (blocked)
    return { kind: 'blocked', output: result.text, reason: blocked[1]?.trim() || 'the agent cannot proceed' };

  return verifyOutput(attempt, result.text, toolCalls);
}

/**
 * Verifies what an attempt produced; shared by agents and teams. Under fault injection the verifier still sees what
 * was produced, and the outcome carries "none" in its place: that is what the run records and the children read.
 * `toolCalls`: the attempt's tool calls, for a role with tools.
 */
export async function verifyOutput(
  attempt: SubtaskAttempt,
  produced: string,
  toolCalls?: readonly ToolEvidenceCall[],
): Promise<AttemptOutcome> {
  const output = attempt.mask ? MASKED_OUTPUT : produced;
  const masked = attempt.mask ? { masked: true, produced } : { masked: false };
  if (!attempt.verify)
    return { kind: 'verified', output, ...masked, verdict: 'accept', reason: 'verification disabled' };
  const verdict = await verifySubtask({
    model: attempt.model,
    task: attempt.task,
    subtaskId: attempt.id,
    objective: attempt.objective,
    output: produced,
    attempt: attempt.attempt,
    ...(toolCalls ? { toolCalls } : {}),
    signal: attempt.signal,
  });
  return { kind: 'verified', output, ...masked, verdict: verdict.verdict, reason: verdict.reason };
}
