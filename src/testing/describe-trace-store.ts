/**
 * The TraceStore conformance suite (`weft/test`; the contract is store/traces.ts): SQLite and Postgres run it on
 * the same factory as the RunStore suite, so they keep execution traces the same way; a store of your own that
 * keeps traces can run it too.
 */
import { MAX_STORED_DEPTH } from '../store/json-blobs.js';
import type { RunStore } from '../store/run-store.js';
import {
  isTraceStore,
  newTraceId,
  TRACE_ID_PATTERN,
  traceStoreOf,
  type NewTrace,
  type TraceStore,
} from '../store/traces.js';
import { rejectionWith } from './rejection.js';
import type { StoreSuiteApi } from './store-suite-api.js';

type TraceRunStore = RunStore & TraceStore;

export interface TraceStoreLocation {
  open(options?: { readonly now?: () => Date }): Promise<RunStore>;
  dispose(): Promise<void>;
}

export interface TraceStoreFactory {
  fresh(): Promise<TraceStoreLocation>;
}

export function newTrace(traceId: string, extra: Partial<NewTrace> = {}): NewTrace {
  return {
    traceId,
    task: 'Sum the numbers from 1 to n',
    taskKey: 'sum_to_n',
    mode: 'react',
    model: 'sim:seed=1',
    input: { n: 2 },
    calls: [
      { tool: 'add', args: { a: 0, b: 1 }, ok: true, result: 1, durationMs: 1 },
      { tool: 'add', args: { a: 1, b: 2 }, ok: true, result: 3, durationMs: 0.5 },
    ],
    answer: 3,
    success: true,
    usage: { calls: 3, inputTokens: 120, outputTokens: 30, costUsd: 0.0001 },
    ...extra,
  };
}

