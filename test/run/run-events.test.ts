/** The typed reads of a run's log: each event read back is checked to be a WeftEvent, or a located STORE error. */
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { runEventPage, runEvents, weftEventOf } from '../../src/run/run-events.js';
import { WEFT_EVENT_TYPES, isWeftEventType } from '../../src/run/weft-event-types.js';
import type { EventRecord, RunStore, StoredEvent } from '../../src/store/run-store.js';

/** A store's `events` over a fixed log, recording what it was asked. */
function logStore(events: readonly unknown[]) {
  const asked: [number | undefined, number | undefined][] = [];
  const store: Pick<RunStore, 'events'> = {
    async events(runId, afterSeq, limit) {
      asked.push([afterSeq, limit]);
      const stored = events.map((event, i) => ({ runId, seq: i + 1, event: event as EventRecord }));
      const after = stored.filter((row) => row.seq > (afterSeq ?? 0));
      return limit === undefined ? after : after.slice(0, limit);
    },
  };
  return { store, asked };
}

function thrown(action: () => unknown): WeftError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(WeftError);
    return error as WeftError;
  }
  throw new Error('expected a WeftError');
}

const start = { type: 'run-start', at: 0, runId: 'r', task: 't', model: 'sim:', strategy: 'none', options: {} };
const end = { type: 'run-end', at: 9, status: 'completed' };

describe('runEvents and runEventPage', () => {
  it('read the log as WeftEvents; a page keeps positions and asks the store for that page only', async () => {
    const { store, asked } = logStore([start, { type: 'model-call', at: 3 }, end]);
    expect((await runEvents(store, 'r')).map((event) => event.type)).toEqual(['run-start', 'model-call', 'run-end']);
    const page = await runEventPage(store, 'r', 1, 1);
    expect(page).toEqual([{ runId: 'r', seq: 2, event: { type: 'model-call', at: 3 } }]);
    expect(asked.at(-1)).toEqual([1, 1]);
    const last = (await runEventPage(store, 'r', 2))[0]!.event;
    // Typed: narrowing on `type` reaches the event's own fields.
    expect(last.type === 'run-end' ? last.status : undefined).toBe('completed');
  });

  it('refuse an event of a type no run writes, naming the run, its position and the field', async () => {
    const { store } = logStore([start, { type: 'log', at: 1, message: 'x' }]);
    await expect(runEvents(store, 'r7')).rejects.toMatchObject({
      code: 'STORE',
      message: 'event 2 of run r7 has an unknown type "log"',
      location: { field: 'type' },
    });
  });

  it('refuse an event without a numeric at, and one that is not an object', () => {
    const row = (event: unknown): StoredEvent => ({ runId: 'r', seq: 4, event: event as EventRecord });
    const noAt = thrown(() => weftEventOf(row({ type: 'task-start', at: '3' })));
    expect(noAt.message).toBe('event 4 of run r (task-start) has no numeric "at"');
    expect(noAt.location?.field).toBe('at');
    expect(thrown(() => weftEventOf(row({ type: 'model-call', at: Number.NaN }))).location?.field).toBe('at');
    for (const bad of [null, 'run-start', [start]]) {
      const error = thrown(() => weftEventOf(row(bad)));
      expect(error.message).toBe('event 4 of run r is not an object');
      expect(error.location?.field).toBe('event');
    }
    expect(thrown(() => weftEventOf(row({ at: 1 }))).message).toBe('event 4 of run r has an unknown type undefined');
  });

  it('know each type of event a run writes, and only those', () => {
    expect(new Set(WEFT_EVENT_TYPES).size).toBe(WEFT_EVENT_TYPES.length);
    for (const type of WEFT_EVENT_TYPES) expect(isWeftEventType(type), type).toBe(true);
    for (const type of ['log', 'RUN-START', '', 3, undefined]) expect(isWeftEventType(type), String(type)).toBe(false);
  });
});
