/**
 * The SessionStore conformance suite (`weft/test`; the contract is dialog/session-store.ts): SQLite and Postgres
 * run it on the same factory as the RunStore suite, so they keep conversation sessions the same way; a store of
 * your own that keeps sessions can run it too.
 */
import { isSessionStore, sessionStoreOf, type SessionStore } from '../dialog/session-store.js';
import { MAX_STORED_DEPTH } from '../store/json-blobs.js';
import type { EventRecord, RunOwner, RunStore } from '../store/run-store.js';
import { SESSION_ID_PATTERN, type NewSession } from '../store/sessions.js';
import { rejectionWith } from './rejection.js';
import type { StoreSuiteApi } from './store-suite-api.js';

type SessionRunStore = RunStore & SessionStore;

export interface SessionStoreLocation {
  /** Opens the store on this location (again: the same storage, as a second client); `now` is its clock. */
  open(options?: { readonly now?: () => Date }): Promise<SessionRunStore>;
  dispose(): Promise<void>;
}

export interface SessionStoreFactory {
  fresh(): Promise<SessionStoreLocation>;
}

function newSession(sessionId: string, extra: Partial<NewSession> = {}): NewSession {
  return {
    sessionId,
    procedure: 'Order return',
    pdlPath: '/procedures/order-return.pdl.yaml',
    model: 'sim:seed=1',
    options: { controllers: ['dependency', 'repetition'], maxTurns: 20 },
    ...extra,
  };
}

const event = (type: string, at: number, extra: Record<string, unknown> = {}): EventRecord =>
  ({ type, at, ...extra }) as EventRecord;

/** A clock the test moves by hand: no wall-clock assertions. */
function manualClock(start = Date.parse('2026-11-25T10:00:00.000Z')) {
  let now = start;
  return {
    now: () => new Date(now),
    advance(ms: number): string {
      now += ms;
      return new Date(now).toISOString();
    },
    iso: () => new Date(now).toISOString(),
  };
}

