/** The typed read of a session's log: each event read back is checked to be a SessionEvent, or a located STORE error. */
import { describe, expect, it } from 'vitest';
import { readSessionEvents } from '../../src/dialog/read-session-events.js';
import { SESSION_EVENT_TYPES, isSessionEventType } from '../../src/dialog/session-event-types.js';
import type { SessionStore } from '../../src/dialog/session-store.js';
import type { EventRecord } from '../../src/store/run-store.js';

function logStore(events: readonly unknown[]): Pick<SessionStore, 'sessionEvents'> {
  return {
    async sessionEvents(sessionId, afterSeq) {
      return events
        .map((event, i) => ({ sessionId, seq: i + 1, event: event as EventRecord }))
        .filter((row) => row.seq > (afterSeq ?? 0));
    },
  };
}

describe('readSessionEvents', () => {
  it('reads the log as SessionEvents, after a position when given one', async () => {
    const store = logStore([
      { type: 'user-message', at: 1, turn: 1, text: 'hi' },
      { type: 'bot-reply', at: 2, turn: 1, text: 'hello' },
    ]);
    const events = await readSessionEvents(store, 's-1');
    expect(events.map((event) => event.type)).toEqual(['user-message', 'bot-reply']);
    const [reply] = await readSessionEvents(store, 's-1', 1);
    expect(reply?.type === 'bot-reply' ? reply.text : undefined).toBe('hello');
  });

  it("refuses a run's event type, a missing at and a non-object, naming the session, position and field", async () => {
    const cases: [unknown, string, string][] = [
      [{ type: 'run-start', at: 0 }, 'event 1 of session s-2 has an unknown type "run-start"', 'type'],
      [{ type: 'bot-reply', turn: 1 }, 'event 1 of session s-2 (bot-reply) has no numeric "at"', 'at'],
      [42, 'event 1 of session s-2 is not an object', 'event'],
    ];
    for (const [event, message, field] of cases)
      await expect(readSessionEvents(logStore([event]), 's-2')).rejects.toMatchObject({
        code: 'STORE',
        message,
        location: { field },
      });
  });

  it('knows each type of event a session writes, and only those', () => {
    expect(new Set(SESSION_EVENT_TYPES).size).toBe(SESSION_EVENT_TYPES.length);
    for (const type of SESSION_EVENT_TYPES) expect(isSessionEventType(type), type).toBe(true);
    for (const type of ['run-start', 'call', '', null]) expect(isSessionEventType(type), String(type)).toBe(false);
  });
});