function manualClock(start = Date.parse('2026-11-25T10:00:00.000Z')) {
  let now = start;
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

export function describeTraceStore(name: string, factory: TraceStoreFactory, test: StoreSuiteApi): void {
  const { afterEach, beforeEach, describe, expect, it } = test;
  const rejection = rejectionWith(expect);
  describe(`TraceStore conformance: ${name}`, () => {
    let location: TraceStoreLocation;
    let store: TraceRunStore;
    let clock: ReturnType<typeof manualClock>;

    beforeEach(async () => {
      clock = manualClock();
      location = await factory.fresh();
      store = traceStoreOf(await location.open({ now: clock.now }));
    });

    afterEach(async () => {
      await store.close();
      await location.dispose();
    });

    it('implements TraceStore; traceStoreOf refuses a store without traces', async () => {
      expect(isTraceStore(store)).toBe(true);
      expect(isTraceStore({ saveTrace() {} })).toBe(false);
      expect(() => traceStoreOf({})).toThrow(/keeps no traces/);
      expect(newTraceId(new Date('2026-11-25T10:00:00Z'))).toMatch(/^t-20261125-100000-[0-9a-f]{8}$/);
      expect(newTraceId()).toMatch(TRACE_ID_PATTERN);
    });

    it('saves a trace and reads it back whole, with its creation time', async () => {
      const trace = newTrace('t-1', {
        plan: ['add 0 and 1', 'add 1 and 2'],
        expected: 3,
        toolsPath: '/tools/math.yaml',
        owner: { pid: 42, host: 'h' },
        calls: [
          { tool: 'add', args: { a: 0, b: 1 }, ok: true, result: 1, durationMs: 1, step: 0 },
          { tool: 'div', args: { a: 1, b: 0 }, ok: false, error: 'division by zero', durationMs: 2, step: 'sub-2' },
        ],
      });
      await store.saveTrace(trace);
      expect(await store.getTrace('t-1')).toEqual({ ...trace, createdAt: '2026-11-25T10:00:00.000Z' });
      expect(await store.getTrace('t-2')).toBeUndefined();
      // An id no trace can have names none: no query, no error.
      expect(await store.getTrace("t-'; DROP TABLE traces; --")).toBeUndefined();
    });

    it('lists newest first, filters by task key and success, and limits', async () => {
      await store.saveTrace(newTrace('t-1'));
      clock.advance(1000);
      await store.saveTrace(newTrace('t-2', { taskKey: 'other' }));
      clock.advance(1000);
      await store.saveTrace(newTrace('t-3', { success: false, error: 'no answer' }));
      // Same instant: the later save still comes first.
      await store.saveTrace(newTrace('t-4', { taskKey: undefined, mode: 'run', runId: '20261125-100000-abcd' }));
      const ids = async (filter?: Parameters<TraceStore['listTraces']>[0]) =>
        (await store.listTraces(filter)).map((trace) => trace.traceId);
      expect(await ids()).toEqual(['t-4', 't-3', 't-2', 't-1']);
      expect(await ids({ taskKey: 'sum_to_n' })).toEqual(['t-3', 't-1']);
      expect(await ids({ success: true })).toEqual(['t-4', 't-2', 't-1']);
      expect(await ids({ success: false })).toEqual(['t-3']);
      expect(await ids({ taskKey: 'sum_to_n', success: true })).toEqual(['t-1']);
      expect(await ids({ limit: 2 })).toEqual(['t-4', 't-3']);
      expect(await ids({ limit: 0 })).toEqual([]);
      expect(await ids({ taskKey: 'nothing' })).toEqual([]);
      expect((await store.listTraces())[0]).not.toHaveProperty('taskKey');
      expect((await rejection(store.listTraces({ limit: -1 }))).code).toBe('STORE');
    });

    it('refuses a trace id twice and leaves the first as it was', async () => {
      await store.saveTrace(newTrace('t-1'));
      const error = await rejection(store.saveTrace(newTrace('t-1', { answer: 'other' })));
      expect(error.code).toBe('STORE');
      expect(error.message).toContain('A trace with id t-1 already exists');
      expect((await store.getTrace('t-1'))?.answer).toBe(3);
    });

    it('refuses bad traces with a message naming the field, writing nothing', async () => {
      const cases: [Partial<NewTrace> & Record<string, unknown>, RegExp][] = [
        [{ traceId: 'run-1' }, /ids are 't-'/],
        [{ traceId: 't-1\u001b[2J' }, /Cannot store a trace with id "t-1/],
        [{ mode: 'magic' as never }, /unknown mode "magic"/],
        [{ success: 'yes' as never }, /success must be true or false/],
        [{ calls: 'none' as never }, /calls must be a list/],
        [{ usage: { calls: -1, inputTokens: 0, outputTokens: 0 } }, /usage must have/],
        [{ answer: Number.NaN }, /trace t-9\.answer: it is NaN/],
        [{ input: { when: new Date(0) } }, /trace t-9\.input\.when: it is a Date/],
        [{ owner: { pid: -1, host: 'h' } }, /owner/],
      ];
      for (const [extra, message] of cases) {
        const error = await rejection(store.saveTrace(newTrace('t-9', extra)));
        expect({ code: error.code, message: error.message }).toEqual({
          code: 'STORE',
          message: expect.stringMatching(message),
        });
      }
      expect(await store.listTraces()).toEqual([]);
    });

    it('keeps big and deeply nested results, and refuses nesting past the limit by name', async () => {
      const big = `${'x'.repeat(2_000_000)}\u0000é🙂`;
      let nested: unknown = 'bottom';
      for (let depth = 0; depth < MAX_STORED_DEPTH - 10; depth += 1) nested = [nested];
      const trace = newTrace('t-1', {
        calls: [{ tool: 'fetch', args: { url: 'x' }, ok: true, result: { big, nested }, durationMs: 1 }],
        answer: nested,
      });
      await store.saveTrace(trace);
      const read = await store.getTrace('t-1');
      expect(read?.calls[0]?.result).toEqual({ big, nested });
      expect(read?.answer).toEqual(nested);

      let tooDeep: unknown = 0;
      for (let depth = 0; depth < 20_000; depth += 1) tooDeep = { d: tooDeep };
      const error = await rejection(store.saveTrace(newTrace('t-2', { answer: tooDeep })));
      expect(error.code).toBe('STORE');
      expect(error.message).toContain('trace t-2.answer');
      expect(await store.getTrace('t-2')).toBeUndefined();
    });

    it('is not a run: runs and stats do not see traces', async () => {
      await store.saveTrace(newTrace('t-1'));
      expect(await store.listRuns()).toEqual([]);
      expect(await store.stats()).toMatchObject({ runs: 0, events: 0 });
      expect(await store.deleteRuns([{ runId: 't-1' }])).toMatchObject({ removed: [] });
      expect((await store.getTrace('t-1'))?.traceId).toBe('t-1');
    });

    it('a second client of the same storage sees saved traces', async () => {
      await store.saveTrace(newTrace('t-1'));
      const other = traceStoreOf(await location.open());
      try {
        expect((await other.listTraces()).map((trace) => trace.traceId)).toEqual(['t-1']);
        await other.saveTrace(newTrace('t-2'));
        expect((await store.getTrace('t-2'))?.traceId).toBe('t-2');
      } finally {
        await other.close();
      }
    });
  });
}
