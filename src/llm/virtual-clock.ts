/**
 * Simulated time for the sim model's latency (`sim:…,clock=virtual`). Waits are released one at a time, earliest
 * virtual deadline first (ties in the order they were asked for), and only once the process has gone quiet: the
 * work a released call sets off (events, store writes, the next calls) registers its own waits first. So the order
 * in which simulated calls finish is a function of the seed alone, not of machine load, and a run takes no real
 * time waiting. With real timers, two calls due within a millisecond of each other could finish in either order
 * on a loaded machine, and a run's repair rounds (which batch the failures known when they start) took other paths.
 */
import { abortErrorOf } from './timeout.js';

interface Waiter {
  readonly due: number;
  readonly order: number;
  readonly resolve: () => void;
  readonly cleanup: () => void;
}

/** setImmediate turns with no new wait that count as quiet: an event flush and a store write take one each. */
const QUIET_TURNS = 4;

export class VirtualClock {
  private now = 0;
  private order = 0;
  private readonly waiters: Waiter[] = [];
  private draining = false;
  private registrations = 0;

  /** Virtual milliseconds since the clock was made. */
  get elapsedMs(): number {
    return this.now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortErrorOf(signal));
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(abortErrorOf(signal!));
      };
      const waiter: Waiter = {
        due: this.now + Math.max(0, ms),
        order: this.order++,
        resolve,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.registrations += 1;
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.waiters.length > 0) {
        await this.quiet();
        if (this.waiters.length === 0) break;
        let next = 0;
        for (let index = 1; index < this.waiters.length; index++) {
          const candidate = this.waiters[index]!;
          const best = this.waiters[next]!;
          if (candidate.due < best.due || (candidate.due === best.due && candidate.order < best.order)) next = index;
        }
        const [waiter] = this.waiters.splice(next, 1);
        this.now = Math.max(this.now, waiter!.due);
        waiter!.cleanup();
        waiter!.resolve();
      }
    } finally {
      this.draining = false;
    }
  }

  /** Resolves after QUIET_TURNS macrotask turns in a row in which no new wait was registered. */
  private async quiet(): Promise<void> {
    let calm = 0;
    while (calm < QUIET_TURNS) {
      const before = this.registrations;
      await new Promise<void>((resolve) => setImmediate(resolve));
      calm = this.registrations === before ? calm + 1 : 0;
    }
  }
}
