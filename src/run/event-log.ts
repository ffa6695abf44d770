/**
 * Stamps, keeps and persists a run's events. Events are appended to the store in batches, one transaction per
 * batch, flushed on the next macrotask so a burst of events (10,000-node runs) costs few transactions.
 */
import type { RunStore } from '../store/run-store.js';
import type { WeftEvent } from './events.js';

type Unstamped = WeftEvent extends infer E ? (E extends WeftEvent ? Omit<E, 'at'> : never) : never;

export class EventLog {
  readonly events: WeftEvent[] = [];
  private batch: WeftEvent[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private scheduled = false;
  private failure: unknown;
  private listenerFailed = false;
  private unsynced = 0;

  /** `previous`: events already in the store (a resumed run), kept for the summary but not written again. */
  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
    private readonly now: () => number,
    private readonly listener?: (event: WeftEvent) => void,
    previous: readonly WeftEvent[] = [],
  ) {
    // A loop, not push(...previous): a long run's log is larger than the argument limit.
    for (const event of previous) this.events.push(event);
  }

  readonly emit = (event: Unstamped): void => {
    const stamped: WeftEvent = { ...event, at: this.now() };
    this.events.push(stamped);
    this.batch.push(stamped);
    try {
      this.listener?.(stamped);
    } catch (error) {
      // A progress view's bug must not decide the run; say so once and keep going.
      if (!this.listenerFailed) {
        this.listenerFailed = true;
        process.emitWarning(
          `weft: an event listener threw and will keep receiving events: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  };

  private flush(): void {
    this.scheduled = false;
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.unsynced += 1;
    this.flushing = this.flushing
      .then(() => this.store.appendEvents(this.runId, batch))
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.unsynced -= 1;
      });
  }

  /** True while some emitted event is not yet in the store. */
  pending(): boolean {
    return this.batch.length > 0 || this.unsynced > 0;
  }

  /** Writes everything emitted so far; rethrows a store failure. */
  async sync(): Promise<void> {
    this.flush();
    await this.flushing;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Writes what is pending; rethrows the first store failure so no loss goes unnoticed. */
  close(): Promise<void> {
    return this.sync();
  }
}
