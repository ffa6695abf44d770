/**
 * Edge cases of src/run/execution.ts found in review: interleavings of failures, updates, budgets and bookkeeping.
 */
import { describe, expect, it } from 'vitest';
import type { WorkflowJson } from '../../src/graph/workflow.js';
import { createMeter } from '../../src/runtime/budget.js';
import { meteredModel } from '../../src/runtime/metered-model.js';
import { deferred, testModel } from './test-model.js';
import { diamond, run, starts, tick } from './execution-harness.js';

describe('review: bookkeeping failures at the end of a run', () => {
  it('a failed artifact write for the last accepted subtask fails the run', async () => {
    // track() calls stop() on a bookkeeping failure, but stop() returns early once finish() has run — and finish()
    // runs in the same pump as the last acceptance, before its onAccepted promise settles.
    const { promise } = run(diamond(), {
      model: testModel(),
      onAccepted: async (taskId) => {
        await tick();
        if (taskId === 'd') throw new Error('ENOSPC: no space left on device');
      },
    });
    const result = await promise;
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/ENOSPC/);
  });

  it('a plan version that fails to save on the last update fails the run', async () => {
    // d fails; the inspector drops it, so nothing is left to run; onPlanVersion rejects. The update's .finally()
    // pumps (and finishes the run) before the rejection reaches track(), whose stop() is then ignored.
    const model = testModel({
      verify: (key) => (key === 'd' ? { verdict: 'replan', reason: 'd is not needed' } : { verdict: 'accept' }),
      update: () => ({ subtasks: diamond().subtasks.filter((s) => s.id !== 'd') }),
    });
    const { promise } = run(diamond(), {
      model,
      onPlanVersion: async () => {
        await tick();
        throw new Error('SQLITE_FULL: database or disk is full');
      },
    });
    const result = await promise;
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/SQLITE_FULL/);
  });
});

describe('a repair round and the saving of its plan version', () => {
  it('ends when the revision is merged: a failure during a slow save gets its own round at once', async () => {
    // Holding the round open until the save finished made which failures a round batched (and so the plans) depend
    // on disk speed: under load the same seed took other paths, and resumed runs ended unlike uninterrupted ones.
    const bExecute = deferred<string>();
    const save = deferred<void>();
    const model = testModel({
      execute: (key) => (key === 'b' ? bExecute.promise : `out ${key}`),
      verify: (key, attempt) =>
        attempt === 1 ? { verdict: 'replan', reason: `${key} is wrong` } : { verdict: 'accept' },
      update: (call) => {
        // The first round is about a, the second about b; each revises the objective of the one that failed.
        const failed = model.count('update') === 1 ? 'a' : 'b';
        return {
          subtasks: ['a', 'b'].map((id) => ({
            id,
            objective: id === failed ? `do ${id} better` : `do ${id}`,
            agent: 'w',
            dependsOn: [],
          })),
        };
      },
    });
    const json: WorkflowJson = {
      task: 'save timing',
      subtasks: [
        { id: 'a', objective: 'do a', agent: 'w', dependsOn: [] },
        { id: 'b', objective: 'do b', agent: 'w', dependsOn: [] },
      ],
    };
    const saved: number[] = [];
    const { events, promise } = run(json, {
      model,
      onPlanVersion: async (version) => {
        saved.push(version);
        if (version === 2) await save.promise;
      },
    });
    // a fails, round 1 revises a, and version 2 starts saving (and hangs).
    for (let turn = 0; turn < 20 && saved.length === 0; turn++) await tick();
    expect(saved).toEqual([2]);
    // b fails while version 2 is still being saved: its round starts without waiting for the save.
    bExecute.resolve('out b');
    for (let turn = 0; turn < 20 && model.count('update') < 2; turn++) await tick();
    expect(model.count('update')).toBe(2);
    save.resolve();
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(events.filter((event) => event.type === 'plan-update').length).toBe(2);
  });
});

