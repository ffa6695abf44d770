/**
 * Logs written before the event names were unified: a model call was `call`, a spent budget and a run's closing
 * tally were both `budget`. test/fixtures/run-logs/old-event-names.json holds such logs as the earlier version
 * wrote them (a completed run of SIM with its plan versions, and a run a call budget of 3 stopped). Reads give
 * today's names, the folds see the same run, and a resume replays the old log's calls instead of making them again.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createModel } from '../../src/llm/resolve-model.js';
import type { WeftEvent } from '../../src/run/events.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { runEvents } from '../../src/run/run-events.js';
import { summarizeRun } from '../../src/run/run-summary.js';
import { runTask } from '../../src/run/run-task.js';
import { upgradeRunEvent } from '../../src/run/upgrade-run-event.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { EventRecord, PlanVersion } from '../../src/store/run-store.js';

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/run-logs/old-event-names.json', import.meta.url), 'utf8'),
) as {
  task: string;
  model: string;
  events: EventRecord[];
  versions: Pick<PlanVersion, 'version' | 'workflow' | 'cause'>[];
  stopped: EventRecord[];
};

/** A store holding a log (its first `cut` events) under run id `old`, as an interrupted run when cut. */
async function oldStore(events: readonly EventRecord[] = fixture.events, cut = events.length) {
  const home = mkdtempSync(join(tmpdir(), 'weft-old-names-'));
  const store = await openRunStore({ home });
  const start = fixture.events[0] as Extract<WeftEvent, { type: 'run-start' }>;
  await store.createRun({ runId: 'old', task: fixture.task, model: fixture.model, options: start.options });
  await store.appendEvents('old', events.slice(0, cut));
  for (const version of fixture.versions) await store.savePlanVersion({ runId: 'old', ...version });
  await store.setStatus('old', cut === events.length ? 'completed' : 'interrupted');
  return { home, store };
}

/** How the old run ended. */
const oldEnd = fixture.events.at(-1) as Extract<WeftEvent, { type: 'run-end' }>;

const types = (events: readonly { type: string }[]) => events.map((event) => event.type);

describe('run logs with the earlier event names', () => {
  it('the fixture is an old log: it has call and budget events and none of the new names', () => {
    expect(types(fixture.events)).toContain('call');
    expect(types(fixture.events)).toContain('budget');
    expect(
      types([...fixture.events, ...fixture.stopped]).some((type) =>
        ['model-call', 'budget-stop', 'usage'].includes(type),
      ),
    ).toBe(false);
  });

  it("reads under today's names, event for event what this version writes for the same run", async () => {
    const { home, store } = await oldStore();
    try {
      const old = await runEvents(store, 'old');
      const fresh = await runTask({
        task: fixture.task,
        model: await createModel(fixture.model),
        store,
        home,
        runId: 'new',
      });
      const now = await runEvents(store, 'new');
      expect(fresh.status).toBe(oldEnd.status);
      expect(types(old)).toEqual(types(now));
      expect(types(old)).not.toContain('call');
      expect(old.filter((event) => event.type === 'model-call')).toHaveLength(
        fixture.events.filter((e) => e.type === 'call').length,
      );
      // The folds see the same run (times aside: the two ran at different speeds).
      const gist = (events: readonly WeftEvent[]) => {
        const { calls, tokens, costUsd, status, planChanges, tasks } = summarizeRun('r', events);
        const outcome = tasks.map(({ id, status, attempts, output }) => ({ id, status, attempts, output }));
        return { calls, tokens, costUsd, status, planChanges, tasks: outcome };
      };
      expect(gist(old)).toEqual(gist(now));
      expect(gist(old).calls).toBe(fixture.events.filter((event) => event.type === 'call').length);
    } finally {
      await store.close();
    }
  });

  it('a spent budget reads as budget-stop, the closing tally as usage', () => {
    const upgraded = fixture.stopped.map((event) => upgradeRunEvent(event));
    expect(upgraded.filter((event) => event.type === 'budget-stop')).toEqual([
      expect.objectContaining({ exceeded: 'call budget of 3 reached', calls: 3 }),
    ]);
    expect(upgraded.filter((event) => event.type === 'usage')).toEqual([
      expect.not.objectContaining({ exceeded: expect.anything() }),
    ]);
    expect(types(upgraded)).not.toContain('budget');
    // Today's names and what is not an event pass through as they are.
    const current = { type: 'model-call', at: 1 };
    expect(upgradeRunEvent(current)).toBe(current);
    expect(upgradeRunEvent(null)).toBeNull();
  });

  it("an old log cut mid-run resumes as the same log under today's names does, its recorded calls replayed", async () => {
    const cut = fixture.events.findIndex((event) => event.type === 'plan-update');
    const recorded = fixture.events.slice(0, cut).filter((event) => event.type === 'call').length;
    expect(recorded).toBeGreaterThan(0);
    const resumed = async (events: readonly EventRecord[]) => {
      const { home, store } = await oldStore(events, cut);
      try {
        const result = await resumeRun({ runId: 'old', model: await createModel(fixture.model), store, home });
        return { result, after: (await runEvents(store, 'old')).slice(cut) };
      } finally {
        await store.close();
      }
    };
    const old = await resumed(fixture.events);
    const renamed = await resumed(fixture.events.map((event) => upgradeRunEvent(event)));
    expect(old.result.status).toBe(renamed.result.status);
    expect(old.result.calls).toBe(renamed.result.calls);
    expect(types(old.after)).toEqual(types(renamed.after));
    // The calls before the cut count, and were not made again: the resumed part made only the rest.
    const made = old.after.filter((event) => event.type === 'model-call').length;
    expect(old.result.calls).toBe(recorded + made);
  });
});
