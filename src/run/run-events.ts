/**
 * A run's log, typed. The store keeps events as JSON it does not interpret (it sits below the engines); every event
 * in a run's log was written by the run's EventLog as a WeftEvent, so this is the one place that says so.
 */
import type { RunStore, StoredEvent } from '../store/run-store.js';
import type { WeftEvent } from './events.js';

export async function runEvents(store: Pick<RunStore, 'events'>, runId: string): Promise<WeftEvent[]> {
  return (await store.events(runId)).map((stored) => stored.event as WeftEvent);
}

/**
 * At most `limit` events of a run's log after position `afterSeq`, typed and with their positions: for readers that
 * page through long logs or follow a live one (the dashboard).
 */
export async function runEventPage(
  store: Pick<RunStore, 'events'>,
  runId: string,
  afterSeq: number,
  limit: number,
): Promise<StoredEvent<WeftEvent>[]> {
  return (await store.events(runId, afterSeq, limit)) as StoredEvent<WeftEvent>[];
}
