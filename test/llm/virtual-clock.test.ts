/** The sim model's virtual clock: the order waits end in depends on their virtual deadlines only. */
import { describe, expect, it } from 'vitest';
import { isAbortError } from '../../src/errors.js';
import { simModel } from '../../src/llm/sim-model.js';
import { VirtualClock } from '../../src/llm/virtual-clock.js';

/** Blocks the event loop, as a loaded machine would between two timers. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe('VirtualClock', () => {
  it('ends waits earliest deadline first, ties in the order asked, and advances virtual time only', async () => {
    const clock = new VirtualClock();
    const ended: string[] = [];
    await Promise.all([
      clock.sleep(30).then(() => ended.push('30')),
      clock.sleep(10).then(() => ended.push('10')),
      clock.sleep(10).then(() => ended.push('10 again')),
      clock.sleep(0).then(() => ended.push('0')),
    ]);
    expect(ended).toEqual(['0', '10', '10 again', '30']);
    expect(clock.elapsedMs).toBe(30);
  });

  it('orders waits set off by earlier ones by virtual time, however long the real work between them takes', async () => {
    const clock = new VirtualClock();
    const ended: string[] = [];
    const a = (async () => {
      await clock.sleep(10);
      ended.push('a1');
      // With real timers, 60 ms of blocking here would let b (due at 15) end before a2 was even asked for.
      busy(60);
      await clock.sleep(3);
      ended.push('a2');
    })();
    const b = clock.sleep(15).then(() => ended.push('b'));
    await Promise.all([a, b]);
    expect(ended).toEqual(['a1', 'a2', 'b']);
  });

  it('rejects an aborted wait with ABORTED and lets the others go on', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    const aborted = clock.sleep(5, controller.signal).catch((error: unknown) => error);
    const other = clock.sleep(10);
    controller.abort();
    expect(isAbortError(await aborted)).toBe(true);
    await other;
    expect(clock.elapsedMs).toBe(10);
  });
});

describe('sim:…,clock=virtual', () => {
  it('gives the same replies in the same order on every run, and names the clock in its id', async () => {
    const order = async () => {
      const model = simModel('latency=lognormal(3,1),clock=virtual,seed=4');
      const finished: number[] = [];
      await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          model
            .generate({
              messages: [{ role: 'user', content: `q${index}` }],
              tag: { purpose: 'other', key: `k${index}` },
            })
            .then(() => {
              if (index % 3 === 0) busy(5);
              finished.push(index);
            }),
        ),
      );
      return { finished, id: model.id };
    };
    const first = await order();
    expect(first.id).toContain('clock=virtual');
    expect((await order()).finished).toEqual(first.finished);
    // Lognormal latencies are spread: the order is not simply the order asked.
    expect(first.finished).not.toEqual([...first.finished].sort((x, y) => x - y));
  });
});