describe('review: budgets', () => {
  it('budget exhaustion lets running calls settle and keeps their results (design.md "Budgets")', async () => {
    // a and b start together; b's execute call is already made (and paid) when d's call is refused. The design says the
    // run "stops starting work, lets running calls settle"; stop() aborts every running controller instead.
    const gate = deferred<string>();
    const meter = createMeter();
    const inner = testModel({ execute: (key) => (key === 'b' ? gate.promise : `out ${key}`) });
    const model = meteredModel(inner, {
      budget: { maxCalls: 3 },
      meter,
      now: () => 0,
      costOf: () => 0,
      emit: () => {},
    });
    const json: WorkflowJson = {
      task: 'budget',
      subtasks: [
        { id: 'a', objective: 'do a', agent: 'w', dependsOn: [] },
        { id: 'b', objective: 'do b', agent: 'w', dependsOn: [] },
        { id: 'c', objective: 'do c', agent: 'w', dependsOn: ['a'] },
        { id: 'd', objective: 'do d', agent: 'w', dependsOn: ['c'] },
      ],
    };
    const { promise } = run(json, { model, verify: false });
    await tick();
    await tick();
    gate.resolve('out b');
    const result = await promise;
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/call budget of 3/);
    expect(meter.calls).toBe(3);
    // b's call was in flight and paid for: it should have settled and been kept.
    expect(result.workflow.subtasks.find((s) => s.id === 'b')!.status).toBe('completed');
  });

  it('a budget refusal during an update stops the run', async () => {
    // proposeUpdate uses Promise.allSettled, so the BUDGET error is folded into "no usable candidate" and the
    // `error.code === 'BUDGET'` branch in startUpdate() is dead: the executor degrades to a rerun and keeps starting work.
    const meter = createMeter();
    const inner = testModel({
      verify: (key) => (key === 'a' ? { verdict: 'replan', reason: 'bad a' } : { verdict: 'accept' }),
    });
    // a: execute + verify = 2 calls; the inspector's call is the third and is refused.
    const model = meteredModel(inner, {
      budget: { maxCalls: 2 },
      meter,
      now: () => 0,
      costOf: () => 0,
      emit: () => {},
    });
    const { events, promise } = run(diamond(), { model, updateCandidates: 1 });
    const result = await promise;
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/budget/i);
    // After the refused inspector call nothing new should start.
    expect(starts(events, 'a')).toHaveLength(1);
  });
});

describe('review: failures that arrive while an update is in flight', () => {
  it('a failure queued during an update is dropped when that update already replaced the subtask', async () => {
    // b fails -> update U1 starts (held). c fails while U1 is in flight -> queued. U1 rewrites c's objective, so c
    // restarts and completes. The queued failure for c is never pruned: a second inspector round (a "repair", counted
    // against maxUpdates) is asked to fix c, which is already running/completed.
    const u1 = deferred<unknown>();
    const cGate = deferred<string>();
    let updateCalls = 0;
    const failedLists: string[] = [];
    const model = testModel({
      execute: (key, attempt) => (key === 'c' && attempt === 1 ? cGate.promise : `out ${key}`),
      verify: (key, attempt) =>
        (key === 'b' || key === 'c') && attempt === 1
          ? { verdict: 'replan', reason: `bad ${key}` }
          : { verdict: 'accept' },
      update: (call) => {
        updateCalls += 1;
        failedLists.push(/<failed>(.*)<\/failed>/.exec(call.messages[0]!.content)?.[1] ?? '');
        if (updateCalls === 1) return u1.promise;
        return {};
      },
    });
    const { events, promise } = run(diamond(), { model });
    await tick();
    await tick();
    // U1 is in flight for b; now c fails.
    cGate.resolve('out c');
    await tick();
    await tick();
    u1.resolve({
      subtasks: diamond().subtasks.map((s) =>
        s.id === 'b' || s.id === 'c' ? { ...s, objective: `${s.objective} properly` } : s,
      ),
    });
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(starts(events, 'c')).toHaveLength(2);
    expect(failedLists[0]).toBe('b');
    // Only one repair was needed: U1 already replaced c.
    expect(failedLists).toEqual(['b']);
  });

  it('a failure that arrives during an update whose revision keeps it unchanged is repaired by the next update', async () => {
    const u1 = deferred<unknown>();
    const cGate = deferred<string>();
    let updateCalls = 0;
    const model = testModel({
      execute: (key, attempt) => (key === 'c' && attempt === 1 ? cGate.promise : `out ${key}`),
      verify: (key, attempt) =>
        (key === 'b' || key === 'c') && attempt === 1
          ? { verdict: 'replan', reason: `bad ${key}` }
          : { verdict: 'accept' },
      update: () => {
        updateCalls += 1;
        return updateCalls === 1 ? u1.promise : {};
      },
    });
    const { events, promise } = run(diamond(), { model });
    await tick();
    await tick();
    cGate.resolve('out c');
    await tick();
    await tick();
    u1.resolve({});
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(updateCalls).toBe(2);
    expect(starts(events, 'c').map((e) => e.attempt)).toEqual([1, 2]);
    expect(starts(events, 'd')).toHaveLength(1);
  });
});

