import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import type { WorkflowJson } from '../../src/graph/workflow.js';
import type { WeftEvent } from '../../src/run/events.js';
import { createMeter } from '../../src/runtime/budget.js';
import { meteredModel } from '../../src/runtime/metered-model.js';
import { deferred, testModel } from './test-model.js';
import { diamond, run, starts } from './execution-harness.js';

describe('execute', () => {
  it('runs a diamond with the two middle subtasks in parallel and completes', async () => {
    const gates = { b: deferred<string>(), c: deferred<string>() };
    const model = testModel({ execute: (key) => (key === 'b' || key === 'c' ? gates[key].promise : `out ${key}`) });
    const { events, promise } = run(diamond(), { model });
    await new Promise((resolve) => setImmediate(resolve));
    // b and c both started before either finished.
    expect(starts(events).map((e) => e.taskId)).toEqual(['a', 'b', 'c']);
    gates.b.resolve('out b');
    gates.c.resolve('out c');
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(result.version).toBe(1);
    expect(starts(events).map((e) => e.taskId)).toEqual(['a', 'b', 'c', 'd']);
    expect(model.count('execute')).toBe(4);
    expect(model.count('verify')).toBe(4);
    expect(model.count('update')).toBe(0);
    expect(result.workflow.subtasks.map((s) => s.output)).toEqual(['out a', 'out b', 'out c', 'out d']);
  });

  it('starts a child in the same tick its last parent is accepted (no polling)', async () => {
    const gate = deferred<string>();
    const model = testModel({ execute: (key) => (key === 'c' ? gate.promise : `out ${key}`) });
    const { events, promise } = run(diamond(), { model });
    await new Promise((resolve) => setImmediate(resolve));
    expect(starts(events, 'd')).toHaveLength(0);
    gate.resolve('out c');
    // Let only microtasks run: a polling scheduler would need a timer tick to notice.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(starts(events, 'd')).toHaveLength(1);
    await promise;
  });

  it('gives each concurrent subtask of one role its own clone', async () => {
    const json: WorkflowJson = {
      task: 'fan out',
      subtasks: ['x', 'y', 'z'].map((id) => ({ id, objective: `do ${id}`, agent: 'coder', dependsOn: [] })),
    };
    const { events, promise } = run(json, { model: testModel() });
    await promise;
    expect(
      starts(events)
        .map((e) => e.clone)
        .sort(),
    ).toEqual([0, 1, 2]);
  });

  it('never runs more subtasks at once than the concurrency cap', async () => {
    let running = 0;
    let peak = 0;
    const model = testModel({
      execute: async (key) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        return key;
      },
    });
    const json: WorkflowJson = {
      task: 'many',
      subtasks: Array.from({ length: 7 }, (_, i) => ({ id: `t${i}`, objective: `do ${i}`, agent: 'w', dependsOn: [] })),
    };
    const { promise } = run(json, { model, concurrency: 2 });
    expect((await promise).status).toBe('completed');
    expect(peak).toBe(2);
  });

  it('shows an agent only the task, its objective and its parents’ outputs', async () => {
    const model = testModel();
    await run(diamond(), { model }).promise;
    const prompt = model.calls.find((c) => c.tag?.purpose === 'execute' && c.tag.key === 'd')!.messages[0]!.content;
    expect(prompt).toContain('<objective>\ndo d\n</objective>');
    expect(prompt).toContain('output of b');
    expect(prompt).toContain('output of c');
    expect(prompt).not.toContain('output of a');
  });

  it('re-plans on a failed verification and keeps finished work (on-failure)', async () => {
    const model = testModel({
      verify: (key, attempt) =>
        key === 'b' && attempt === 1 ? { verdict: 'replan', reason: 'b is incomplete' } : { verdict: 'accept' },
      update: (call) => {
        const prompt = call.messages[0]!.content;
        expect(prompt).toContain('<failed>b</failed>');
        return {
          subtasks: [...diamond().subtasks.map((s) => (s.id === 'b' ? { ...s, objective: 'do b properly' } : s))],
        };
      },
    });
    const { events, promise } = run(diamond(), { model });
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(result.version).toBe(2);
    expect(starts(events, 'a')).toHaveLength(1);
    expect(starts(events, 'c')).toHaveLength(1);
    expect(starts(events, 'b')).toHaveLength(2);
    expect(starts(events, 'd')).toHaveLength(1);
    const update = events.find((e) => e.type === 'plan-update') as Extract<WeftEvent, { type: 'plan-update' }>;
    expect(update.diff.changed).toEqual(['b']);
    expect(update.cause).toContain('b is incomplete');
    expect(result.workflow.subtasks.find((s) => s.id === 'b')!.objective).toBe('do b properly');
    expect(model.count('update')).toBe(1);
  });

  it('re-runs a subtask on a retry verdict without asking the inspector', async () => {
    const model = testModel({
      verify: (key, attempt) => (key === 'c' && attempt < 3 ? { verdict: 'retry' } : { verdict: 'accept' }),
    });
    const { events, promise } = run(diamond(), { model });
    expect((await promise).status).toBe('completed');
    expect(starts(events, 'c').map((e) => e.attempt)).toEqual([1, 2, 3]);
    expect(model.count('update')).toBe(0);
  });

  it('without updates a failure blocks the descendants and fails the run', async () => {
    const model = testModel({
      verify: (key) => (key === 'b' ? { verdict: 'replan', reason: 'bad' } : { verdict: 'accept' }),
    });
    const { events, promise } = run(diamond(), { model, strategy: 'none' });
    const result = await promise;
    expect(result.status).toBe('failed');
    expect(starts(events, 'd')).toHaveLength(0);
    expect(model.count('update')).toBe(0);
    expect(result.reason).toContain('b');
  });

  it('gives up a subtask after maxAttempts and ends the run as failed', async () => {
    const model = testModel({
      verify: (key) => (key === 'b' ? { verdict: 'replan', reason: 'never good' } : { verdict: 'accept' }),
    });
    const { events, promise } = run(diamond(), { model, maxAttempts: 2 });
    const result = await promise;
    expect(result.status).toBe('failed');
    expect(starts(events, 'b')).toHaveLength(2);
    expect(starts(events, 'd')).toHaveLength(0);
  });

  it('after-completion starts nothing new while an update is pending', async () => {
    const model = testModel();
    const { events, promise } = run(diamond(), { model, strategy: 'after-completion' });
    expect((await promise).status).toBe('completed');
    // a, then {b, c} together (the update waits for both running subtasks), then d: three updates.
    expect(model.count('update')).toBe(3);
    const order = model.calls.map((c) => c.tag?.purpose);
    for (let i = 0; i < order.length; i++) {
      if (order[i] === 'verify' && i + 1 < order.length && order.slice(i + 1).some((p) => p === 'execute')) {
        const nextExecute = order.indexOf('execute', i + 1);
        expect(order.slice(i + 1, nextExecute)).toContain('update');
      }
    }
    expect(events.filter((e) => e.type === 'plan-update')).toHaveLength(0);
  });

  it('concurrent asks the inspector after every completion while others keep running', async () => {
    const model = testModel();
    const { promise } = run(diamond(), { model, strategy: 'concurrent' });
    expect((await promise).status).toBe('completed');
    expect(model.count('update')).toBeGreaterThanOrEqual(3);
  });

  it('a masked result is judged as produced by its verifier, and reaches the children as "none"', async () => {
    // The Flow paper masks an output "before passing it to the next agent": the subtask's own check sees the real
    // output, so nothing fails and, without a review, the children build on "none".
    const model = testModel();
    const { events, promise } = run(diamond(), { model, mask: (id, attempt) => id === 'a' && attempt === 1 });
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(starts(events, 'a')).toHaveLength(1);
    const verifyPrompt = model.calls.find((c) => c.tag?.purpose === 'verify' && c.tag.key === 'a')!.messages[0]!
      .content;
    expect(verifyPrompt).toContain('<output>\noutput of a\n</output>');
    const childPrompt = model.calls.find((c) => c.tag?.purpose === 'execute' && c.tag.key === 'b')!.messages[0]!
      .content;
    expect(childPrompt).toMatch(/<input from="a"[^>]*>\nnone\n/);
    // The record keeps what the agent wrote beside the mask.
    expect(
      events.find((e) => e.type === 'task-end' && (e as unknown as { taskId: string }).taskId === 'a'),
    ).toMatchObject({
      output: 'none',
      masked: true,
      produced: 'output of a',
    });
  });

  it('a review that revises a masked subtask reruns it and every subtask that read its "none"', async () => {
    const model = testModel({
      update: (call) => {
        const prompt = call.messages[0]!.content;
        if (!/<result id="a">\nnone\n<\/result>/.test(prompt)) return {};
        return { subtasks: diamond().subtasks.map((s) => (s.id === 'a' ? { ...s, objective: 'do a again' } : s)) };
      },
    });
    const { events, promise } = run(diamond(), {
      model,
      strategy: 'concurrent',
      mask: (id, attempt) => id === 'a' && attempt === 1,
    });
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(starts(events, 'a')).toHaveLength(2);
    // Nothing accepted at the end was computed from the mask.
    for (const subtask of result.workflow.subtasks) expect(subtask.output, subtask.id).not.toBe('none');
    for (const call of model.calls.filter((c) => c.tag?.purpose === 'execute')) {
      const accepted = result.workflow.subtasks.find((s) => s.id === call.tag?.key);
      if (accepted?.attempts === call.tag?.attempt && call.tag?.key !== 'a')
        expect(call.messages[0]!.content, call.tag?.key).not.toMatch(/<input from="a"[^>]*>\nnone\n/);
    }
  });

  it('stops before a call that would break the budget and keeps what finished', async () => {
    const meter = createMeter();
    const model = meteredModel(testModel(), {
      budget: { maxCalls: 4 },
      meter,
      now: () => 0,
      costOf: () => 0,
      emit: () => {},
    });
    const { promise } = run(diamond(), { model });
    const result = await promise;
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/call budget of 4/);
    expect(meter.calls).toBe(4);
    expect(result.workflow.subtasks.find((s) => s.id === 'a')!.status).toBe('completed');
  });

  it('cancels on abort, keeping completed subtasks', async () => {
    const controller = new AbortController();
    const hang = deferred<string>();
    const model = testModel({ execute: (key) => (key === 'a' ? 'out a' : hang.promise) });
    const { promise } = run(diamond(), { model, signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new WeftError('ABORTED', 'user cancelled'));
    const result = await promise;
    expect(result.status).toBe('cancelled');
    expect(result.workflow.subtasks.find((s) => s.id === 'a')!.status).toBe('completed');
    expect(result.workflow.subtasks.find((s) => s.id === 'd')!.status).toBe('not started');
  });

  it('ignores the late result of a subtask that an update removed', async () => {
    const slow = deferred<string>();
    const model = testModel({
      execute: (key) => (key === 'c' ? slow.promise : `out ${key}`),
      verify: (key, attempt) =>
        key === 'b' && attempt === 1 ? { verdict: 'replan', reason: 'c is unnecessary' } : { verdict: 'accept' },
      update: () => ({
        subtasks: [
          { id: 'a', objective: 'do a', agent: 'worker', dependsOn: [] },
          { id: 'b', objective: 'do b', agent: 'worker', dependsOn: ['a'] },
          { id: 'd', objective: 'do d', agent: 'writer', dependsOn: ['b'] },
        ],
      }),
    });
    const { events, promise } = run(diamond(), { model });
    const result = await promise.then(async (r) => r);
    slow.resolve('late c');
    expect(result.status).toBe('completed');
    expect(result.workflow.subtasks.map((s) => s.id)).toEqual(['a', 'b', 'd']);
    expect(
      events.some(
        (e) =>
          e.type === 'task-end' &&
          (e as unknown as { taskId: string }).taskId === 'c' &&
          (e as unknown as { error?: string }).error === 'discarded by a plan update',
      ),
    ).toBe(true);
  });

  it('never runs a role of another kind as a single agent: without its runner, the attempt fails naming the kind', async () => {
    const json: WorkflowJson = {
      ...diamond(),
      roles: [
        { name: 'worker', prompt: 'w' },
        { name: 'writer', prompt: 'w', kind: 'team', team: 'no-such-team.yaml' },
      ],
    };
    const model = testModel();
    const { events, promise } = run(json, { model });
    const result = await promise;
    // No runner is registered for `team` here; the writer's subtasks never get a plain execute call.
    const writerTasks = new Set(json.subtasks.filter((s) => s.agent === 'writer').map((s) => s.id));
    expect(writerTasks.size).toBeGreaterThan(0);
    expect(model.calls.filter((c) => c.tag?.purpose === 'execute' && writerTasks.has(c.tag.key ?? ''))).toEqual([]);
    expect(result.status).toBe('failed');
    expect(JSON.stringify(events)).toContain('No runner for role kind \\"team\\"');
  });
});

