/** A whole run log read in pages, yielding to other work between them (the dashboard's run, node and team pages). */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/store/run-store.js';
import { runEventPage } from '../../src/run/run-events.js';
import { readRunEvents } from '../../src/ui/read-run-events.js';

function fakeStore(total: number) {
  const reads: { after: number; limit: number | undefined }[] = [];
  const log: StoredEvent[] = Array.from({ length: total }, (_, index) => ({
    runId: 'r',
    seq: index + 1,
    event: { type: 'model-call', at: index },
  }));
  return {
    reads,
    events: async (_runId: string, after = 0, limit?: number) => {
      reads.push({ after, limit });
      const rest = log.filter((event) => event.seq > after);
      return limit === undefined ? rest : rest.slice(0, limit);
    },
  };
}

describe('readRunEvents', () => {
  it('reads every event once, in order, a page at a time, from where it is told', async () => {
    const store = fakeStore(12_345);
    const events = await readRunEvents(store, 'r', 0, 5_000);
    expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 12_345 }, (_, index) => index + 1));
    expect(store.reads).toEqual([
      { after: 0, limit: 5_000 },
      { after: 5_000, limit: 5_000 },
      { after: 10_000, limit: 5_000 },
    ]);
    expect((await readRunEvents(fakeStore(10), 'r', 7, 5_000)).map((event) => event.seq)).toEqual([8, 9, 10]);
  });

  it('asks once more after an exactly full page, and lets queued work run between pages', async () => {
    const store = fakeStore(10_000);
    const order: string[] = [];
    const reading = readRunEvents(
      {
        events: async (runId, after, limit) => {
          order.push(`read after ${after}`);
          return store.events(runId, after, limit);
        },
      },
      'r',
      0,
      5_000,
    );
    setImmediate(() => order.push('other work'));
    expect(await reading).toHaveLength(10_000);
    expect(order).toEqual(['read after 0', 'other work', 'read after 5000', 'read after 10000']);
  });
});

describe('runEventPage', () => {
  it('returns one page after the given position, with positions, as the store holds it', async () => {
    const store = fakeStore(10);
    const page = await runEventPage(store, 'r', 3, 4);
    expect(page.map((stored) => [stored.seq, stored.event.type, stored.event.at])).toEqual([
      [4, 'model-call', 3],
      [5, 'model-call', 4],
      [6, 'model-call', 5],
      [7, 'model-call', 6],
    ]);
    expect(store.reads).toEqual([{ after: 3, limit: 4 }]);
  });
});