describe('review: merge of inspector revisions into live state', () => {
  it('reassigning a completed subtask with an unchanged objective keeps its output (docs/algorithms.md#plan-updates)', async () => {
    // docs/algorithms.md#plan-updates: a subtask whose objective is unchanged keeps its state, a completed one
    // its output, even when the revision gives it to another role.
    const model = testModel({
      verify: (key, attempt) =>
        key === 'b' && attempt === 1 ? { verdict: 'replan', reason: 'bad b' } : { verdict: 'accept' },
      update: () => ({
        roles: [{ name: 'senior', prompt: 'You are a senior worker.' }],
        subtasks: diamond().subtasks.map((s) => (s.id === 'a' || s.id === 'b' ? { ...s, agent: 'senior' } : s)),
      }),
    });
    const { events, promise } = run(diamond(), { model });
    const result = await promise;
    expect(result.status).toBe('completed');
    // a was completed with an unchanged objective: it must keep its output and not run again.
    expect(starts(events, 'a')).toHaveLength(1);
  });

  it('a running subtask whose objective and agent are unchanged keeps running through an update', async () => {
    const cGate = deferred<string>();
    const model = testModel({
      execute: (key) => (key === 'c' ? cGate.promise : `out ${key}`),
      verify: (key, attempt) =>
        key === 'b' && attempt === 1 ? { verdict: 'replan', reason: 'bad b' } : { verdict: 'accept' },
      update: () => ({
        subtasks: diamond().subtasks.map((s) => (s.id === 'b' ? { ...s, objective: 'do b better' } : s)),
      }),
    });
    const { events, promise } = run(diamond(), { model });
    await tick();
    await tick();
    await tick();
    expect(events.some((e) => e.type === 'plan-update')).toBe(true);
    cGate.resolve('out c');
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(starts(events, 'c')).toHaveLength(1);
    expect(
      events.some((e) => e.type === 'task-end' && (e as { error?: string }).error === 'discarded by a plan update'),
    ).toBe(false);
  });

  it('after-completion starts nothing while a failure-triggered update is pending, then repairs it', async () => {
    const cGate = deferred<string>();
    const model = testModel({
      execute: (key) => (key === 'c' ? cGate.promise : `out ${key}`),
      verify: (key, attempt) =>
        key === 'b' && attempt === 1 ? { verdict: 'replan', reason: 'bad b' } : { verdict: 'accept' },
    });
    const { events, promise } = run(diamond(), { model, strategy: 'after-completion' });
    await tick();
    await tick();
    await tick();
    // b failed while c runs: the update waits for c, and b does not restart before it.
    expect(starts(events, 'b')).toHaveLength(1);
    expect(model.count('update')).toBe(1); // the one after a
    cGate.resolve('out c');
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(starts(events, 'b')).toHaveLength(2);
  });
});

describe('review: plan files from an earlier run', () => {
  it('a subtask marked "failed" in a given plan runs again', async () => {
    // load() resets 'in progress' to 'not started' ("starts afresh") but keeps 'failed': fail() is never called for it,
    // so no update is requested and the run ends failed without a single call.
    const json: WorkflowJson = {
      task: 'resume',
      subtasks: [
        { id: 'a', objective: 'do a', agent: 'w', dependsOn: [], status: 'completed', output: 'out a', attempts: 1 },
        { id: 'b', objective: 'do b', agent: 'w', dependsOn: ['a'], status: 'failed', attempts: 1 },
        { id: 'c', objective: 'do c', agent: 'w', dependsOn: ['b'] },
      ],
    };
    const model = testModel();
    const result = await run(json, { model }).promise;
    expect(model.count('execute')).toBeGreaterThan(0);
    expect(result.status).toBe('completed');
  });
});

describe('review: the agent protocol', () => {
  it('"CANNOT PROCEED:" counts only on the first line, so a result may quote it', async () => {
    // The prompt says a *first line* starting "CANNOT PROCEED:"; the regex uses the m flag and matches any line.
    const output = [
      '```js path=agent.js',
      'if (!input) {',
      '  console.log("x");',
      '}',
      '```',
      'CANNOT PROCEED: is what the agent prints when it lacks input (documented above).',
    ].join('\n');
    const model = testModel({ execute: (key) => (key === 'a' ? output : `out ${key}`) });
    const { events, promise } = run(diamond(), { model, strategy: 'none' });
    const result = await promise;
    expect(
      events.some((e) => e.type === 'task-end' && (e as { error?: string }).error?.startsWith('cannot proceed')),
    ).toBe(false);
    expect(result.status).toBe('completed');
  });
});

describe('review: roles introduced by the inspector', () => {
  it('a team role the inspector invents runs as an ordinary agent, never reading the file it named', async () => {
    const model = testModel({
      verify: (key, attempt) =>
        key === 'b' && attempt === 1 ? { verdict: 'replan', reason: 'needs a panel' } : { verdict: 'accept' },
      update: () => ({
        roles: [{ name: 'panel', prompt: 'A panel of experts.', kind: 'team', team: 'panel.yaml' }],
        subtasks: diamond().subtasks.map((s) =>
          s.id === 'b' ? { ...s, objective: 'do b as a panel', agent: 'panel' } : s,
        ),
      }),
    });
    const { events, promise } = run(diamond(), { model });
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(starts(events, 'b').map((e) => e.agent)).toEqual(['worker', 'panel']);
    expect(result.workflow.roles.find((role) => role.name === 'panel')).toEqual({
      name: 'panel',
      prompt: 'A panel of experts.',
      kind: 'llm',
    });
    const panelCall = model.calls.find((c) => c.tag?.purpose === 'execute' && c.tag.key === 'b' && c.tag.attempt === 2);
    expect(panelCall?.system).toContain('A panel of experts.');
  });
});
