/**
 * A run's whole log for a page that folds all of it (the run's summary, a node panel, its teams), read a page at a
 * time: one read of a 50,000-event SQLite log held the server's event loop for seconds, and every live stream with
 * it. Between pages the loop serves other requests. Each page is the typed, checked read of run/run-events.ts.
 */
import type { WeftEvent } from '../run/events.js';
import { runEventPage } from '../run/run-events.js';
import type { StoredEvent } from '../store/run-store.js';
import type { DashboardStore } from './dashboard-store.js';

export const RUN_EVENTS_PAGE = 5_000;

export async function readRunEvents(
  store: Pick<DashboardStore, 'events'>,
  runId: string,
  afterSeq = 0,
  page = RUN_EVENTS_PAGE,
): Promise<StoredEvent<WeftEvent>[]> {
  const all: StoredEvent<WeftEvent>[] = [];
  for (let after = afterSeq; ; ) {
    const events = await runEventPage(store, runId, after, page);
    for (const event of events) all.push(event);
    if (events.length < page) return all;
    after = events[events.length - 1]!.seq;
    // Let requests queued behind this read run before the next page.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