export function describeSessionStore(name: string, factory: SessionStoreFactory, test: StoreSuiteApi): void {
  const { afterEach, beforeEach, describe, expect, it } = test;
  const rejection = rejectionWith(expect);
  describe(`SessionStore conformance: ${name}`, () => {
    let location: SessionStoreLocation;
    let store: SessionRunStore;
    let clock: ReturnType<typeof manualClock>;
    const extraStores: SessionRunStore[] = [];

    beforeEach(async () => {
      clock = manualClock();
      location = await factory.fresh();
      store = await location.open({ now: clock.now });
    });

    afterEach(async () => {
      for (const extra of extraStores.splice(0)) await extra.close();
      await store.close();
      await location.dispose();
    });

    async function another(): Promise<SessionRunStore> {
      const other = await location.open({ now: clock.now });
      extraStores.push(other);
      return other;
    }

    const types = async (sessionId: string, target: SessionStore = store) =>
      (await target.sessionEvents(sessionId)).map((stored) => [stored.seq, stored.event.type]);

    it("implements the dialog engine's SessionStore; sessionStoreOf refuses a store without sessions", () => {
      expect(isSessionStore(store)).toBe(true);
      expect(sessionStoreOf(store)).toBe(store);
      const { createSession, appendSessionEvents, sessionEvents } = store;
      const error = (() => {
        try {
          sessionStoreOf({ createSession, appendSessionEvents, sessionEvents });
        } catch (thrown) {
          return thrown as { code?: string; message?: string };
        }
        return undefined;
      })();
      expect(error?.code).toBe('STORE');
      expect(error?.message).toContain('keeps no sessions');
    });

    describe('creating and reading', () => {
      it('creates a session and reads it back open, with no turns, and the owner only when given', async () => {
        await store.createSession(newSession('s-1', { owner: { pid: 4242, host: 'web-3' } }));
        clock.advance(1000);
        await store.createSession(newSession('s-2', { pdlPath: '', model: 'openai:gpt-4o-mini' }));
        expect(await store.getSession('s-1')).toEqual({
          ...newSession('s-1', { owner: { pid: 4242, host: 'web-3' } }),
          status: 'open',
          turns: 0,
          createdAt: '2026-11-25T10:00:00.000Z',
          updatedAt: '2026-11-25T10:00:00.000Z',
        });
        const second = await store.getSession('s-2');
        expect(second).toMatchObject({ pdlPath: '', model: 'openai:gpt-4o-mini', createdAt: clock.iso() });
        expect(second).not.toHaveProperty('owner');
        expect(await store.sessionEvents('s-1')).toEqual([]);
      });

      it('returns undefined for an unknown id, and for one no session can have', async () => {
        await store.createSession(newSession('s-1'));
        expect(await store.getSession('s-9')).toBeUndefined();
        expect(await store.getSession('not an id; DROP TABLE sessions')).toBeUndefined();
        expect(await store.getSession('x'.repeat(100_000))).toBeUndefined();
        expect(await store.getSession('s-1')).toBeDefined();
      });

      it('refuses the same id twice with STORE and keeps the first', async () => {
        await store.createSession(newSession('s-1'));
        const error = await rejection(store.createSession(newSession('s-1', { procedure: 'Other' })));
        expect(error.code).toBe('STORE');
        expect(error.message).toContain('"s-1" already exists');
        expect((await store.getSession('s-1'))?.procedure).toBe('Order return');
        expect(await store.listSessions()).toHaveLength(1);
      });

      it('lists sessions oldest first, not by id', async () => {
        for (const id of ['s-c', 's-a', 's-b']) {
          await store.createSession(newSession(id));
          clock.advance(1);
        }
        // Created within the same millisecond: the order of creation still holds.
        for (const id of ['s-z', 's-y']) await store.createSession(newSession(id));
        expect((await store.listSessions()).map((session) => session.sessionId)).toEqual([
          's-c',
          's-a',
          's-b',
          's-z',
          's-y',
        ]);
      });

      it.each([
        ['an empty id', { sessionId: '' }, 'ids are 1 to 128'],
        ['an id with a space', { sessionId: 's 1' }, 'ids are 1 to 128'],
        ['an id with a terminal escape', { sessionId: 's-\u001b[2J' }, 'ids are 1 to 128'],
        ['an id starting with -', { sessionId: '--help' }, 'ids are 1 to 128'],
        ['an id of 129 characters', { sessionId: `s${'x'.repeat(128)}` }, 'ids are 1 to 128'],
        ['an id that is not a string', { sessionId: 42 }, 'ids are 1 to 128'],
        ['a procedure that is not a string', { procedure: null }, 'procedure must be a string'],
        ['options that are an array', { options: [] }, 'options must be an object'],
        ['options holding a bigint', { options: { limit: 10n } }, 'the options of session s-1.limit'],
        ['a zero pid', { owner: { pid: 0, host: 'h' } }, 'owner must be'],
        ['an empty host', { owner: { pid: 1, host: '' } }, 'owner must be'],
      ])('refuses a session with %s with STORE and stores nothing', async (_label, extra, message) => {
        const error = await rejection(store.createSession(newSession('s-1', extra as Partial<NewSession>)));
        expect(error.code).toBe('STORE');
        expect(error.message).toContain(message);
        expect(error.message.length).toBeLessThan(400);
        expect(await store.listSessions()).toEqual([]);
      });

      it('round-trips ids at the edges of the alphabet', async () => {
        const ids = [
          's-20261125-100000-9f3a0c1d',
          'a',
          'Z9',
          `s${'x'.repeat(127)}`,
          'user:42.chat_7-b',
          '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
        ];
        expect(ids.every((id) => SESSION_ID_PATTERN.test(id))).toBe(true);
        for (const id of ids) await store.createSession(newSession(id));
        expect((await store.listSessions()).map((session) => session.sessionId)).toEqual(ids);
      });
    });

    describe('events', () => {
      it('appends in order with seq numbers that continue across calls, and reads after a seq', async () => {
        await store.createSession(newSession('s-1'));
        await store.appendSessionEvents('s-1', [event('session-start', 0), event('user-message', 5, { turn: 1 })]);
        await store.appendSessionEvents('s-1', []);
        await store.appendSessionEvents('s-1', [event('bot-reply', 9.5, { turn: 1, text: 'Hello' })]);
        expect(await types('s-1')).toEqual([
          [1, 'session-start'],
          [2, 'user-message'],
          [3, 'bot-reply'],
        ]);
        expect(await store.sessionEvents('s-1', 2)).toEqual([
          { sessionId: 's-1', seq: 3, event: { type: 'bot-reply', at: 9.5, turn: 1, text: 'Hello' } },
        ]);
        expect(await store.sessionEvents('s-1', 3)).toEqual([]);
        expect((await store.sessionEvents('s-1', 0)).map((stored) => stored.seq)).toEqual([1, 2, 3]);
      });

      it("keeps each session's log separate", async () => {
        await store.createSession(newSession('s-1'));
        await store.createSession(newSession('s-2'));
        await store.appendSessionEvents('s-1', [event('a', 0)]);
        await store.appendSessionEvents('s-2', [event('b', 0), event('c', 1)]);
        await store.appendSessionEvents('s-1', [event('d', 2)]);
        expect(await types('s-1')).toEqual([
          [1, 'a'],
          [2, 'd'],
        ]);
        expect(await types('s-2')).toEqual([
          [1, 'b'],
          [2, 'c'],
        ]);
      });

      it('round-trips nested JSON, unicode and NUL characters, and drops undefined properties', async () => {
        await store.createSession(newSession('s-1'));
        const nested = {
          type: 'tool-result',
          at: 12,
          args: {
            list: [1, 'two', null, true, { deep: ['é', '😀', '\u0000nul', '\u2028', 'lone \ud800 \udfff'] }],
            empty: {},
          },
          error: undefined,
          looksLikeABlob: 'blob:sha256:0000000000000000000000000000000000000000000000000000000000000000',
        };
        const withProtoKey = JSON.parse('{"type":"x","at":0,"__proto__":{"polluted":true}}') as EventRecord;
        await store.appendSessionEvents('s-1', [nested as unknown as EventRecord, withProtoKey]);
        const [first, second] = await store.sessionEvents('s-1');
        const expected: Record<string, unknown> = { ...nested };
        delete expected['error'];
        expect(first?.event).toEqual(expected);
        expect(Object.keys(first?.event ?? {})).not.toContain('error');
        expect(Object.getOwnPropertyDescriptor(second?.event, '__proto__')?.value).toEqual({ polluted: true });
        expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      });

      it('round-trips a 1 MB string in an event, and several in one batch', async () => {
        await store.createSession(newSession('s-1'));
        const megabyte = `${'0123456789abcdef'.repeat(65_536)}\u0000😀`;
        expect(megabyte.length).toBeGreaterThan(1_000_000);
        await store.appendSessionEvents('s-1', [
          event('tool-result', 1, { result: { body: megabyte } }),
          event('tool-result', 2, { result: { body: megabyte.slice(1) } }),
        ]);
        const events = await store.sessionEvents('s-1');
        expect((events[0]!.event as unknown as { result: { body: string } }).result.body).toBe(megabyte);
        expect((events[1]!.event as unknown as { result: { body: string } }).result.body).toBe(megabyte.slice(1));
      });

      it.each([
        ['a bigint', { type: 'x', at: 1, value: 10n }, 'value: it is a bigint'],
        ['a function', { type: 'x', at: 1, value: () => 1 }, 'value: it is a function'],
        ['NaN', { type: 'x', at: 1, args: { amount: Number.NaN } }, 'args.amount: it is NaN'],
        ['Infinity', { type: 'x', at: 1, nested: { value: Number.POSITIVE_INFINITY } }, 'nested.value'],
        ['a Date', { type: 'x', at: 1, when: new Date(0) }, 'when: it is a Date'],
        ['undefined in an array', { type: 'x', at: 1, list: [1, undefined] }, 'list[1]'],
        ['a missing type', { at: 1 }, 'non-empty string `type`'],
        ['a non-numeric at', { type: 'x', at: '1' }, '`at` must be a finite number'],
      ])('fails a whole batch holding %s with STORE naming it, and appends nothing', async (_label, bad, field) => {
        await store.createSession(newSession('s-1'));
        await store.appendSessionEvents('s-1', [event('first', 0)]);
        const before = await store.getSession('s-1');
        clock.advance(1000);
        const error = await rejection(
          store.appendSessionEvents('s-1', [
            event('ok', 1, { text: 'x'.repeat(10_000) }),
            bad as unknown as EventRecord,
            event('ok', 2),
          ]),
        );
        expect(error.code).toBe('STORE');
        expect(error.message).toContain('event 2 of the batch for session s-1');
        expect(error.message).toContain(field);
        expect(await types('s-1')).toEqual([[1, 'first']]);
        expect(await store.getSession('s-1')).toEqual(before);
        // The failed batch used no seq numbers.
        await store.appendSessionEvents('s-1', [event('next', 3)]);
        expect(await types('s-1')).toEqual([
          [1, 'first'],
          [2, 'next'],
        ]);
      });

      it('keeps values nested to the limit, and refuses deeper ones by name instead of overflowing the stack', async () => {
        await store.createSession(newSession('s-1'));
        const nest = (depth: number, kind: 'array' | 'object'): unknown => {
          let value: unknown = 'leaf';
          for (let level = 0; level < depth; level += 1) value = kind === 'array' ? [value] : { d: value };
          return value;
        };
        // The event itself is one level: MAX_STORED_DEPTH - 1 more fit.
        const deepest = nest(MAX_STORED_DEPTH - 1, 'object');
        await store.appendSessionEvents('s-1', [event('tool-result', 0, { result: deepest })]);
        expect((await store.sessionEvents('s-1'))[0]?.event).toEqual({ type: 'tool-result', at: 0, result: deepest });
        for (const [depth, kind, shown] of [
          [MAX_STORED_DEPTH, 'object', 'result.d.d.d.d…'],
          [200_000, 'array', 'result[0][0][0][0]…'],
        ] as const) {
          const error = await rejection(
            store.appendSessionEvents('s-1', [event('ok', 1), event('tool-result', 1, { result: nest(depth, kind) })]),
          );
          expect(error.code).toBe('STORE');
          expect(error.message).toContain(`event 2 of the batch for session s-1.${shown}`);
          expect(error.message).toContain(`nested deeper than ${MAX_STORED_DEPTH} levels`);
          expect(error.message.length).toBeLessThan(300);
        }
        expect(await types('s-1')).toEqual([[1, 'tool-result']]);
      });

      it('fails a batch with a circular reference and names the field', async () => {
        await store.createSession(newSession('s-1'));
        const circular: Record<string, unknown> = { type: 'x', at: 0 };
        circular['self'] = { back: circular };
        const error = await rejection(store.appendSessionEvents('s-1', [circular as unknown as EventRecord]));
        expect(error.code).toBe('STORE');
        expect(error.message).toContain('self.back: it is a circular reference');
        expect(await store.sessionEvents('s-1')).toEqual([]);
      });

      it('moves updatedAt with each append', async () => {
        await store.createSession(newSession('s-1'));
        const later = clock.advance(5000);
        await store.appendSessionEvents('s-1', [event('user-message', 5000)]);
        expect(await store.getSession('s-1')).toMatchObject({
          createdAt: '2026-11-25T10:00:00.000Z',
          updatedAt: later,
        });
      });

      it('continues the seq across store instances on the same storage, and across reopening', async () => {
        await store.createSession(newSession('s-1'));
        const other = await another();
        await store.appendSessionEvents('s-1', [event('a', 0)]);
        await other.appendSessionEvents('s-1', [event('b', 1), event('c', 2)]);
        await store.appendSessionEvents('s-1', [event('d', 3)]);
        expect(await types('s-1', other)).toEqual([
          [1, 'a'],
          [2, 'b'],
          [3, 'c'],
          [4, 'd'],
        ]);
        await store.setSessionProgress('s-1', { status: 'ended', turns: 2 });
        await store.close();
        store = await location.open({ now: clock.now });
        await store.appendSessionEvents('s-1', [event('e', 4)]);
        expect((await store.sessionEvents('s-1', 3)).map((stored) => [stored.seq, stored.event])).toEqual([
          [4, { type: 'd', at: 3 }],
          [5, { type: 'e', at: 4 }],
        ]);
        expect(await store.getSession('s-1')).toMatchObject({ status: 'ended', turns: 2 });
      });

      it('gives gap-free, unique seq numbers and contiguous batches to interleaved writers', async () => {
        await store.createSession(newSession('s-1'));
        const other = await another();
        const writes: Promise<void>[] = [];
        for (let index = 0; index < 20; index += 1) {
          const writer = index % 2 === 0 ? store : other;
          writes.push(writer.appendSessionEvents('s-1', [event(`w${index}`, index), event(`w${index}b`, index)]));
        }
        await Promise.all(writes);
        const events = await store.sessionEvents('s-1');
        expect(events.map((stored) => stored.seq)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
        for (let index = 0; index < 40; index += 2) {
          expect(events[index + 1]?.event.type).toBe(`${events[index]?.event.type}b`);
        }
      });
    });

    describe('progress', () => {
      it('records the status and turns, and moves updatedAt', async () => {
        await store.createSession(newSession('s-1'));
        const first = clock.advance(60_000);
        await store.setSessionProgress('s-1', { status: 'open', turns: 3 });
        expect(await store.getSession('s-1')).toMatchObject({
          status: 'open',
          turns: 3,
          createdAt: '2026-11-25T10:00:00.000Z',
          updatedAt: first,
        });
        const second = clock.advance(1000);
        await store.setSessionProgress('s-1', { status: 'ended', turns: 4 });
        expect(await store.getSession('s-1')).toMatchObject({ status: 'ended', turns: 4, updatedAt: second });
        expect((await store.listSessions())[0]).toMatchObject({ status: 'ended', turns: 4 });
      });

      it.each([
        ['an unknown status', { status: 'closed', turns: 1 }, 'unknown status "closed"'],
        ['a missing status', { turns: 1 }, 'unknown status undefined'],
        ['negative turns', { status: 'open', turns: -1 }, 'turns must be an integer'],
        ['fractional turns', { status: 'open', turns: 1.5 }, 'turns must be an integer'],
        ['NaN turns', { status: 'open', turns: Number.NaN }, 'turns must be an integer'],
        ['turns as text', { status: 'open', turns: '2' }, 'turns must be an integer'],
      ])('refuses %s with STORE and keeps the record', async (_label, progress, message) => {
        await store.createSession(newSession('s-1'));
        await store.setSessionProgress('s-1', { status: 'open', turns: 2 });
        const before = await store.getSession('s-1');
        clock.advance(1000);
        const error = await rejection(store.setSessionProgress('s-1', progress as never));
        expect(error.code).toBe('STORE');
        expect(error.message).toContain(message);
        expect(await store.getSession('s-1')).toEqual(before);
      });
    });

    describe('owners', () => {
      it('takes a session over only from the owner the caller found (compare-and-set)', async () => {
        await store.createSession(newSession('owned', { owner: { pid: 10, host: 'a' } }));
        await store.createSession(newSession('free'));
        expect(await store.takeOverSession('owned', { pid: 11, host: 'b' }, { pid: 99, host: 'a' })).toBe(false);
        expect(await store.takeOverSession('owned', { pid: 11, host: 'b' }, { pid: 10, host: 'other' })).toBe(false);
        expect(await store.takeOverSession('owned', { pid: 11, host: 'b' }, undefined)).toBe(false);
        expect((await store.getSession('owned'))?.owner).toEqual({ pid: 10, host: 'a' });
        expect(await store.takeOverSession('owned', { pid: 11, host: 'b' }, { pid: 10, host: 'a' })).toBe(true);
        expect((await store.getSession('owned'))?.owner).toEqual({ pid: 11, host: 'b' });
        // The session itself is not changed by a takeover: still open, same turns.
        expect(await store.getSession('owned')).toMatchObject({ status: 'open', turns: 0 });
        expect(await store.takeOverSession('free', { pid: 12, host: 'c' }, { pid: 10, host: 'a' })).toBe(false);
        expect(await store.takeOverSession('free', { pid: 12, host: 'c' }, undefined)).toBe(true);
        expect((await store.getSession('free'))?.owner).toEqual({ pid: 12, host: 'c' });
      });

      it.each([
        ['a zero pid', { pid: 0, host: 'h' }],
        ['a fractional pid', { pid: 1.5, host: 'h' }],
        ['an empty host', { pid: 1, host: '' }],
        ['no owner at all', undefined],
      ])('refuses to take over or release with %s (STORE) and keeps the owner', async (_label, bad) => {
        await store.createSession(newSession('s-1', { owner: { pid: 5, host: 'h' } }));
        const owner = { pid: 5, host: 'h' };
        expect((await rejection(store.takeOverSession('s-1', bad as never, owner))).code).toBe('STORE');
        if (bad !== undefined) {
          expect((await rejection(store.takeOverSession('s-1', owner, bad as never))).code).toBe('STORE');
        }
        expect((await rejection(store.releaseSession('s-1', bad as never))).code).toBe('STORE');
        expect((await store.getSession('s-1'))?.owner).toEqual(owner);
      });

      it('lets exactly one of several concurrent takeovers with the same previous owner win, across clients', async () => {
        await store.createSession(newSession('s-1', { owner: { pid: 10, host: 'h' } }));
        const clients: SessionStore[] = [store];
        for (let index = 0; index < 5; index += 1) clients.push(await another());
        let previous: RunOwner | undefined = { pid: 10, host: 'h' };
        for (let round = 0; round < 6; round += 1) {
          // Rounds alternate between taking over an owner and taking over a released session (no owner).
          const results = await Promise.all(
            [...clients, ...clients].map((client, index) =>
              client.takeOverSession('s-1', { pid: 100 * (round + 1) + index, host: 'h' }, previous),
            ),
          );
          expect(results.filter(Boolean)).toHaveLength(1);
          const winner = { pid: 100 * (round + 1) + results.indexOf(true), host: 'h' };
          expect((await store.getSession('s-1'))?.owner).toEqual(winner);
          if (round % 2 === 0) {
            await store.releaseSession('s-1', winner);
            previous = undefined;
          } else previous = winner;
        }
      });

      it('releases only a matching owner', async () => {
        await store.createSession(newSession('s-1', { owner: { pid: 10, host: 'a' } }));
        await store.releaseSession('s-1', { pid: 10, host: 'b' });
        await store.releaseSession('s-1', { pid: 11, host: 'a' });
        expect((await store.getSession('s-1'))?.owner).toEqual({ pid: 10, host: 'a' });
        await store.releaseSession('s-1', { pid: 10, host: 'a' });
        expect(await store.getSession('s-1')).not.toHaveProperty('owner');
        // Releasing again is harmless, and the next chat takes it over from no owner.
        await store.releaseSession('s-1', { pid: 10, host: 'a' });
        expect(await store.takeOverSession('s-1', { pid: 20, host: 'c' }, undefined)).toBe(true);
        expect((await store.getSession('s-1'))?.owner).toEqual({ pid: 20, host: 'c' });
      });
    });

    describe('apart from runs', () => {
      it('is not seen by listRuns or stats, and deleteRuns never touches a session', async () => {
        await store.createRun({ runId: 'r1', task: 't', model: 'sim:', options: {} });
        await store.appendEvents('r1', [event('run-start', 0), event('task-end', 1, { output: 'o'.repeat(10_000) })]);
        await store.setStatus('r1', 'completed');
        const statsBefore = await store.stats();

        // A session named like the run: ids of runs and sessions do not meet.
        for (const id of ['r1', 's-1']) {
          await store.createSession(newSession(id, { owner: { pid: 7, host: 'h' } }));
          await store.appendSessionEvents(id, [
            event('session-start', 0),
            event('tool-result', 1, { result: 'o'.repeat(10_000) }),
            event('tool-result', 2, { result: 'p'.repeat(1_000_000) }),
          ]);
        }
        await store.setSessionProgress('s-1', { status: 'ended', turns: 3 });
        expect(await store.stats()).toEqual(statsBefore);
        expect((await store.listRuns()).map((run) => run.runId)).toEqual(['r1']);
        expect(await store.getRun('s-1')).toBeUndefined();

        const sessionsBefore = await store.listSessions();
        const eventsBefore = await store.sessionEvents('s-1');
        const dryRun = await store.deleteRuns([{ runId: 's-1' }, { runId: 'r1' }], { dryRun: true });
        expect(dryRun).toMatchObject({ removed: ['r1'], skipped: ['s-1'] });
        const deleted = await store.deleteRuns([
          { runId: 's-1', deadOwner: { pid: 7, host: 'h' } },
          { runId: 'r1', deadOwner: { pid: 7, host: 'h' } },
        ]);
        expect(deleted).toMatchObject({ removed: ['r1'], skipped: ['s-1'], events: 2 });
        expect(await store.stats()).toEqual({ runs: 0, events: 0, planVersions: 0, blobs: 0, blobBytes: 0 });
        expect(await store.listSessions()).toEqual(sessionsBefore);
        expect(await store.sessionEvents('s-1')).toEqual(eventsBefore);
        expect(await types('r1')).toEqual([
          [1, 'session-start'],
          [2, 'tool-result'],
          [3, 'tool-result'],
        ]);
      });

      it('is NOT_FOUND for a session id given to a run call, and for a run id given to a session call', async () => {
        await store.createRun({ runId: 'only-a-run', task: 't', model: 'sim:', options: {} });
        await store.createSession(newSession('only-a-session'));
        expect((await rejection(store.events('only-a-session'))).code).toBe('NOT_FOUND');
        expect((await rejection(store.sessionEvents('only-a-run'))).code).toBe('NOT_FOUND');
        expect(await store.getSession('only-a-run')).toBeUndefined();
      });
    });

    describe('unknown session ids', () => {
      it.each([
        ['an unknown id', 'ghost'],
        ['an id no session can have', 'gh ost\u001b[2J'],
      ])('is NOT_FOUND for every call but getSession with %s, and creates nothing', async (_label, id) => {
        const owner = { pid: 1, host: 'h' };
        const calls: [string, () => Promise<unknown>][] = [
          ['appendSessionEvents', () => store.appendSessionEvents(id, [event('x', 0)])],
          ['appendSessionEvents (empty batch)', () => store.appendSessionEvents(id, [])],
          ['sessionEvents', () => store.sessionEvents(id)],
          ['setSessionProgress', () => store.setSessionProgress(id, { status: 'ended', turns: 1 })],
          ['takeOverSession', () => store.takeOverSession(id, owner, undefined)],
          ['releaseSession', () => store.releaseSession(id, owner)],
        ];
        for (const [label, call] of calls) {
          const error = await rejection(call());
          expect({ label, code: error.code }).toEqual({ label, code: 'NOT_FOUND' });
          expect(error.message).toContain('gh');
          expect(error.message).not.toContain('\u001b');
        }
        expect(await store.getSession(id)).toBeUndefined();
        expect(await store.listSessions()).toEqual([]);
      });

      it('shows a huge id cut short in the message', async () => {
        const error = await rejection(store.sessionEvents(`s-${'x'.repeat(1_000_000)}`));
        expect(error.code).toBe('NOT_FOUND');
        expect(error.message.length).toBeLessThan(300);
        expect(error.message).toContain('1000002 characters');
      });
    });

    it('rejects every session call on a closed store with STORE', async () => {
      await store.createSession(newSession('s-1'));
      await store.close();
      const owner = { pid: 1, host: 'h' };
      const calls: (() => Promise<unknown>)[] = [
        () => store.createSession(newSession('s-2')),
        () => store.appendSessionEvents('s-1', [event('x', 0)]),
        () => store.sessionEvents('s-1'),
        () => store.getSession('s-1'),
        () => store.getSession('not an id'),
        () => store.listSessions(),
        () => store.setSessionProgress('s-1', { status: 'ended', turns: 1 }),
        () => store.takeOverSession('s-1', owner, undefined),
        () => store.releaseSession('s-1', owner),
      ];
      for (const call of calls) expect((await rejection(call())).code).toBe('STORE');
      store = await location.open({ now: clock.now });
      expect((await store.listSessions()).map((session) => session.sessionId)).toEqual(['s-1']);
    });
  });
}
