/** How the node panel heads an attempt (web/views/attempt-label.js): by the verifier's verdict, not only its end. */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: web/ is plain JS with JSDoc (checked by tsconfig.web.json), no declarations here.
import { attemptLabel, toolFailureText } from '../../web/views/attempt-label.js';
// @ts-expect-error: web/ is plain JS with JSDoc (checked by tsconfig.web.json), no declarations here.
import { emptyFold, foldEvent } from '../../web/views/run-fold.js';

describe('attempt labels', () => {
  it('a completed attempt the verifier sent back is labelled by its verdict', () => {
    for (const verdict of ['replan', 'retry'])
      expect(attemptLabel({ status: 'completed', verdicts: [{ verdict }], toolCalls: [] })).toEqual({
        state: 'rejected',
        label: `${verdict}: sent back by the verifier`,
        toolCallsFailed: 0,
      });
    // The last verdict counts: accepted after a re-verification.
    expect(attemptLabel({ status: 'completed', verdicts: [{ verdict: 'retry' }, { verdict: 'accept' }] }).label).toBe(
      'completed',
    );
  });

  it('accepted or unverified: completed; failed, running and the end’s own outcome as such', () => {
    expect(attemptLabel({ status: 'completed', verdicts: [{ verdict: 'accept' }] }).state).toBe('completed');
    expect(attemptLabel({ status: 'completed', verdicts: [] }).state).toBe('completed');
    expect(attemptLabel({ status: 'failed', verdicts: [] })).toMatchObject({ state: 'failed', label: 'failed' });
    expect(attemptLabel({ verdicts: [] })).toMatchObject({ state: 'running', label: 'running' });
    // A discarded attempt was replaced by a plan update: that, not a verdict given before, says what happened.
    expect(
      attemptLabel({ status: 'completed', outcome: 'discarded', verdicts: [{ verdict: 'replan' }] }),
    ).toMatchObject({ state: 'discarded', label: 'discarded' });
  });

  it('counts the attempt’s failed tool calls, and says how many', () => {
    const attempt = { status: 'completed', verdicts: [], toolCalls: [{ ok: false }, { ok: true }, { ok: false }, {}] };
    expect(attemptLabel(attempt).toolCallsFailed).toBe(2);
    expect(toolFailureText(1)).toBe('1 tool call failed');
    expect(toolFailureText(2)).toBe('2 tool calls failed');
  });

  it('the live fold gives each timeline bar its failed tool calls and the verdict that sent it back', () => {
    const fold = emptyFold();
    const events = [
      { type: 'task-start', at: 1, taskId: 'a', attempt: 1, agent: 'w', clone: 0 },
      { type: 'tool-result', at: 2, taskId: 'a', attempt: 1, sequence: 0, name: 'x', ok: false },
      { type: 'tool-result', at: 2, taskId: 'a', attempt: 1, sequence: 1, name: 'x', ok: true },
      { type: 'task-end', at: 3, taskId: 'a', attempt: 1, status: 'completed' },
      { type: 'task-verify', at: 4, taskId: 'a', attempt: 1, verdict: 'replan', reason: 'no' },
      { type: 'task-start', at: 5, taskId: 'a', attempt: 2, agent: 'w', clone: 0 },
      { type: 'task-end', at: 6, taskId: 'a', attempt: 2, status: 'completed' },
    ];
    events.forEach((event, index) => foldEvent(fold, index + 1, event));
    const [first, second] = fold.attempts.get('a');
    expect(first).toMatchObject({ toolCallsFailed: 1, outcome: 'rejected', verdict: 'replan' });
    expect(second.toolCallsFailed).toBeUndefined();
    expect(second.outcome).toBeUndefined();
  });
});
