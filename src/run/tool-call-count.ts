/**
 * How the run's text outputs (`weft run`, `weft show`, `weft resume`, report.md, the live view) count tool calls:
 * the failed ones always said, and a subtask that completed although some of its tool calls failed marked, since
 * its output may claim what a failed call did not do. Pure.
 */

/** The mark a completed subtask with failed tool calls gets in text outputs (the dashboard draws the same). */
export const TOOL_FAILURE_MARK = '⚠';

/** `8 tool calls (2 failed)`, `1 tool call`. */
export function toolCallCount(calls: number, failed: number): string {
  return `${calls} tool call${calls === 1 ? '' : 's'}${failed > 0 ? ` (${failed} failed)` : ''}`;
}

/**
 * Why a subtask is marked (`2 of its 4 tool calls failed`): only one that completed with failed tool calls, over all
 * its attempts; undefined for any other.
 */
export function toolFailureWarning(task: {
  readonly status: string;
  readonly toolCalls: number;
  readonly toolCallsFailed: number;
}): string | undefined {
  if (task.status !== 'completed' || task.toolCallsFailed === 0) return undefined;
  return `${task.toolCallsFailed} of its ${toolCallCount(task.toolCalls, 0)} failed`;
}
