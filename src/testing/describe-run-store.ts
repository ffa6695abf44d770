/**
 * The RunStore conformance suite (`weft/test`): Weft's SQLite and Postgres stores run these same tests, and so can
 * a store of your own: runs, events, plan versions, large outputs, owners, deletion, team scores, persistence.
 * Run the SessionStore and TraceStore suites on the same factory when the store keeps sessions and traces.
 *
 *   import * as vitest from 'vitest';
 *   describeRunStore('mine', { fresh: async () => ({ open: …, dispose: … }) }, vitest);
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowJson } from '../graph/workflow.js';
import type { EventRecord, NewRun, RunStore } from '../store/run-store.js';
import { isTeamScoreStore, type TeamScoreStore } from '../team/team-score-store.js';
import { rejectionWith } from './rejection.js';
import type { StoreSuiteApi } from './store-suite-api.js';

/** The core contract and the team engine's TeamScoreStore (where a DyLAN optimisation keeps agent scores). */
type FullStore = RunStore & TeamScoreStore;

export interface StoreLocation {
  /**
   * Opens the store on this location; calling it again opens the same storage (close/reopen, two clients).
   * `now` is the store's clock (default: the real one).
   */
  open(options?: { readonly now?: () => Date }): Promise<FullStore>;
  /** Removes the storage. */
  dispose(): Promise<void>;
}

export interface RunStoreFactory {
  /** A fresh, empty storage location. */
  fresh(): Promise<StoreLocation>;
  /** For file-backed stores: opens the store file at `path` (the corrupted-file tests). */
  openFile?: (path: string) => Promise<FullStore>;
}

function newRun(runId: string, extra: Partial<NewRun> = {}): NewRun {
  return {
    runId,
    task: `task of ${runId}`,
    model: 'scripted:test.json',
    options: { strategy: 'on-failure', maxCalls: 20 },
    ...extra,
  };
}

const workflow: WorkflowJson = {
  task: 'Build a game',
  subtasks: [
    { id: 'a', objective: 'Write the board', agent: 'coder', dependsOn: [] },
    { id: 'b', objective: 'Write the rules', agent: 'coder', dependsOn: ['a'] },
  ],
};

/** A large output, different per seed, over the 4 KiB blob threshold. */
function largeText(seed: string, kilobytes = 64): string {
  return `<!-- ${seed} -->\n${`<div class="cell">${seed}</div>\n`.repeat(Math.ceil((kilobytes * 1024) / 30))}`;
}

