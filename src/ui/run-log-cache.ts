/**
 * The logs of the runs the dashboard was asked about lately, kept and extended instead of read whole on every
 * request: a run's log only grows, so a request reads the events after the last one kept (a finished run's: none)
 * and the summary is folded again only when the log grew. A 100,000-event run used to cost about 0.6 s a request
 * (the run API, every node panel, the teams page); now the first request pays that and the next ones do not.
 *
 * Bounded by events kept, not by runs: the least recently asked-about runs are dropped first.
 */
import type { WeftEvent } from '../run/events.js';
import { summarizeRun } from '../run/run-summary.js';
import type { DashboardStore } from './dashboard-store.js';
import { readRunEvents } from './read-run-events.js';

/** Events kept over all cached runs: at about 1 KB an event, some hundreds of MB at most. */
const RUN_LOG_CACHE_EVENTS = 300_000;

interface Entry {
  lastSeq: number;
  readonly events: WeftEvent[];
  summary?: { readonly atSeq: number; readonly value: ReturnType<typeof summarizeRun> };
  /** The read in progress: two requests at once share it, and the log is extended once. */
  reading?: Promise<void>;
}

export class RunLogCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly store: Pick<DashboardStore, 'events'>,
    private readonly maxEvents = RUN_LOG_CACHE_EVENTS,
  ) {}

  /** The run's events so far, oldest first (the array is the cache's: read it, do not change it). */
  async events(runId: string): Promise<readonly WeftEvent[]> {
    return (await this.current(runId)).events;
  }

  /** summarizeRun of the run's log so far, folded again only when the log grew. */
  async summary(runId: string): Promise<ReturnType<typeof summarizeRun>> {
    const entry = await this.current(runId);
    if (entry.summary?.atSeq !== entry.lastSeq)
      entry.summary = { atSeq: entry.lastSeq, value: summarizeRun(runId, entry.events) };
    return entry.summary.value;
  }

  private async current(runId: string): Promise<Entry> {
    let entry = this.entries.get(runId);
    if (entry) this.entries.delete(runId);
    entry ??= { lastSeq: 0, events: [] };
    // Most recently used last: the first entries are the ones dropped.
    this.entries.set(runId, entry);
    const kept = entry;
    kept.reading ??= (async () => {
      try {
        const added = await readRunEvents(this.store, runId, kept.lastSeq);
        for (const stored of added) kept.events.push(stored.event);
        if (added.length > 0) kept.lastSeq = added[added.length - 1]!.seq;
      } finally {
        kept.reading = undefined;
      }
    })();
    await kept.reading;
    this.evict(runId);
    return kept;
  }

  private evict(keep: string): void {
    let total = 0;
    for (const entry of this.entries.values()) total += entry.events.length;
    for (const [runId, entry] of this.entries) {
      if (total <= this.maxEvents) return;
      // The run just asked about stays, however large: its request needs it.
      if (runId === keep) continue;
      this.entries.delete(runId);
      total -= entry.events.length;
    }
  }

  /** Forgets a run (pruned). */
  forget(runId: string): void {
    this.entries.delete(runId);
  }
}
