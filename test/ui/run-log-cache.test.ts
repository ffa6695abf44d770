/** The dashboard's run logs, kept and extended: a request reads only the events after the ones kept. */
import { describe, expect, it } from 'vitest';
import type { EventRecord, StoredEvent } from '../../src/store/run-store.js';
import { RunLogCache } from '../../src/ui/run-log-cache.js';

/** A model call as the run log records it (the old name `call`, read as `model-call`). */
function callEvent(at: number): EventRecord {
  const event = {
    type: 'call',
    at,
    purpose: 'execute',
    model: 'm',
    inputTokens: 1,
    outputTokens: 2,
    costUsd: 0,
    durationMs: 1,
  };
  return event;
}

function growingStore() {
  const logs = new Map<string, StoredEvent[]>();
  const reads: { runId: string; after: number }[] = [];
  const append = (runId: string, count: number) => {
    const log = logs.get(runId) ?? [];
    for (let index = 0; index < count; index++)
      log.push({
        runId,
        seq: log.length + 1,
        event: callEvent(log.length),
      });
    logs.set(runId, log);
  };
  return {
    reads,
    append,
    events: async (runId: string, after = 0, limit?: number) => {
      reads.push({ runId, after });
      const rest = (logs.get(runId) ?? []).filter((event) => event.seq > after);
      return limit === undefined ? rest : rest.slice(0, limit);
    },
  };
}

describe('RunLogCache', () => {
  it('reads a run once, then only what was added, and folds the summary again only when the log grew', async () => {
    const store = growingStore();
    store.append('a', 3);
    const cache = new RunLogCache(store);
    expect((await cache.summary('a')).calls).toBe(3);
    const first = await cache.summary('a');
    expect(await cache.summary('a')).toBe(first);
    expect(store.reads.map((read) => read.after)).toEqual([0, 3, 3]);
    store.append('a', 2);
    expect((await cache.summary('a')).calls).toBe(5);
    expect((await cache.events('a')).length).toBe(5);
    expect(store.reads.at(-2)).toEqual({ runId: 'a', after: 3 });
  });

  it('shares one read between requests at once, so the log is extended once', async () => {
    const store = growingStore();
    store.append('a', 4);
    const cache = new RunLogCache(store);
    const [one, two] = await Promise.all([cache.events('a'), cache.events('a')]);
    expect(one).toBe(two);
    expect(one.length).toBe(4);
    expect(store.reads).toHaveLength(1);
  });

  it('drops the runs asked about least lately once it keeps too many events, never the one asked for', async () => {
    const store = growingStore();
    store.append('a', 6);
    store.append('b', 6);
    store.append('c', 20);
    const cache = new RunLogCache(store, 10);
    await cache.events('a');
    await cache.events('b');
    // Over the bound: a goes, b (the one just asked for) stays.
    expect(store.reads.filter((read) => read.runId === 'a')).toHaveLength(1);
    await cache.events('a');
    expect(store.reads.filter((read) => read.runId === 'a').at(-1)).toEqual({ runId: 'a', after: 0 });
    // Larger than the bound by itself: kept for its own request.
    expect((await cache.events('c')).length).toBe(20);
    await cache.events('c');
    expect(store.reads.filter((read) => read.runId === 'c').map((read) => read.after)).toEqual([0, 20]);
  });
});