export function describeRunStore(name: string, factory: RunStoreFactory, test: StoreSuiteApi): void {
  const { afterEach, beforeEach, describe, expect, it } = test;
  const rejection = rejectionWith(expect);
  describe(`RunStore conformance: ${name}`, () => {
    let location: StoreLocation;
    let store: FullStore;
    const extraStores: FullStore[] = [];

    beforeEach(async () => {
      location = await factory.fresh();
      store = await location.open();
    });

    afterEach(async () => {
      for (const extra of extraStores.splice(0)) await extra.close();
      await store.close();
      await location.dispose();
    });

    async function reopen(): Promise<FullStore> {
      await store.close();
      store = await location.open();
      return store;
    }

    describe('runs', () => {
      it('creates a run and reads it back', async () => {
        await store.createRun(
          newRun('r1', { options: { strategy: 'concurrent', budget: { calls: 3, cost: 0.5 }, tags: ['x'] } }),
        );
        const run = await store.getRun('r1');
        expect(run).toMatchObject({
          runId: 'r1',
          task: 'task of r1',
          model: 'scripted:test.json',
          status: 'running',
          options: { strategy: 'concurrent', budget: { calls: 3, cost: 0.5 }, tags: ['x'] },
        });
        expect(Number.isNaN(Date.parse(run?.createdAt ?? ''))).toBe(false);
        expect((run?.updatedAt ?? '') >= (run?.createdAt ?? '~')).toBe(true);
      });

      it('returns undefined for an unknown run id', async () => {
        await store.createRun(newRun('r1'));
        expect(await store.getRun('nope')).toBeUndefined();
      });

      it('refuses to create the same run id twice and keeps the first', async () => {
        await store.createRun(newRun('r1'));
        const error = await rejection(store.createRun(newRun('r1', { task: 'other' })));
        expect(error.code).toBe('STORE');
        expect((await store.getRun('r1'))?.task).toBe('task of r1');
        expect(await store.listRuns()).toHaveLength(1);
      });

      it('lists runs oldest first, not by id', async () => {
        for (const id of ['run-c', 'run-a', 'run-b']) await store.createRun(newRun(id));
        expect((await store.listRuns()).map((run) => run.runId)).toEqual(['run-c', 'run-a', 'run-b']);
      });

      it('updates the status', async () => {
        await store.createRun(newRun('r1'));
        await store.createRun(newRun('r2'));
        await store.setStatus('r1', 'completed');
        await store.setStatus('r2', 'interrupted');
        expect((await store.getRun('r1'))?.status).toBe('completed');
        expect((await store.getRun('r2'))?.status).toBe('interrupted');
        await store.setStatus('r1', 'failed');
        expect((await store.getRun('r1'))?.status).toBe('failed');
      });

      it('rejects a status that is not a run status', async () => {
        await store.createRun(newRun('r1'));
        const error = await rejection(store.setStatus('r1', 'done' as never));
        expect(error.code).toBe('STORE');
        expect((await store.getRun('r1'))?.status).toBe('running');
      });
    });

    describe('events', () => {
      const event = (type: string, at: number, extra: Record<string, unknown> = {}): EventRecord =>
        ({ type, at, ...extra }) as EventRecord;

      it('appends events in order with seq numbers that continue across batches', async () => {
        await store.createRun(newRun('r1'));
        await store.appendEvents('r1', [event('run-start', 0, { task: 'x' }), event('task-start', 1, { taskId: 'a' })]);
        await store.appendEvents('r1', [event('task-end', 5.5, { taskId: 'a', status: 'completed', output: 'ok' })]);
        const events = await store.events('r1');
        expect(events.map((stored) => [stored.seq, stored.event.type])).toEqual([
          [1, 'run-start'],
          [2, 'task-start'],
          [3, 'task-end'],
        ]);
        expect(events[2]).toEqual({
          runId: 'r1',
          seq: 3,
          event: { type: 'task-end', at: 5.5, taskId: 'a', status: 'completed', output: 'ok' },
        });
      });

      it('keeps each run’s log separate', async () => {
        await store.createRun(newRun('r1'));
        await store.createRun(newRun('r2'));
        await store.appendEvents('r1', [event('a', 0)]);
        await store.appendEvents('r2', [event('b', 0), event('c', 1)]);
        await store.appendEvents('r1', [event('d', 2)]);
        expect((await store.events('r1')).map((stored) => [stored.seq, stored.event.type])).toEqual([
          [1, 'a'],
          [2, 'd'],
        ]);
        expect((await store.events('r2')).map((stored) => [stored.seq, stored.event.type])).toEqual([
          [1, 'b'],
          [2, 'c'],
        ]);
      });

      it('returns only events after afterSeq', async () => {
        await store.createRun(newRun('r1'));
        await store.appendEvents(
          'r1',
          [0, 1, 2, 3, 4].map((at) => event(`e${at}`, at)),
        );
        expect((await store.events('r1', 3)).map((stored) => stored.seq)).toEqual([4, 5]);
        expect(await store.events('r1', 5)).toEqual([]);
        // A page of the log: at most `limit` events after `afterSeq`.
        expect((await store.events('r1', 1, 2)).map((stored) => stored.seq)).toEqual([2, 3]);
        expect((await store.events('r1', 4, 10)).map((stored) => stored.seq)).toEqual([5]);
        await expect(store.events('r1', 0, 0)).rejects.toMatchObject({ code: 'STORE' });
        await expect(store.events('r1', 0, 1.5)).rejects.toMatchObject({ code: 'STORE' });
        await expect(store.events('missing', 0, 2)).rejects.toMatchObject({ code: 'NOT_FOUND' });
        expect((await store.events('r1', 0)).map((stored) => stored.seq)).toEqual([1, 2, 3, 4, 5]);
      });

      it('round-trips nested JSON, unicode and drops undefined properties', async () => {
        await store.createRun(newRun('r1'));
        const nested = {
          type: 'plan-chosen',
          at: 12,
          workflow,
          list: [1, 'two', null, true, { deep: ['é', '😀', '\u0000nul'] }],
          output: undefined,
          looksLikeABlob: 'blob:sha256:0000000000000000000000000000000000000000000000000000000000000000',
        };
        // A `__proto__` own key (as JSON.parse makes) must stay data.
        const withProtoKey = JSON.parse(`{"type":"x","at":0,"__proto__":{"big":"${'p'.repeat(5000)}"}}`) as EventRecord;
        await store.appendEvents('r1', [nested as unknown as EventRecord, withProtoKey]);
        const [first, second] = await store.events('r1');
        const expected: Record<string, unknown> = { ...nested };
        delete expected['output'];
        expect(first?.event).toEqual(expected);
        expect(Object.keys(first?.event ?? {})).not.toContain('output');
        expect(Object.getOwnPropertyDescriptor(second?.event, '__proto__')?.value).toEqual({ big: 'p'.repeat(5000) });
        expect(({} as Record<string, unknown>)['big']).toBeUndefined();
      });

      it('accepts an empty batch without adding anything', async () => {
        await store.createRun(newRun('r1'));
        await store.appendEvents('r1', []);
        await store.appendEvents('r1', [event('a', 0)]);
        expect((await store.events('r1')).map((stored) => stored.seq)).toEqual([1]);
      });

      it.each([
        ['a bigint', { type: 'x', at: 1, value: 10n }],
        ['a function', { type: 'x', at: 1, value: () => 1 }],
        ['NaN', { type: 'x', at: 1, value: Number.NaN }],
        ['Infinity', { type: 'x', at: 1, nested: { value: Number.POSITIVE_INFINITY } }],
        ['a Date', { type: 'x', at: 1, when: new Date(0) }],
        ['a Map', { type: 'x', at: 1, map: new Map([[1, 2]]) }],
        ['undefined in an array', { type: 'x', at: 1, list: [1, undefined] }],
        ['a missing type', { at: 1 }],
        ['a non-numeric at', { type: 'x', at: '1' }],
      ])('fails a whole batch holding %s and appends nothing', async (_label, bad) => {
        await store.createRun(newRun('r1'));
        await store.appendEvents('r1', [event('first', 0)]);
        const error = await rejection(
          store.appendEvents('r1', [
            event('ok', 1, { output: largeText('batch') }),
            bad as unknown as EventRecord,
            event('ok', 2),
          ]),
        );
        expect(error.code).toBe('STORE');
        expect((await store.events('r1')).map((stored) => stored.event.type)).toEqual(['first']);
        expect((await store.stats()).blobs).toBe(0);
        // The failed batch used no seq numbers.
        await store.appendEvents('r1', [event('next', 3)]);
        expect((await store.events('r1')).map((stored) => stored.seq)).toEqual([1, 2]);
      });

      it('fails a batch with a circular reference and names the field', async () => {
        await store.createRun(newRun('r1'));
        const circular: Record<string, unknown> = { type: 'x', at: 0 };
        circular['self'] = { back: circular };
        const error = await rejection(store.appendEvents('r1', [circular as unknown as EventRecord]));
        expect(error.code).toBe('STORE');
        expect(error.message).toContain('self.back');
        expect(await store.events('r1')).toEqual([]);
      });

      it('gives gap-free, unique seq numbers to interleaved writers on the same storage', async () => {
        await store.createRun(newRun('r1'));
        const other = await location.open();
        extraStores.push(other);
        const writes: Promise<void>[] = [];
        for (let index = 0; index < 20; index += 1) {
          const writer = index % 2 === 0 ? store : other;
          writes.push(writer.appendEvents('r1', [event(`w${index}`, index), event(`w${index}b`, index)]));
        }
        await Promise.all(writes);
        const events = await store.events('r1');
        expect(events.map((stored) => stored.seq)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
        // Each batch stays contiguous.
        for (let index = 0; index < 40; index += 2) {
          expect(events[index + 1]?.event.type).toBe(`${events[index]?.event.type}b`);
        }
      });
    });

    describe('plan versions', () => {
      it('round-trips versions in order, with the diff absent for version 1', async () => {
        await store.createRun(newRun('r1'));
        const second: WorkflowJson = {
          ...workflow,
          subtasks: [
            ...workflow.subtasks,
            { id: 'c', objective: 'Test', agent: 'tester', dependsOn: ['b'], status: 'not started', attempts: 0 },
          ],
        };
        await store.savePlanVersion({ runId: 'r1', version: 1, workflow, cause: 'initial plan' });
        await store.savePlanVersion({
          runId: 'r1',
          version: 2,
          workflow: second,
          cause: 'verification failed: b',
          diff: { added: ['c'], removed: [] },
        });
        const versions = await store.planVersions('r1');
        expect(versions.map((version) => version.version)).toEqual([1, 2]);
        expect(versions[0]).toMatchObject({ runId: 'r1', version: 1, workflow, cause: 'initial plan' });
        expect(versions[0]).not.toHaveProperty('diff');
        expect(versions[1]).toMatchObject({
          version: 2,
          workflow: second,
          cause: 'verification failed: b',
          diff: { added: ['c'], removed: [] },
        });
        expect(Number.isNaN(Date.parse(versions[1]?.createdAt ?? ''))).toBe(false);
      });

      it('refuses a duplicate version and keeps the first', async () => {
        await store.createRun(newRun('r1'));
        await store.savePlanVersion({ runId: 'r1', version: 1, workflow, cause: 'initial plan' });
        const error = await rejection(
          store.savePlanVersion({ runId: 'r1', version: 1, workflow: { task: 'other', subtasks: [] }, cause: 'again' }),
        );
        expect(error.code).toBe('STORE');
        const versions = await store.planVersions('r1');
        expect(versions).toHaveLength(1);
        expect(versions[0]?.cause).toBe('initial plan');
      });

      it('returns an empty list for a run without plans', async () => {
        await store.createRun(newRun('r1'));
        expect(await store.planVersions('r1')).toEqual([]);
      });
    });

    describe('large outputs', () => {
      it('stores a repeated large output once and gives it back whole', async () => {
        await store.createRun(newRun('r1'));
        const output = largeText('same');
        for (let attempt = 1; attempt <= 5; attempt += 1) {
          await store.appendEvents('r1', [
            { type: 'task-end', at: attempt, taskId: 'a', attempt, output } as EventRecord,
          ]);
        }
        const withPlan: WorkflowJson = {
          ...workflow,
          subtasks: workflow.subtasks.map((subtask) => ({ ...subtask, status: 'completed' as const, output })),
        };
        await store.savePlanVersion({ runId: 'r1', version: 1, workflow: withPlan, cause: 'initial plan' });

        const stats = await store.stats();
        expect(stats.blobs).toBe(1);
        expect(stats.blobBytes).toBe(Buffer.byteLength(output));
        expect(stats.events).toBe(5);
        expect(stats.planVersions).toBe(1);
        const events = await store.events('r1');
        expect(events.map((stored) => (stored.event as unknown as { output: string }).output)).toEqual(
          Array(5).fill(output),
        );
        expect((await store.planVersions('r1'))[0]?.workflow).toEqual(withPlan);
      });

      it('keeps distinct large strings apart, nested anywhere, and leaves small ones inline', async () => {
        await store.createRun(newRun('r1'));
        const first = largeText('one', 8);
        const second = largeText('two', 8);
        const justUnder = 'x'.repeat(4096);
        const multiByte = 'é'.repeat(2100); // 4200 UTF-8 bytes in 2100 characters.
        const event = {
          type: 'x',
          at: 0,
          list: [{ text: first }, second, first],
          justUnder,
          multiByte,
        } as unknown as EventRecord;
        await store.appendEvents('r1', [event]);
        const stats = await store.stats();
        expect(stats.blobs).toBe(3);
        expect(stats.blobBytes).toBe(
          Buffer.byteLength(first) + Buffer.byteLength(second) + Buffer.byteLength(multiByte),
        );
        expect((await store.events('r1'))[0]?.event).toEqual(event);
      });

      it('shares a blob between runs', async () => {
        const output = largeText('shared');
        for (const id of ['r1', 'r2']) {
          await store.createRun(newRun(id));
          await store.appendEvents(id, [{ type: 'task-end', at: 0, output } as EventRecord]);
        }
        expect((await store.stats()).blobs).toBe(1);
        expect(((await store.events('r2'))[0]!.event as unknown as { output: string }).output).toBe(output);
      });
    });

    describe('owners', () => {
      it('records the owner given to createRun and leaves it absent otherwise', async () => {
        await store.createRun(newRun('r1', { owner: { pid: 4242, host: 'build-7' } }));
        await store.createRun(newRun('r2'));
        expect((await store.getRun('r1'))?.owner).toEqual({ pid: 4242, host: 'build-7' });
        expect(await store.getRun('r2')).not.toHaveProperty('owner');
        expect((await store.listRuns()).map((run) => run.owner)).toEqual([{ pid: 4242, host: 'build-7' }, undefined]);
      });

      it('sets a new owner (a resumed run) and keeps it across reopening', async () => {
        await store.createRun(newRun('r1', { owner: { pid: 10, host: 'a' } }));
        await store.setOwner('r1', { pid: 11, host: 'b' });
        expect((await (await reopen()).getRun('r1'))?.owner).toEqual({ pid: 11, host: 'b' });
      });

      it.each([
        ['a zero pid', { pid: 0, host: 'h' }],
        ['a fractional pid', { pid: 1.5, host: 'h' }],
        ['an empty host', { pid: 1, host: '' }],
        ['a missing host', { pid: 1 }],
      ])('rejects %s with STORE and writes nothing', async (_label, owner) => {
        expect((await rejection(store.createRun(newRun('r1', { owner: owner as never })))).code).toBe('STORE');
        expect(await store.getRun('r1')).toBeUndefined();
        await store.createRun(newRun('r2', { owner: { pid: 5, host: 'h' } }));
        expect((await rejection(store.setOwner('r2', owner as never))).code).toBe('STORE');
        expect((await store.getRun('r2'))?.owner).toEqual({ pid: 5, host: 'h' });
      });

      it('takes a run over only from the owner the caller found (compare-and-set)', async () => {
        await store.createRun(newRun('owned', { owner: { pid: 10, host: 'a' } }));
        await store.createRun(newRun('ownerless'));
        await store.setStatus('owned', 'cancelled');
        expect(await store.takeOverRun('owned', { pid: 11, host: 'b' }, { pid: 99, host: 'a' })).toBe(false);
        expect(await store.takeOverRun('owned', { pid: 11, host: 'b' }, undefined)).toBe(false);
        expect(await store.getRun('owned')).toMatchObject({ owner: { pid: 10, host: 'a' }, status: 'cancelled' });
        expect(await store.takeOverRun('owned', { pid: 11, host: 'b' }, { pid: 10, host: 'a' })).toBe(true);
        // The status changes with the owner, so a process that reads the run afterwards sees it taken.
        expect(await store.getRun('owned')).toMatchObject({ owner: { pid: 11, host: 'b' }, status: 'running' });
        expect(await store.takeOverRun('ownerless', { pid: 12, host: 'c' }, { pid: 10, host: 'a' })).toBe(false);
        expect(await store.takeOverRun('ownerless', { pid: 12, host: 'c' }, undefined)).toBe(true);
        expect((await store.getRun('ownerless'))?.owner).toEqual({ pid: 12, host: 'c' });
        expect((await rejection(store.takeOverRun('ghost', { pid: 1, host: 'h' }, undefined))).code).toBe('NOT_FOUND');
        expect((await rejection(store.takeOverRun('owned', { pid: 0, host: 'h' }, { pid: 11, host: 'b' }))).code).toBe(
          'STORE',
        );
      });

      it('lets exactly one of several concurrent takeovers of the same dead owner win, across clients', async () => {
        await store.createRun(newRun('killed', { owner: { pid: 10, host: 'h' } }));
        const clients = [store];
        for (let i = 0; i < 5; i += 1) {
          const other = await location.open();
          extraStores.push(other);
          clients.push(other);
        }
        for (let round = 0; round < 5; round += 1) {
          const dead = (await store.getRun('killed'))!.owner;
          const results = await Promise.all(
            clients.map((client, index) =>
              client.takeOverRun('killed', { pid: 100 * (round + 1) + index, host: 'h' }, dead),
            ),
          );
          expect(results.filter(Boolean)).toHaveLength(1);
          expect((await store.getRun('killed'))?.owner).toEqual({
            pid: 100 * (round + 1) + results.indexOf(true),
            host: 'h',
          });
        }
      });
    });

    describe('deleting runs', () => {
      async function populate(runId: string, output: string, extra: Partial<NewRun> = {}): Promise<void> {
        await store.createRun(newRun(runId, extra));
        await store.appendEvents(runId, [
          { type: 'run-start', at: 0 },
          { type: 'task-end', at: 1, output } as EventRecord,
        ]);
        await store.savePlanVersion({ runId, version: 1, workflow, cause: 'initial plan' });
      }

      it('removes the runs, their events and plan versions, and reports the counts', async () => {
        await populate('r1', 'small');
        await populate('r2', 'small');
        await store.setStatus('r1', 'completed');
        const result = await store.deleteRuns([{ runId: 'r1' }]);
        expect(result).toEqual({ removed: ['r1'], skipped: [], events: 2, planVersions: 1, blobs: 0, blobBytes: 0 });
        expect(await store.getRun('r1')).toBeUndefined();
        expect((await store.listRuns()).map((run) => run.runId)).toEqual(['r2']);
        expect(await store.stats()).toEqual({ runs: 1, events: 2, planVersions: 1, blobs: 0, blobBytes: 0 });
        expect((await rejection(store.events('r1'))).code).toBe('NOT_FOUND');
      });

      it('keeps a blob another run still uses and collects it with the last user', async () => {
        const output = largeText('prune-shared');
        const bytes = Buffer.byteLength(output);
        await populate('r1', output);
        await populate('r2', output);
        for (const id of ['r1', 'r2']) await store.setStatus(id, 'completed');
        expect(await store.deleteRuns([{ runId: 'r1' }])).toMatchObject({ removed: ['r1'], blobs: 0, blobBytes: 0 });
        expect(await store.stats()).toMatchObject({ blobs: 1, blobBytes: bytes });
        expect(((await store.events('r2'))[1]!.event as unknown as { output: string }).output).toBe(output);
        expect(await store.deleteRuns([{ runId: 'r2' }])).toMatchObject({
          removed: ['r2'],
          blobs: 1,
          blobBytes: bytes,
        });
        expect(await store.stats()).toEqual({ runs: 0, events: 0, planVersions: 0, blobs: 0, blobBytes: 0 });
      });

      it('collects blobs held by plan versions, and counts a blob used twice by the deleted runs once', async () => {
        const objective = largeText('objective');
        const big: WorkflowJson = { ...workflow, subtasks: [{ id: 'a', objective, agent: 'coder', dependsOn: [] }] };
        for (const id of ['r1', 'r2']) {
          await store.createRun(newRun(id));
          await store.savePlanVersion({ runId: id, version: 1, workflow: big, cause: 'initial plan' });
          await store.setStatus(id, 'failed');
        }
        const result = await store.deleteRuns([{ runId: 'r1' }, { runId: 'r2' }]);
        expect(result).toMatchObject({
          removed: ['r1', 'r2'],
          planVersions: 2,
          blobs: 1,
          blobBytes: Buffer.byteLength(objective),
        });
        expect((await store.stats()).blobs).toBe(0);
      });

      it('stores a collected blob again when a later run writes it', async () => {
        const output = largeText('again');
        await populate('r1', output);
        await store.setStatus('r1', 'completed');
        await store.deleteRuns([{ runId: 'r1' }]);
        await populate('r2', output);
        expect(((await store.events('r2'))[1]!.event as unknown as { output: string }).output).toBe(output);
        expect((await store.stats()).blobs).toBe(1);
      });

      it('never deletes a running run unless its owner is the dead one named', async () => {
        await populate('live', 'x', { owner: { pid: 7, host: 'h' } });
        await populate('claimed', 'x', { owner: { pid: 7, host: 'h' } });
        await populate('dead', 'x', { owner: { pid: 7, host: 'h' } });
        await populate('unowned', 'x');
        await store.setOwner('claimed', { pid: 8, host: 'h' });
        const result = await store.deleteRuns([
          { runId: 'live' },
          { runId: 'claimed', deadOwner: { pid: 7, host: 'h' } },
          { runId: 'dead', deadOwner: { pid: 7, host: 'h' } },
          { runId: 'unowned', deadOwner: { pid: 7, host: 'h' } },
        ]);
        expect(result).toMatchObject({ removed: ['dead'], skipped: ['live', 'claimed', 'unowned'] });
        expect((await store.listRuns()).map((run) => run.runId)).toEqual(['live', 'claimed', 'unowned']);
      });

      it('deletes an interrupted or cancelled run whatever its owner', async () => {
        await populate('r1', 'x', { owner: { pid: 7, host: 'h' } });
        await populate('r2', 'x');
        await store.setStatus('r1', 'interrupted');
        await store.setStatus('r2', 'cancelled');
        expect((await store.deleteRuns([{ runId: 'r1' }, { runId: 'r2' }])).removed).toEqual(['r1', 'r2']);
      });

      it('skips unknown and repeated ids without failing', async () => {
        await populate('r1', 'x');
        await store.setStatus('r1', 'completed');
        const result = await store.deleteRuns([{ runId: 'ghost' }, { runId: 'r1' }, { runId: 'r1' }]);
        expect(result).toEqual({
          removed: ['r1'],
          skipped: ['ghost'],
          events: 2,
          planVersions: 1,
          blobs: 0,
          blobBytes: 0,
        });
        expect(await store.deleteRuns([])).toEqual({
          removed: [],
          skipped: [],
          events: 0,
          planVersions: 0,
          blobs: 0,
          blobBytes: 0,
        });
      });

      it('with dryRun reports the same result and deletes nothing', async () => {
        const output = largeText('dry');
        await populate('r1', output);
        await store.setStatus('r1', 'completed');
        const before = await store.stats();
        const dry = await store.deleteRuns([{ runId: 'r1' }, { runId: 'ghost' }], { dryRun: true });
        expect(dry).toEqual({
          removed: ['r1'],
          skipped: ['ghost'],
          events: 2,
          planVersions: 1,
          blobs: 1,
          blobBytes: Buffer.byteLength(output),
        });
        expect(await store.stats()).toEqual(before);
        expect(((await store.events('r1'))[1]!.event as unknown as { output: string }).output).toBe(output);
        expect(await store.deleteRuns([{ runId: 'r1' }, { runId: 'ghost' }])).toEqual(dry);
      });

      it('keeps the seq of other runs and lets a deleted id be created again', async () => {
        await populate('r1', 'x');
        await populate('r2', 'x');
        await store.setStatus('r1', 'completed');
        await store.deleteRuns([{ runId: 'r1' }]);
        await store.appendEvents('r2', [{ type: 'run-end', at: 2 }]);
        expect((await store.events('r2')).map((stored) => stored.seq)).toEqual([1, 2, 3]);
        await store.createRun(newRun('r1'));
        await store.appendEvents('r1', [{ type: 'run-start', at: 0 }]);
        expect((await store.events('r1')).map((stored) => stored.seq)).toEqual([1]);
        expect(await store.planVersions('r1')).toEqual([]);
      });
    });

    describe('team scores', () => {
      const save = (target: FullStore, scores: [string, number, number][], team = 'panel', taskType = 'mmlu') =>
        target.saveTeamScores({
          team,
          taskType,
          scores: scores.map(([agent, importance, queries]) => ({ agent, importance, queries })),
        });
      const totals = async (team = 'panel', taskType = 'mmlu', target: FullStore = store) =>
        (await target.teamScores(team, taskType)).map((score) => [
          score.agent,
          score.importance,
          score.queries,
          score.mean,
        ]);

      it("implements the team engine's TeamScoreStore, which is not part of RunStore", () => {
        expect(isTeamScoreStore(store)).toBe(true);
        // All three methods, not just some of them.
        const { saveTeamScores, teamScores, teamSize } = store;
        expect(isTeamScoreStore({ saveTeamScores, teamScores })).toBe(false);
        expect(isTeamScoreStore({ saveTeamScores, teamScores, teamSize })).toBe(true);
      });

      it('adds each save to the stored totals and orders by mean, then by agent', async () => {
        // Dyadic fractions, so every sum is exact in binary floating point.
        await save(store, [
          ['critic', 0.25, 1],
          ['solver', 0.5, 1],
          ['judge', 0.25, 1],
        ]);
        await save(store, [
          ['solver', 0.75, 2],
          ['critic', 1.5, 2],
          ['coder', 0.5, 1],
        ]);
        expect(await totals()).toEqual([
          ['critic', 1.75, 3, 1.75 / 3],
          ['coder', 0.5, 1, 0.5],
          ['solver', 1.25, 3, 1.25 / 3],
          ['judge', 0.25, 1, 0.25],
        ]);
        // Equal means (judge now 1/2, like coder) are ordered by name.
        await save(store, [['judge', 0.75, 1]]);
        expect((await totals()).map(([agent, , , mean]) => [agent, mean])).toEqual([
          ['critic', 1.75 / 3],
          ['coder', 0.5],
          ['judge', 0.5],
          ['solver', 1.25 / 3],
        ]);
      });

      it('keeps teams and task types apart, and returns [] for a pair never saved', async () => {
        await save(store, [['a', 1, 1]], 'panel', 'mmlu');
        await save(store, [['a', 0.5, 1]], 'panel', 'code');
        await save(store, [['a', 0.25, 1]], 'other', 'mmlu');
        expect(await totals('panel', 'mmlu')).toEqual([['a', 1, 1, 1]]);
        expect(await totals('panel', 'code')).toEqual([['a', 0.5, 1, 0.5]]);
        expect(await totals('other', 'mmlu')).toEqual([['a', 0.25, 1, 0.25]]);
        expect(await store.teamScores('panel', 'math')).toEqual([]);
        expect(await store.teamScores('nobody', 'mmlu')).toEqual([]);
      });

      it('stamps updatedAt on the agents a save touched only', async () => {
        await save(store, [
          ['a', 1, 1],
          ['b', 1, 1],
        ]);
        const [first] = await store.teamScores('panel', 'mmlu');
        expect(Number.isNaN(Date.parse(first?.updatedAt ?? ''))).toBe(false);
        await new Promise((resolve) => setTimeout(resolve, 5));
        await save(store, [['b', 0, 1]]);
        const after = new Map((await store.teamScores('panel', 'mmlu')).map((score) => [score.agent, score.updatedAt]));
        expect(after.get('a')).toBe(first?.updatedAt);
        expect((after.get('b') ?? '') > (after.get('a') ?? '~')).toBe(true);
      });

      it.each([
        ['a negative importance', { agent: 'b', importance: -0.5, queries: 1 }, 'importance'],
        ['NaN importance', { agent: 'b', importance: Number.NaN, queries: 1 }, 'importance'],
        ['infinite importance', { agent: 'b', importance: Number.POSITIVE_INFINITY, queries: 1 }, 'importance'],
        ['a string importance', { agent: 'b', importance: '1', queries: 1 }, 'importance'],
        ['zero queries', { agent: 'b', importance: 1, queries: 0 }, 'queries'],
        ['fractional queries', { agent: 'b', importance: 1, queries: 1.5 }, 'queries'],
        ['an empty agent', { agent: '', importance: 1, queries: 1 }, 'agent'],
        ['an agent twice', { agent: 'a', importance: 1, queries: 1 }, 'appears twice'],
      ])('refuses an update holding %s with STORE, naming it, and writes nothing of it', async (_label, bad, field) => {
        await save(store, [['a', 0.5, 1]]);
        const error = await rejection(
          store.saveTeamScores({
            team: 'panel',
            taskType: 'mmlu',
            scores: [
              { agent: 'a', importance: 1, queries: 1 },
              bad as never,
              { agent: 'c', importance: 1, queries: 1 },
            ],
          }),
        );
        expect(error.code).toBe('STORE');
        expect(error.message).toContain('scores[1]');
        expect(error.message).toContain(field);
        expect(await totals()).toEqual([['a', 0.5, 1, 0.5]]);
      });

      it('refuses an empty team or task type, on save and on read', async () => {
        for (const call of [
          () =>
            store.saveTeamScores({ team: '', taskType: 'mmlu', scores: [{ agent: 'a', importance: 1, queries: 1 }] }),
          () =>
            store.saveTeamScores({ team: 'panel', taskType: '', scores: [{ agent: 'a', importance: 1, queries: 1 }] }),
          () => store.teamScores('', 'mmlu'),
          () => store.teamScores('panel', ''),
          () => store.teamSize('', 'mmlu'),
          () => store.teamSize('panel', ''),
          () => store.saveTeamScores({ team: '', taskType: 'mmlu', scores: [], k: 2 }),
        ]) {
          const error = await rejection(call());
          expect(error.code).toBe('STORE');
          expect(error.message).toMatch(/team|taskType/);
        }
        expect(await store.teamScores('panel', 'mmlu')).toEqual([]);
        expect(await store.teamSize('panel', 'mmlu')).toBeUndefined();
      });

      it('accepts an empty update without storing anything', async () => {
        await store.saveTeamScores({ team: 'panel', taskType: 'mmlu', scores: [] });
        expect(await store.teamScores('panel', 'mmlu')).toEqual([]);
        expect(await store.teamSize('panel', 'mmlu')).toBeUndefined();
      });

      it('records the team size k with the scores; the latest k wins and a save without one keeps it', async () => {
        expect(await store.teamSize('panel', 'mmlu')).toBeUndefined();
        await store.saveTeamScores({
          team: 'panel',
          taskType: 'mmlu',
          scores: [{ agent: 'a', importance: 1, queries: 1 }],
          k: 3,
        });
        expect(await store.teamSize('panel', 'mmlu')).toBe(3);
        expect(await totals()).toEqual([['a', 1, 1, 1]]);
        // A save without k (a workflow's team role) adds scores and leaves the size alone.
        await save(store, [['a', 1, 1]]);
        expect(await store.teamSize('panel', 'mmlu')).toBe(3);
        // The latest k wins, smaller or larger, and an update with no scores still records it.
        await store.saveTeamScores({
          team: 'panel',
          taskType: 'mmlu',
          scores: [{ agent: 'b', importance: 0.5, queries: 1 }],
          k: 1,
        });
        expect(await store.teamSize('panel', 'mmlu')).toBe(1);
        await store.saveTeamScores({ team: 'panel', taskType: 'mmlu', scores: [], k: 7 });
        expect(await store.teamSize('panel', 'mmlu')).toBe(7);
        expect(await totals()).toEqual([
          ['a', 2, 2, 1],
          ['b', 0.5, 1, 0.5],
        ]);
        // Kept per (team, task type).
        await store.saveTeamScores({ team: 'panel', taskType: 'code', scores: [], k: 2 });
        await store.saveTeamScores({ team: 'other', taskType: 'mmlu', scores: [], k: 5 });
        expect(await store.teamSize('panel', 'code')).toBe(2);
        expect(await store.teamSize('other', 'mmlu')).toBe(5);
        expect(await store.teamSize('panel', 'mmlu')).toBe(7);
        expect(await store.teamSize('panel', 'math')).toBeUndefined();
        expect(await store.teamSize('nobody', 'mmlu')).toBeUndefined();
        expect(await store.teamScores('panel', 'code')).toEqual([]);
        // Exactly, at the top of the range a number holds.
        await store.saveTeamScores({ team: 'panel', taskType: 'big', scores: [], k: Number.MAX_SAFE_INTEGER });
        expect(await store.teamSize('panel', 'big')).toBe(Number.MAX_SAFE_INTEGER);
      });

      it.each([
        ['zero', 0],
        ['a negative k', -2],
        ['a fractional k', 1.5],
        ['NaN', Number.NaN],
        ['an infinite k', Number.POSITIVE_INFINITY],
        ['an unsafe integer', Number.MAX_SAFE_INTEGER + 1],
        ['a string', '2'],
        ['null', null],
      ])('refuses %s as k with STORE, naming it, and writes nothing of the update', async (_label, bad) => {
        await store.saveTeamScores({
          team: 'panel',
          taskType: 'mmlu',
          scores: [{ agent: 'a', importance: 0.5, queries: 1 }],
          k: 2,
        });
        const error = await rejection(
          store.saveTeamScores({
            team: 'panel',
            taskType: 'mmlu',
            scores: [
              { agent: 'a', importance: 1, queries: 1 },
              { agent: 'c', importance: 1, queries: 1 },
            ],
            k: bad as never,
          }),
        );
        expect(error.code).toBe('STORE');
        expect(error.message).toContain('team size of team "panel" (task type "mmlu")');
        expect(error.message).toContain('k must be an integer >= 1');
        expect(await totals()).toEqual([['a', 0.5, 1, 0.5]]);
        expect(await store.teamSize('panel', 'mmlu')).toBe(2);
      });

      it('loses no addition when two clients save at once, and keeps the totals across reopening', async () => {
        const other = await location.open();
        extraStores.push(other);
        const writes: Promise<void>[] = [];
        for (let index = 0; index < 20; index += 1) {
          const writer = index % 2 === 0 ? store : other;
          // Different entry orders per save: the stores must not deadlock on them.
          const entries: [string, number, number][] = [
            ['x', 0.5, 1],
            ['y', 0.25, 1],
            ['z', 0.125, 1],
          ];
          writes.push(save(writer, index % 3 === 0 ? entries : entries.reverse()));
        }
        // Sizes saved at once with scores: one of them wins, and no addition is lost.
        for (let index = 0; index < 10; index += 1) {
          const writer = index % 2 === 0 ? other : store;
          writes.push(
            writer.saveTeamScores({
              team: 'panel',
              taskType: 'sized',
              scores: [{ agent: 'x', importance: 0.5, queries: 1 }],
              k: index + 1,
            }),
          );
        }
        await Promise.all(writes);
        const expected = [
          ['x', 10, 20, 0.5],
          ['y', 5, 20, 0.25],
          ['z', 2.5, 20, 0.125],
        ];
        expect(await totals('panel', 'mmlu', other)).toEqual(expected);
        expect(await totals('panel', 'sized', other)).toEqual([['x', 5, 10, 0.5]]);
        const size = await other.teamSize('panel', 'sized');
        expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).toContain(size);
        const reopened = await reopen();
        expect(await totals('panel', 'mmlu', reopened)).toEqual(expected);
        expect(await reopened.teamSize('panel', 'sized')).toBe(size);
      });

      it('outlives the runs: pruning every run keeps the scores', async () => {
        await store.createRun(newRun('r1'));
        await store.setStatus('r1', 'completed');
        await store.saveTeamScores({
          team: 'panel',
          taskType: 'mmlu',
          scores: [{ agent: 'a', importance: 1, queries: 1 }],
          k: 1,
        });
        expect((await store.deleteRuns([{ runId: 'r1' }])).removed).toEqual(['r1']);
        expect(await totals()).toEqual([['a', 1, 1, 1]]);
        expect(await store.teamSize('panel', 'mmlu')).toBe(1);
      });

      it('rejects every team call on a closed store with STORE', async () => {
        await store.close();
        expect((await rejection(save(store, [['a', 1, 1]]))).code).toBe('STORE');
        expect((await rejection(store.teamScores('panel', 'mmlu'))).code).toBe('STORE');
        expect((await rejection(store.teamSize('panel', 'mmlu'))).code).toBe('STORE');
        expect(
          (await rejection(store.saveTeamScores({ team: 'panel', taskType: 'mmlu', scores: [], k: 2 }))).code,
        ).toBe('STORE');
        store = await location.open();
        expect(await store.teamScores('panel', 'mmlu')).toEqual([]);
        expect(await store.teamSize('panel', 'mmlu')).toBeUndefined();
      });
    });

    describe('persistence', () => {
      it('keeps runs, events, plans and blobs across close and reopen, and continues the seq', async () => {
        const output = largeText('persist');
        await store.createRun(newRun('r1'));
        await store.appendEvents('r1', [
          { type: 'run-start', at: 0 },
          { type: 'task-end', at: 3, output } as EventRecord,
        ]);
        await store.savePlanVersion({ runId: 'r1', version: 1, workflow, cause: 'initial plan' });
        await store.setStatus('r1', 'interrupted');

        const reopened = await reopen();
        expect((await reopened.getRun('r1'))?.status).toBe('interrupted');
        expect((await reopened.planVersions('r1'))[0]?.workflow).toEqual(workflow);
        await reopened.appendEvents('r1', [{ type: 'run-end', at: 9 }]);
        const events = await reopened.events('r1');
        expect(events.map((stored) => [stored.seq, stored.event.type])).toEqual([
          [1, 'run-start'],
          [2, 'task-end'],
          [3, 'run-end'],
        ]);
        expect((events[1]!.event as unknown as { output: string }).output).toBe(output);
      });

      it('rejects calls on a closed store with STORE, and close can be called twice', async () => {
        await store.createRun(newRun('r1'));
        await store.close();
        await store.close();
        expect((await rejection(store.getRun('r1'))).code).toBe('STORE');
        expect((await rejection(store.appendEvents('r1', [{ type: 'x', at: 0 }]))).code).toBe('STORE');
        expect((await rejection(store.deleteRuns([{ runId: 'r1' }]))).code).toBe('STORE');
        store = await location.open();
      });
    });

    describe('unknown run ids', () => {
      it('is NOT_FOUND for every call but getRun, and creates nothing', async () => {
        const calls: [string, () => Promise<unknown>][] = [
          ['appendEvents', () => store.appendEvents('ghost', [{ type: 'x', at: 0 }])],
          ['appendEvents (empty batch)', () => store.appendEvents('ghost', [])],
          [
            'savePlanVersion',
            () => store.savePlanVersion({ runId: 'ghost', version: 1, workflow, cause: 'initial plan' }),
          ],
          ['setStatus', () => store.setStatus('ghost', 'failed')],
          ['setOwner', () => store.setOwner('ghost', { pid: 1, host: 'h' })],
          ['takeOverRun', () => store.takeOverRun('ghost', { pid: 1, host: 'h' }, undefined)],
          ['events', () => store.events('ghost')],
          ['planVersions', () => store.planVersions('ghost')],
        ];
        for (const [label, call] of calls) {
          const error = await rejection(call());
          expect({ label, code: error.code }).toEqual({ label, code: 'NOT_FOUND' });
          expect(error.message).toContain('ghost');
        }
        expect(await store.getRun('ghost')).toBeUndefined();
        expect(await store.stats()).toEqual({ runs: 0, events: 0, planVersions: 0, blobs: 0, blobBytes: 0 });
      });
    });

    // Only file-backed stores have files to corrupt; a server store has no such case (not a skip).
    const openFile = factory.openFile;
    if (openFile)
      describe('corrupted files', () => {
        let dir: string;
        beforeEach(async () => {
          dir = await mkdtemp(join(tmpdir(), 'weft-corrupt-'));
        });
        afterEach(async () => {
          await rm(dir, { recursive: true, force: true });
        });

        it.each([
          ['text', Buffer.from('this is not a database, just some notes\n'.repeat(300))],
          ['random bytes', Buffer.from(Array.from({ length: 8192 }, (_, index) => (index * 7919 + 13) % 251))],
        ])('refuses a file of %s with STORE and leaves it byte-for-byte untouched', async (_label, bytes) => {
          const path = join(dir, 'weft.db');
          await writeFile(path, bytes);
          const error = await rejection(openFile(path));
          expect(error.code).toBe('STORE');
          expect(error.message).toContain('is not a Weft database or is corrupted');
          expect(error.message).toContain(path);
          expect((await readFile(path)).equals(bytes)).toBe(true);
          expect(await readdir(dir)).toEqual(['weft.db']);
        });
      });
  });
}
