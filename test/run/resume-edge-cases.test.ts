/**
 * Crash windows of resume, built from a real run's log cut at chosen points (deterministic, unlike SIGKILL).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createModel } from '../../src/llm/resolve-model.js';
import type { WeftEvent } from '../../src/run/events.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { runPaths } from '../../src/store/run-paths.js';
import type { EventRecord, PlanVersion } from '../../src/store/run-store.js';
import { runEvents } from '../../src/run/run-events.js';

const SIM = 'sim:seed=5,tasks=6,fail=0.3';
const TASK = 'write a guide in six parts';

async function referenceRun() {
  const home = mkdtempSync(join(tmpdir(), 'weft-ref-'));
  const store = await openRunStore({ home });
  const result = await runTask({ task: TASK, model: await createModel(SIM), store, home, runId: 'ref' });
  const events = await runEvents(store, 'ref');
  const versions = await store.planVersions('ref');
  await store.close();
  return { result, events, versions };
}

/** A home holding the reference run's log cut before event `cut`, plus the given saved plan versions. */
async function crashedHome(events: readonly WeftEvent[], cut: number, versions: readonly PlanVersion[]) {
  const home = mkdtempSync(join(tmpdir(), 'weft-cut-'));
  const store = await openRunStore({ home });
  await store.createRun({
    runId: 'ref',
    task: TASK,
    model: SIM,
    options: (events[0] as Extract<WeftEvent, { type: 'run-start' }>).options,
  });
  await store.appendEvents('ref', events.slice(0, cut) as unknown as EventRecord[]);
  for (const version of versions)
    await store.savePlanVersion({
      runId: 'ref',
      version: version.version,
      workflow: version.workflow,
      cause: version.cause,
    });
  return { home, store };
}

describe('resume across the plan-version window', () => {
  it('a run killed after planning calls but before its plan was logged re-plans from the recorded calls', async () => {
    // A version is logged before it is saved, so this window has neither the event nor the saved version.
    const reference = await referenceRun();
    const chosen = reference.events.findIndex((e) => e.type === 'plan-chosen');
    expect(reference.events.slice(0, chosen).filter((e) => e.type === 'model-call')).toHaveLength(3);
    const { home, store } = await crashedHome(reference.events, chosen, []);
    const result = await resumeRun({ runId: 'ref', model: await createModel(SIM), store, home });
    expect(result.status).toBe(reference.result.status);
    expect(result.planVersion).toBe(reference.result.planVersion);
    expect(result.calls).toBe(reference.result.calls);
    expect(result.tasks.map((t) => [t.id, t.status, t.attempts])).toEqual(
      reference.result.tasks.map((t) => [t.id, t.status, t.attempts]),
    );
    await store.close();
  });

  it('a plan version logged but never saved is restored from the log', async () => {
    const reference = await referenceRun();
    expect(reference.result.planVersion).toBeGreaterThan(1);
    const update = reference.events.findIndex((e) => e.type === 'plan-update');
    const { home, store } = await crashedHome(
      reference.events,
      update + 1,
      reference.versions.filter((v) => v.version === 1),
    );
    const result = await resumeRun({ runId: 'ref', model: await createModel(SIM), store, home });
    expect(result.status).toBe(reference.result.status);
    expect(result.tasks).toEqual(
      reference.result.tasks.map((task) => ({ ...task, startMs: expect.any(Number), endMs: expect.any(Number) })),
    );
    expect((await store.planVersions('ref')).map((v) => v.version)).toEqual(reference.versions.map((v) => v.version));
    expect(existsSync(runPaths(home, 'ref').planFile(2))).toBe(true);
    await store.close();
  });
});

describe('resume across an inspector round that changed nothing', () => {
  it('a run killed after a no-change update was logged reruns the failed subtask without asking the inspector again', async () => {
    // This seed's second inspector round answers "no change": its only effect is that t1 runs again.
    const sim = 'sim:seed=33,tasks=10,fail=0.2,badjson=0.1';
    const home0 = mkdtempSync(join(tmpdir(), 'weft-ref-'));
    const store0 = await openRunStore({ home: home0 });
    const reference = await runTask({
      task: 'write a report in ten parts',
      model: await createModel(sim),
      store: store0,
      home: home0,
      runId: 'ref',
    });
    const events = await runEvents(store0, 'ref');
    const versions = await store0.planVersions('ref');
    await store0.close();
    const rounds = events.flatMap((event, index) =>
      event.type === 'plan-candidates' && event.purpose === 'update' ? [index] : [],
    );
    const noChange = rounds.find((index) => events[index + 1]?.type !== 'plan-update');
    expect(noChange, 'the seed must have a no-change round').toBeDefined();

    const { home, store } = await crashedHome(
      events,
      noChange! + 1,
      versions.filter((v) => v.version === 1),
    );
    const result = await resumeRun({ runId: 'ref', model: await createModel(sim), store, home });
    expect(result.status).toBe(reference.status);
    expect(result.calls).toBe(reference.calls);
    expect(result.tasks.map((t) => [t.id, t.status, t.attempts])).toEqual(
      reference.tasks.map((t) => [t.id, t.status, t.attempts]),
    );
    const after = (await runEvents(store, 'ref')).slice(noChange! + 1);
    expect(after.filter((event) => event.type === 'model-call' && event.purpose === 'update')).toEqual([]);
    await store.close();
  });
});

describe('resume of an attempt that ended without a logged verdict', () => {
  it('runs the same attempt number again, so its recorded calls are replayed, and never spends an attempt', async () => {
    const { foldForResume } = await import('../../src/run/resume-state.js');
    const workflow = {
      task: TASK,
      roles: [],
      subtasks: [{ id: 'a', objective: 'do a', agent: 'writer', dependsOn: [] }],
    };
    const events = [
      { type: 'run-start', at: 0, runId: 'r', task: TASK, model: SIM, options: {} },
      { type: 'plan-chosen', at: 1, version: 1, workflow },
      { type: 'task-start', at: 2, taskId: 'a', attempt: 3 },
      { type: 'task-end', at: 3, taskId: 'a', attempt: 3, status: 'completed', output: 'text' },
    ] as unknown as WeftEvent[];
    // Attempt 3 of 3 ended; its verdict is not in the log. Counting it as spent would fail the subtask unverified.
    const state = foldForResume(events);
    expect(state.workflow!.subtasks[0]).toMatchObject({ id: 'a', status: 'not started', attempts: 2 });
    const verified = foldForResume([
      ...events,
      { type: 'task-verify', at: 4, taskId: 'a', attempt: 3, verdict: 'retry', reason: '' } as unknown as WeftEvent,
    ]);
    expect(verified.workflow!.subtasks[0]).toMatchObject({ status: 'not started', attempts: 3 });
  });
});
