// @ts-check
/**
 * What an attempt came to, as the node panel heads it. The attempt's own end says `completed` whenever the agent
 * produced an output; the verifier may then send it back (retry, replan), so a completed attempt with a last
 * verdict other than accept is labelled by that verdict, never "completed".
 */

/**
 * @typedef {{ status?: string, outcome?: string, verdicts?: { verdict: string }[], toolCalls?: { ok?: boolean }[] }} AttemptLike
 * @typedef {{ state: string, label: string, toolCallsFailed: number }} AttemptLabel
 * `state` is the class the page colours it by: running, completed, failed, rejected (sent back by the verifier),
 * or the end's own outcome (discarded, aborted, refused).
 */

/**
 * @param {AttemptLike} attempt an AttemptView of the task detail API
 * @returns {AttemptLabel}
 */
export function attemptLabel(attempt) {
  const toolCallsFailed = (attempt.toolCalls ?? []).filter((call) => call.ok === false).length;
  if (attempt.status === undefined) return { state: 'running', label: 'running', toolCallsFailed };
  // Discarded (the plan changed under it), aborted, refused: not the attempt's own doing, whatever a verdict said.
  if (attempt.outcome) return { state: attempt.outcome, label: attempt.outcome, toolCallsFailed };
  const last = attempt.verdicts?.at(-1)?.verdict;
  if (last !== undefined && last !== 'accept')
    return { state: 'rejected', label: `${last}: sent back by the verifier`, toolCallsFailed };
  if (attempt.status !== 'completed') return { state: attempt.status, label: attempt.status, toolCallsFailed };
  return { state: 'completed', label: 'completed', toolCallsFailed };
}

/** @param {number} count */
export function toolFailureText(count) {
  return `${count} tool call${count === 1 ? '' : 's'} failed`;
}
