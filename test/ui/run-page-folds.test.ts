/** The run page's pure parts: the live fold (counts over the current plan, failure reasons), parallelism, plan diffs. */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: web/ is plain JS with JSDoc (checked by tsconfig.web.json), no declarations here.
import { diffClasses, diffRows, textChange } from '../../web/views/plan-diff.js';
// @ts-expect-error: web/ is plain JS with JSDoc (checked by tsconfig.web.json), no declarations here.
import { parallelism } from '../../web/views/parallelism.js';
// @ts-expect-error: web/ is plain JS with JSDoc (checked by tsconfig.web.json), no declarations here.
import { completedWithToolFailures, emptyFold, foldEvent, statusCounts } from '../../web/views/run-fold.js';

const subtask = (id: string, dependsOn: string[] = [], objective = `do ${id}`, agent = 'w') => ({
  id,
  objective,
  agent,
  dependsOn,
});

function fold(events: Record<string, unknown>[]) {
  const state = emptyFold();
  events.forEach((event, index) => foldEvent(state, index + 1, event));
  return state;
}

describe('run fold', () => {
  it('counts only the current plan version, keeping the statuses of subtasks that stay', () => {
    const state = fold([
      { type: 'run-start', at: 0 },
      { type: 'plan-chosen', at: 1, version: 1, workflow: { subtasks: [subtask('a'), subtask('b'), subtask('c')] } },
      { type: 'task-start', at: 2, taskId: 'a', attempt: 1, agent: 'w' },
      { type: 'task-end', at: 3, taskId: 'a', attempt: 1, status: 'completed', output: 'x' },
      { type: 'task-start', at: 3, taskId: 'b', attempt: 1, agent: 'w' },
      // v2 drops c and adds d while b runs.
      {
        type: 'plan-update',
        at: 4,
        version: 2,
        workflow: {
          subtasks: [
            { ...subtask('a'), status: 'completed' },
            { ...subtask('b'), status: 'in progress' },
            { ...subtask('d', ['b']), status: 'not started' },
          ],
        },
      },
    ]);
    expect(Object.fromEntries(statusCounts(state))).toEqual({
      'not started': 1,
      'in progress': 1,
      completed: 1,
      failed: 0,
    });
    expect([...state.plan]).toEqual(['a', 'b', 'd']);
    expect(state.subtasks.get('a')).toBe('completed');
    expect(state.version).toBe(2);
  });

  it('counts failed tool calls per subtask and names the completed subtasks that have some', () => {
    const call = (taskId: string, attempt: number, sequence: number) => ({
      type: 'tool-call',
      at: 1,
      taskId,
      attempt,
      sequence,
      name: 'refund',
      args: {},
    });
    const end = (taskId: string, attempt: number, sequence: number, ok: boolean) => ({
      type: 'tool-result',
      at: 2,
      taskId,
      attempt,
      sequence,
      name: 'refund',
      ok,
      ...(ok ? { result: 'done' } : { error: 'HTTP 409', code: 'TOOL' }),
      durationMs: 1,
    });
    const state = fold([
      { type: 'plan-chosen', at: 0, version: 1, workflow: { subtasks: [subtask('a'), subtask('b'), subtask('c')] } },
      { type: 'task-start', at: 1, taskId: 'a', attempt: 1, agent: 'w' },
      call('a', 1, 0),
      end('a', 1, 0, false),
      call('a', 1, 1),
      end('a', 1, 1, true),
      { type: 'task-end', at: 3, taskId: 'a', attempt: 1, status: 'completed' },
      { type: 'task-start', at: 1, taskId: 'b', attempt: 1, agent: 'w' },
      call('b', 1, 0),
      end('b', 1, 0, false),
      { type: 'task-end', at: 3, taskId: 'b', attempt: 1, status: 'failed', error: 'boom' },
      { type: 'task-start', at: 1, taskId: 'c', attempt: 1, agent: 'w' },
      call('c', 1, 0),
      end('c', 1, 0, true),
      { type: 'task-end', at: 3, taskId: 'c', attempt: 1, status: 'completed' },
    ]);
    expect(state.toolCalls).toBe(4);
    expect(state.toolCallsFailed).toBe(2);
    expect(Object.fromEntries(state.toolFailures)).toEqual({ a: 1, b: 1 });
    // b failed (its own status says so); c's calls all succeeded: only a is marked.
    expect(Object.fromEntries(completedWithToolFailures(state))).toEqual({ a: 1 });
  });

  it('says why a subtask failed: its error, or the verifier verdict; a later success clears it', () => {
    const state = fold([
      { type: 'plan-chosen', at: 0, version: 1, workflow: { subtasks: [subtask('a'), subtask('b')] } },
      { type: 'task-start', at: 1, taskId: 'a', attempt: 1, agent: 'w' },
      { type: 'task-verify', at: 2, taskId: 'a', attempt: 1, verdict: 'retry', reason: 'too short' },
      { type: 'task-end', at: 3, taskId: 'a', attempt: 1, status: 'failed' },
      { type: 'task-start', at: 1, taskId: 'b', attempt: 1, agent: 'w' },
      { type: 'task-end', at: 2, taskId: 'b', attempt: 1, status: 'failed', error: 'model error: 500' },
      { type: 'task-start', at: 4, taskId: 'b', attempt: 2, agent: 'w' },
      // A discarded attempt says nothing about the subtask.
      {
        type: 'task-end',
        at: 5,
        taskId: 'b',
        attempt: 2,
        status: 'failed',
        outcome: 'discarded',
        error: 'plan changed',
      },
      { type: 'team', at: 5, taskId: 'a', attempt: 1 },
      { type: 'run-end', at: 6, status: 'failed', reason: 'subtask a failed' },
    ]);
    expect(Object.fromEntries(state.errors)).toEqual({
      a: 'the verifier answered retry: too short',
      b: 'model error: 500',
    });
    expect(state.status).toBe('failed');
    expect(state.reason).toBe('subtask a failed');
    expect(state.teams).toBe(1);
    const healed = fold([
      { type: 'plan-chosen', at: 0, version: 1, workflow: { subtasks: [subtask('a')] } },
      { type: 'task-start', at: 1, taskId: 'a', attempt: 1, agent: 'w' },
      { type: 'task-end', at: 2, taskId: 'a', attempt: 1, status: 'failed', error: 'boom' },
      { type: 'task-start', at: 3, taskId: 'a', attempt: 2, agent: 'w' },
      { type: 'task-end', at: 4, taskId: 'a', attempt: 2, status: 'completed' },
    ]);
    expect(healed.errors.size).toBe(0);
  });

  it('marks an attempt the verifier sent back as failed, and takes statuses from a new plan version', () => {
    const state = fold([
      { type: 'plan-chosen', at: 0, version: 1, workflow: { subtasks: [subtask('a'), subtask('b'), subtask('c')] } },
      { type: 'task-start', at: 1, taskId: 'a', attempt: 1, agent: 'w' },
      { type: 'task-end', at: 2, taskId: 'a', attempt: 1, status: 'completed' },
      { type: 'task-verify', at: 2, taskId: 'a', attempt: 1, verdict: 'replan', reason: 'wrong' },
      { type: 'task-start', at: 1, taskId: 'b', attempt: 1, agent: 'w' },
      { type: 'task-end', at: 2, taskId: 'b', attempt: 1, status: 'completed' },
      { type: 'task-verify', at: 2, taskId: 'b', attempt: 1, verdict: 'accept', reason: 'fine' },
      { type: 'task-start', at: 3, taskId: 'c', attempt: 1, agent: 'w' },
    ]);
    expect(Object.fromEntries(state.subtasks)).toEqual({ a: 'failed', b: 'completed', c: 'in progress' });
    expect(state.errors.get('a')).toBe('the verifier answered replan: wrong');
    expect(state.attempts.get('a')[0].outcome).toBe('rejected');
    expect(state.attempts.get('b')[0].outcome).toBeUndefined();
    // The replan revises a (it starts over) and keeps b done; c's running attempt keeps its status.
    foldEvent(state, 100, {
      type: 'plan-update',
      at: 4,
      version: 2,
      workflow: {
        subtasks: [
          { ...subtask('a'), status: 'not started' },
          { ...subtask('b'), status: 'completed' },
          { ...subtask('c'), status: 'in progress' },
        ],
      },
    });
    expect(Object.fromEntries(state.subtasks)).toEqual({ a: 'not started', b: 'completed', c: 'in progress' });
    expect(state.errors.size).toBe(0);
  });

  it('keeps a subtask running while its attempt is open, whatever a new plan version snapshot says', () => {
    const state = fold([
      { type: 'plan-chosen', at: 0, version: 1, workflow: { subtasks: [subtask('a')] } },
      { type: 'task-start', at: 1, taskId: 'a', attempt: 1, agent: 'w' },
      { type: 'task-end', at: 2, taskId: 'a', attempt: 1, status: 'failed', error: 'boom' },
      { type: 'task-start', at: 3, taskId: 'a', attempt: 2, agent: 'w' },
      // The version was snapshotted before the retry started, and says the old outcome.
      { type: 'plan-update', at: 4, version: 2, workflow: { subtasks: [{ ...subtask('a'), status: 'completed' }] } },
    ]);
    expect(state.subtasks.get('a')).toBe('in progress');
    foldEvent(state, 6, { type: 'task-end', at: 5, taskId: 'a', attempt: 2, status: 'completed', output: 'ok' });
    expect(state.subtasks.get('a')).toBe('completed');
  });

  it('drops an event seen again after a reconnect', () => {
    const state = emptyFold();
    expect(foldEvent(state, 1, { type: 'model-call', at: 1, inputTokens: 3, outputTokens: 4, costUsd: 0.5 })).toBe(
      true,
    );
    expect(foldEvent(state, 1, { type: 'model-call', at: 1, inputTokens: 3, outputTokens: 4, costUsd: 0.5 })).toBe(
      false,
    );
    expect([state.calls, state.inputTokens + state.outputTokens, state.costUsd]).toEqual([1, 7, 0.5]);
  });
});

