/**
 * A run's log, typed. The store keeps events as JSON it does not interpret (it sits below the engines, so its
 * `events()` answers plain records); every event in a run's log was written by the run's EventLog as a WeftEvent.
 * These reads are where that is checked, for each event read back: an object with a known `type` and a numeric
 * `at`. A log that fails it (edited by hand, written by a newer Weft) is a STORE error naming the run and position.
 */
import { WeftError } from '../errors.js';
import { eventRecordProblem } from '../store/event-record-problem.js';
import type { RunStore, StoredEvent } from '../store/run-store.js';
import type { WeftEvent } from './events.js';
import { upgradeRunEvent } from './upgrade-run-event.js';
import { isWeftEventType } from './weft-event-types.js';

/** The whole log of a run, oldest first. */
export async function runEvents(store: Pick<RunStore, 'events'>, runId: string): Promise<WeftEvent[]> {
  return (await store.events(runId)).map((stored) => weftEventOf(stored));
}

/** One page of a run's log: at most `limit` events after position `afterSeq` (0: from the start), with positions. */
export async function runEventPage(
  store: Pick<RunStore, 'events'>,
  runId: string,
  afterSeq = 0,
  limit?: number,
): Promise<StoredEvent<WeftEvent>[]> {
  const page = await store.events(runId, afterSeq, limit);
  return page.map((stored) => ({ runId: stored.runId, seq: stored.seq, event: weftEventOf(stored) }));
}

/**
 * A stored event as the WeftEvent it was written as (under today's name when an earlier version wrote it), or the
 * STORE error saying why it is not one.
 */
export function weftEventOf(stored: StoredEvent): WeftEvent {
  const event = upgradeRunEvent(stored.event);
  const problem = eventRecordProblem(event, isWeftEventType);
  if (problem)
    throw new WeftError('STORE', `event ${stored.seq} of run ${stored.runId} ${problem.message}`, {
      location: { field: problem.field },
    });
  // The fields beyond type and at are the writer's (EventLog), which the type system held to WeftEvent.
  return event as WeftEvent;
}
