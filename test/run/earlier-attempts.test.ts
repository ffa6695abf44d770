/**
 * What a retry is told of earlier attempts: the reducer and the log's fold forget them when a plan update changes
 * the subtask's objective, and keep them when it does not (docs/algorithms.md#retries-that-learn).
 */
import { describe, expect, it } from 'vitest';
import { workflowFromJson } from '../../src/graph/index.js';
import type { WorkflowJson } from '../../src/graph/workflow.js';
import { foldEarlierAttempts, newEarlierAttemptsFold } from '../../src/run/earlier-attempts.js';
import type { WeftEvent } from '../../src/run/events.js';
import {
  createRunState,
  step,
  type EventWithoutTime,
  type RunCommand,
  type RunState,
} from '../../src/run/run-state.js';
import { updatePolicy } from '../../src/run/update-policies.js';

const plan = (objective: string): WorkflowJson => ({
  task: 't',
  subtasks: [{ id: 'a', objective, agent: 'x', dependsOn: [] }],
});

function fold(events: readonly EventWithoutTime[]) {
  const state = newEarlierAttemptsFold();
  for (const event of events) foldEarlierAttempts(state, { ...event, at: 0 } as WeftEvent);
  return state.earlier.get('a');
}

describe('the fold of earlier attempts', () => {
  const retried: EventWithoutTime[] = [
    { type: 'plan-chosen', version: 1, index: 0, workflow: plan('A') },
    { type: 'task-start', taskId: 'a', attempt: 1, agent: 'x', clone: 0 },
    { type: 'task-end', taskId: 'a', attempt: 1, status: 'completed', output: 'first' },
    { type: 'task-verify', taskId: 'a', attempt: 1, verdict: 'retry', reason: 'too short' },
  ];

  it('keeps a retried attempt, and a blocked one with its "cannot proceed" reason', () => {
    const earlier = fold([
      ...retried,
      {
        type: 'task-end',
        taskId: 'a',
        attempt: 2,
        status: 'failed',
        output: 'CANNOT PROCEED: x',
        error: 'cannot proceed: x',
      },
    ]);
    expect(earlier?.shown).toStrictEqual([
      { attempt: 1, verdict: 'retry', output: 'first', reason: 'too short' },
      { attempt: 2, verdict: 'blocked', output: 'CANNOT PROCEED: x', reason: 'cannot proceed: x' },
    ]);
  });

  it('ignores accepted attempts, errors and discarded ones', () => {
    const earlier = fold([
      { type: 'plan-chosen', version: 1, index: 0, workflow: plan('A') },
      { type: 'task-end', taskId: 'a', attempt: 1, status: 'failed', error: 'PROVIDER: 500' },
      { type: 'task-end', taskId: 'a', attempt: 2, status: 'failed', error: 'discarded', outcome: 'discarded' },
      { type: 'task-end', taskId: 'a', attempt: 3, status: 'completed', output: 'good' },
      { type: 'task-verify', taskId: 'a', attempt: 3, verdict: 'accept', reason: '' },
    ]);
    expect(earlier).toBeUndefined();
  });

  it('keeps them through a plan version with the same objective and forgets them on a new one', () => {
    const same = {
      type: 'plan-update',
      version: 2,
      cause: 'c',
      diff: { added: [], removed: [], changed: [], rewired: [] },
    };
    expect(fold([...retried, { ...same, workflow: plan('A') } as EventWithoutTime])?.shown).toHaveLength(1);
    expect(fold([...retried, { ...same, workflow: plan('B') } as EventWithoutTime])).toBeUndefined();
  });
});

describe('the reducer', () => {
  const config = { policy: updatePolicy('on-failure'), concurrency: 4, maxAttempts: 5, maxUpdates: 5, durable: false };

  function startOf(commands: RunCommand[]) {
    const start = commands.find((c) => c.type === 'start-attempt');
    if (start?.type !== 'start-attempt') throw new Error('no start');
    return start;
  }

  function replanFirst(state: RunState) {
    const first = startOf(step(state, { type: 'schedule', logPending: false }));
    const settled = step(state, {
      type: 'attempt-settled',
      handle: first.request.handle,
      outcome: { kind: 'verified', output: 'first', masked: false, verdict: 'replan', reason: 'wrong idea' },
    });
    expect(settled.some((c) => c.type === 'emit' && c.event.type === 'task-verify')).toBe(true);
    step(state, { type: 'schedule', logPending: false });
  }

  it('tells a subtask rerun after a repair of its failed attempt when its objective is unchanged', () => {
    const { state } = createRunState(config, { workflow: workflowFromJson(plan('A')) });
    replanFirst(state);
    step(state, {
      type: 'update-proposed',
      result: { candidates: [], proposal: undefined, outcome: 'no-change', chosenIndex: -1 },
    });
    step(state, { type: 'update-ended' });
    const rerun = startOf(step(state, { type: 'schedule', logPending: false }));
    expect(rerun.request.context.earlier).toStrictEqual([
      { attempt: 1, verdict: 'replan', output: 'first', reason: 'wrong idea' },
    ]);
    expect(rerun.event).toMatchObject({ feedback: [{ attempt: 1, verdict: 'replan', reason: 'wrong idea' }] });
  });

  it('tells it nothing once the inspector changed its objective', () => {
    const { state } = createRunState(config, { workflow: workflowFromJson(plan('A')) });
    replanFirst(state);
    step(state, {
      type: 'update-proposed',
      result: { candidates: [], proposal: { subtasks: plan('B').subtasks }, outcome: 'changed', chosenIndex: 0 },
    });
    step(state, { type: 'update-ended' });
    const rerun = startOf(step(state, { type: 'schedule', logPending: false }));
    expect(rerun.request.objective).toBe('B');
    expect(rerun.request.context.earlier).toBeUndefined();
    expect(rerun.event).not.toHaveProperty('feedback');
  });
});
