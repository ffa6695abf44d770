import { describe, expect, it } from 'vitest';
import type { WeftEvent } from '../../src/run/events.js';
import { fateOf, foldFate, resumeReason, summaryReason, type Fates } from '../../src/run/subtask-fate.js';

const plan: WeftEvent = {
  type: 'plan-chosen',
  at: 0,
  version: 1,
  index: 0,
  workflow: { task: 't', subtasks: [{ id: 'a', objective: 'do a', agent: 'w', dependsOn: [] }] },
};

function fold(events: WeftEvent[]): Fates {
  const fates: Fates = new Map();
  for (const event of events) foldFate(fates, event);
  return fates;
}

describe('foldFate', () => {
  it('counts started and ended attempts apart: a refused attempt started but did not end', () => {
    const fate = fateOf(
      fold([
        plan,
        { type: 'task-start', at: 1, taskId: 'a', attempt: 1, agent: 'w', clone: 0 },
        { type: 'task-end', at: 2, taskId: 'a', attempt: 1, status: 'failed', error: 'spent', outcome: 'refused' },
      ]),
      'a',
    );
    expect(fate).toMatchObject({ status: 'not started', started: 1, ended: 0, startMs: 1, endMs: 2 });
  });

  it('keeps a verdict-failure for each reader to word, and marks a failure a repair round sent back', () => {
    const fates = fold([
      plan,
      { type: 'task-start', at: 1, taskId: 'a', attempt: 1, agent: 'w', clone: 0 },
      { type: 'task-end', at: 2, taskId: 'a', attempt: 1, status: 'completed', output: 'x' },
      { type: 'task-verify', at: 3, taskId: 'a', attempt: 1, verdict: 'replan', reason: 'wrong' },
    ]);
    const fate = fateOf(fates, 'a');
    expect(fate.status).toBe('failed');
    expect(resumeReason(fate)).toBe('wrong');
    expect(summaryReason(fate)).toBe('the verifier answered replan: wrong');
    expect(fate.sentBack).toBe(false);
    foldFate(fates, {
      type: 'plan-candidates',
      at: 4,
      purpose: 'update',
      candidates: [],
      round: 1,
      repair: true,
      rerun: ['a'],
    });
    expect(fate.sentBack).toBe(true);
    foldFate(fates, { type: 'task-start', at: 5, taskId: 'a', attempt: 2, agent: 'w', clone: 0 });
    expect(fate).toMatchObject({ status: 'in progress', sentBack: false, started: 2, ended: 1 });
  });

  it('takes the accepted output from the task-end of the attempt the verdict names', () => {
    const fate = fateOf(
      fold([
        plan,
        { type: 'task-start', at: 1, taskId: 'a', attempt: 1, agent: 'w', clone: 0 },
        { type: 'task-end', at: 2, taskId: 'a', attempt: 1, status: 'completed', output: 'first' },
        { type: 'task-verify', at: 3, taskId: 'a', attempt: 1, verdict: 'accept', reason: '' },
      ]),
      'a',
    );
    expect(fate).toMatchObject({ status: 'completed', output: 'first' });
    expect(fate.pendingOutput).toBeUndefined();
  });
});
