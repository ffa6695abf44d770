/**
 * A session's log, typed. The store keeps a session's events as JSON it does not interpret; each was written by a
 * conversation as a SessionEvent, and this read checks each one read back (an object with a known `type` and a
 * numeric `at`). A log that fails it is a STORE error naming the session and the event's position.
 */
import { WeftError } from '../errors.js';
import { eventRecordProblem } from '../store/event-record-problem.js';
import type { StoredSessionEvent } from '../store/sessions.js';
import type { SessionEvent } from './session-events.js';
import { isSessionEventType } from './session-event-types.js';
import type { SessionStore } from './session-store.js';

/** The session's log after position `afterSeq` (0: all of it), oldest first. */
export async function readSessionEvents(
  store: Pick<SessionStore, 'sessionEvents'>,
  sessionId: string,
  afterSeq?: number,
): Promise<SessionEvent[]> {
  return (await store.sessionEvents(sessionId, afterSeq)).map((stored) => sessionEventOf(stored));
}

/** A stored session event as the SessionEvent it was written as, or the STORE error saying why it is not one. */
export function sessionEventOf(stored: StoredSessionEvent): SessionEvent {
  const problem = eventRecordProblem(stored.event, isSessionEventType);
  if (problem)
    throw new WeftError('STORE', `event ${stored.seq} of session ${stored.sessionId} ${problem.message}`, {
      location: { field: problem.field },
    });
  // The fields beyond type and at are the writer's (the conversation), which the type system held to SessionEvent.
  return stored.event as SessionEvent;
}