describe('execute: the repair limit', () => {
  const wide = (n: number): WorkflowJson => ({
    task: 'wide',
    subtasks: Array.from({ length: n }, (_, i) => ({
      id: `t${i}`,
      objective: `do ${i}`,
      agent: 'w',
      dependsOn: i > 0 && i % 3 === 0 ? [`t${i - 1}`] : [],
    })),
  });

  it('routine reviews of the concurrent strategy do not use up the repair limit', async () => {
    // 60 completions trigger routine reviews; the three failures still get repaired.
    const failing = new Set(['t5', 't30', 't59']);
    const model = testModel({
      verify: (key, attempt) =>
        attempt === 1 && failing.has(key) ? { verdict: 'replan', reason: 'missing' } : { verdict: 'accept' },
    });
    const { promise } = run(wide(60), {
      model,
      strategy: 'concurrent',
      maxUpdates: 5,
    });
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(model.count('update')).toBeGreaterThan(5);
  });

  it('says so when a failure goes unrepaired because the limit was reached', async () => {
    const model = testModel({
      verify: (key) =>
        key === 'b' || key === 'c' ? { verdict: 'replan', reason: 'never good' } : { verdict: 'accept' },
    });
    const { promise } = run(diamond(), { model, maxUpdates: 1 });
    const result = await promise;
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/limit of 1 repair updates was reached/);
  });
});