describe('parallelism', () => {
  it('finds the peak of attempts running at once; one starting as another ends is not parallel', () => {
    const { max, steps } = parallelism(
      [
        { start: 0, end: 10 },
        { start: 10, end: 20 },
        { start: 12, end: 15 },
        { start: 14, end: 30 },
      ],
      30,
    );
    expect(max).toBe(3);
    expect(steps).toEqual([
      { at: 0, running: 1 },
      { at: 10, running: 1 },
      { at: 12, running: 2 },
      { at: 14, running: 3 },
      { at: 15, running: 2 },
      { at: 20, running: 1 },
      { at: 30, running: 0 },
    ]);
  });

  it('counts a running attempt up to now and ignores empty bars', () => {
    expect(parallelism([{ start: 5 }, { start: 6, end: 8 }, { start: 7, end: 7 }], 9).max).toBe(2);
    expect(parallelism([], 100)).toEqual({ max: 0, steps: [] });
  });
});

describe('plan diff', () => {
  const older = { subtasks: [subtask('a'), subtask('b', ['a']), subtask('c', ['a'])] };
  const newer = {
    subtasks: [subtask('a', [], 'do a better', 'critic'), subtask('b', ['d']), subtask('d', ['a'])],
  };
  const diff = { added: ['d'], removed: ['c'], changed: ['a'], rewired: ['a', 'b'] };

  it('classes each node of both drawings, a node changed and rewired carrying both', () => {
    const classes = diffClasses({ ...diff, rewired: ['b', 'a'] });
    expect(Object.fromEntries(classes.before)).toEqual({
      c: 'diff-removed',
      a: 'diff-changed diff-rewired',
      b: 'diff-rewired',
    });
    expect(Object.fromEntries(classes.after)).toEqual({
      d: 'diff-added',
      a: 'diff-changed diff-rewired',
      b: 'diff-rewired',
    });
    expect(diffClasses(undefined).after.size).toBe(0);
  });

  it('lists the changes in words', () => {
    expect(diffRows(diff, older, newer)).toEqual([
      { kind: 'added', id: 'd', after: 'w: do d' },
      { kind: 'removed', id: 'c', before: 'w: do c' },
      { kind: 'changed', id: 'a', before: 'w: do a', after: 'critic: do a better' },
      { kind: 'rewired', id: 'a', before: 'no dependencies', after: 'no dependencies' },
      { kind: 'rewired', id: 'b', before: 'after a', after: 'after d' },
    ]);
    expect(diffRows(undefined, undefined, newer)).toEqual([]);
  });

  it('marks where a revised text differs', () => {
    expect(textChange('do a (draft)', 'do a (revised)')).toEqual({
      prefix: 'do a (',
      removed: 'draft',
      added: 'revised',
      suffix: ')',
    });
    expect(textChange('abc', 'abc more')).toEqual({ prefix: 'abc', removed: '', added: ' more', suffix: '' });
    // A repeated character is not counted in both the start and the end.
    expect(textChange('aa', 'aaa')).toEqual({ prefix: 'aa', removed: '', added: 'a', suffix: '' });
  });
});
