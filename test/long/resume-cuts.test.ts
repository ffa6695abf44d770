/**
 * Resume from every point where a crash can leave a run's log: the log is written one transaction per batch of
 * events, so a crash cuts it at a batch boundary. A reference run records its boundaries; each prefix is then
 * resumed in a fresh home. Deterministic, unlike SIGKILL, and exhaustive.
 *
 * For the crash sweep's seed every resume must reach the reference's final state. For the others the invariants
 * must hold (no error, no accepted output lost or redone, no recorded call repeated); their final state may differ
 * when the crash falls where failures race a repair round (docs/design.md, "Resume"), and the count is printed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createModel } from '../../src/llm/resolve-model.js';
import type { WeftEvent } from '../../src/run/events.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { runTask, type RunTaskResult } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { EventRecord, RunStore } from '../../src/store/run-store.js';
import {
  acceptedOutputs,
  objectiveAt,
  repeatedCalls,
  restartsAfterAcceptance,
  SIM,
  TASK,
} from '../e2e/crash-harness.js';
import { runEvents } from '../../src/run/run-events.js';

const course = (result: RunTaskResult) => ({
  status: result.status,
  planVersion: result.planVersion,
  calls: result.calls,
  tasks: result.tasks.map((task) => [task.id, task.status, task.attempts]),
});

async function reference(sim: string) {
  const home = mkdtempSync(join(tmpdir(), 'weft-cuts-ref-'));
  const store = await openRunStore({ home });
  const boundaries: number[] = [];
  let appended = 0;
  const append = store.appendEvents.bind(store);
  const recording: RunStore = Object.assign(Object.create(store) as RunStore, {
    appendEvents: async (runId: string, batch: readonly EventRecord[]) => {
      await append(runId, batch);
      appended += batch.length;
      boundaries.push(appended);
    },
  });
  const result = await runTask({ task: TASK, model: await createModel(sim), store: recording, home, runId: 'ref' });
  const events = await runEvents(store, 'ref');
  const versions = await store.planVersions('ref');
  await store.close();
  return { result, events, versions, boundaries: boundaries.filter((cut) => cut < events.length) };
}

/** Resumes the reference cut after `cut` events, with the versions logged by then saved. */
async function resumeAt(sim: string, ref: Awaited<ReturnType<typeof reference>>, cut: number) {
  const home = mkdtempSync(join(tmpdir(), 'weft-cuts-'));
  const store = await openRunStore({ home });
  try {
    await store.createRun({
      runId: 'ref',
      task: TASK,
      model: sim,
      options: (ref.events[0] as Extract<WeftEvent, { type: 'run-start' }>).options,
    });
    await store.appendEvents('ref', ref.events.slice(0, cut) as unknown as EventRecord[]);
    const logged = ref.events
      .slice(0, cut)
      .filter((event) => event.type === 'plan-chosen' || event.type === 'plan-update').length;
    for (const version of ref.versions.filter((v) => v.version <= logged)) {
      await store.savePlanVersion({
        runId: 'ref',
        version: version.version,
        workflow: version.workflow,
        cause: version.cause,
      });
    }
    const result = await resumeRun({ runId: 'ref', model: await createModel(sim), store, home });
    const after = await runEvents(store, 'ref');
    return { result, after };
  } finally {
    await store.close();
  }
}

function checkInvariants(
  label: string,
  before: readonly WeftEvent[],
  result: RunTaskResult,
  after: readonly WeftEvent[],
): void {
  // No output lost: a subtask accepted before the crash ends completed with that output, unless a later
  // revision changed its objective.
  const subtasks = new Map(result.workflow?.subtasks.map((subtask) => [subtask.id, subtask]) ?? []);
  for (const [id, output] of acceptedOutputs(before)) {
    const subtask = subtasks.get(id);
    if (subtask && subtask.objective === objectiveAt(before, id)) {
      expect(subtask.status, `${label}: ${id}`).toBe('completed');
      expect(subtask.output, `${label}: ${id}`).toBe(output);
    }
  }
  expect(restartsAfterAcceptance(after), label).toEqual([]);
  expect(repeatedCalls(after), label).toEqual([]);
}

describe('resume from every batch boundary of the log', () => {
  it(`reaches the uninterrupted final state for the crash sweep's run (${SIM})`, async () => {
    const ref = await reference(SIM);
    expect(ref.result.planVersion).toBeGreaterThan(1);
    expect(ref.boundaries.length).toBeGreaterThan(10);
    for (const cut of ref.boundaries) {
      const { result, after } = await resumeAt(SIM, ref, cut);
      checkInvariants(`cut ${cut}`, ref.events.slice(0, cut), result, after);
      expect(course(result), `cut after event ${cut} (${ref.events[cut - 1]!.type})`).toEqual(course(ref.result));
    }
  });

  it.each([
    'sim:seed=1,latency=lognormal(3.6,0.4),tasks=10,fail=0.3,badjson=0.1,clock=virtual',
    'sim:seed=34,latency=lognormal(3.6,0.4),tasks=10,fail=0.3,badjson=0.1,clock=virtual',
    'sim:seed=7,latency=lognormal(3.6,0.4),tasks=12,fail=0.2,error=0.05,clock=virtual',
  ])('keeps the invariants from every cut of %s', async (sim) => {
    const ref = await reference(sim);
    let differing = 0;
    for (const cut of ref.boundaries) {
      const { result, after } = await resumeAt(sim, ref, cut);
      checkInvariants(`cut ${cut}`, ref.events.slice(0, cut), result, after);
      if (JSON.stringify(course(result)) !== JSON.stringify(course(ref.result))) differing += 1;
    }
    console.log(
      `${sim}: ${ref.boundaries.length} cuts, ${differing} resumed onto another plan path than the uninterrupted run`,
    );
  });
});
