/**
 * Which subtask a model call serves, for its trace span and `model-call` event: a Flow subtask's `execute` and `verify`
 * calls are keyed by the subtask's id (run-subtask.ts); the run's other calls (plan, update, judge) serve the run
 * as a whole. The run engine hands this to the models it traces, so the model layer need not know its purposes.
 */
import type { CallTag } from '../llm/chat-model.js';

export function subtaskOfCall(tag: Pick<CallTag, 'purpose' | 'key'> | undefined): string | undefined {
  return tag !== undefined && (tag.purpose === 'execute' || tag.purpose === 'verify') ? tag.key : undefined;
}
