/**
 * A run's log, typed. The store keeps events as JSON it does not interpret (it sits below the engines); every event
 * in a run's log was written by the run's EventLog as a WeftEvent, so this is the one place that says so.
 */
import type { RunStore } from '../store/run-store.js';
import type { WeftEvent } from './events.js';

export async function runEvents(store: Pick<RunStore, 'events'>, runId: string): Promise<WeftEvent[]> {
  return (await store.events(runId)).map((stored) => stored.event as WeftEvent);
}
