/**
 * `GET /api/runs/:id/events`: a run's events as server-sent events, live. The store is the only channel between
 * the process running the run and this server (it may be another process, or another machine on Postgres), so
 * the stream polls it for events after the last one sent, a page of them per store read, written in pieces of
 * about a megabyte at most.
 */
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { upgradeRunEvent } from '../run/upgrade-run-event.js';
import type { DashboardStore } from './dashboard-store.js';
import { formatSseEvents, resumeAfter, SSE_HEARTBEAT } from './sse-format.js';

export interface EventStreamOptions {
  readonly pollMs: number;
  readonly heartbeatMs: number;
  /** Events read from the store per poll, at most; a long log streams in several writes, not one huge read. */
  readonly batch?: number;
  /** Counts the open streams, so the route can refuse one past its cap (streamGate). */
  readonly gate?: StreamGate;
}

/**
 * A cap on live event streams: each polls the store every pollMs, so a thousand of them (a script, a runaway tab)
 * would keep the one thread and the store busy. A page opens one per run page; a few dozen is plenty.
 */
export interface StreamGate {
  tryEnter(): boolean;
  leave(): void;
  readonly open: number;
}

export const MAX_EVENT_STREAMS = 64;
/** One write's text, at most (one event larger than this goes out alone). */
export const MAX_WRITE_CHARS = 1_000_000;

export function streamGate(max: number = MAX_EVENT_STREAMS): StreamGate {
  let open = 0;
  return {
    tryEnter: () => {
      if (open >= max) return false;
      open += 1;
      return true;
    },
    leave: () => {
      open = Math.max(0, open - 1);
    },
    get open() {
      return open;
    },
  };
}

/**
 * A store read failing mid-stream (the run pruned: NOT_FOUND; the database gone) ends the stream without a stack
 * trace on stderr per open page: the browser reconnects, and that request's getRun answers 404 or a JSON 500.
 */
async function quietEnd(): Promise<void> {}

export function streamRunEvents(c: Context, store: DashboardStore, runId: string, options: EventStreamOptions) {
  let after = resumeAfter(c.req.header('Last-Event-ID'), c.req.query('after'));
  c.header('Content-Type', 'text/event-stream; charset=utf-8');
  c.header('Cache-Control', 'no-store');
  c.header('X-Accel-Buffering', 'no');
  return stream(
    c,
    async (out) => {
      let open = true;
      out.onAbort(() => {
        open = false;
      });
      try {
        await follow();
      } finally {
        options.gate?.leave();
      }

      async function follow() {
        // Tells EventSource how long to wait before reconnecting after a dropped connection.
        await out.write(`retry: 1000\n\n`);
        let lastWrite = Date.now();
        while (open) {
          // A page at a time: a 50,000-event log read at once blocked the server for seconds.
          const batch = options.batch ?? 2_000;
          for (let full = true; full && open; ) {
            const events = await store.events(runId, after, batch);
            full = events.length === batch;
            if (events.length === 0) break;
            // Writes are cut by size too: 2,000 events with large outputs would otherwise be one string of hundreds
            // of MB (past V8's string limit, the stream would fail on every reconnect at the same place).
            let text = '';
            for (const stored of events) {
              if (!open) return;
              // Under today's names, as the API's pages give them (an old log's `call` is a `model-call`).
              text += formatSseEvents([{ ...stored, event: upgradeRunEvent(stored.event) }]);
              if (text.length >= MAX_WRITE_CHARS) {
                await out.write(text);
                after = stored.seq;
                lastWrite = Date.now();
                text = '';
              }
            }
            if (text !== '' && open) {
              await out.write(text);
              after = events[events.length - 1]!.seq;
              lastWrite = Date.now();
            }
          }
          if (Date.now() - lastWrite >= options.heartbeatMs) {
            // A run deleted meanwhile (`weft prune`) ends its stream: the browser's reconnect then gets a 404 and
            // stops, instead of this loop polling an empty log forever.
            if (!(await store.getRun(runId))) return;
            await out.write(SSE_HEARTBEAT);
            lastWrite = Date.now();
          }
          if (open) await out.sleep(options.pollMs);
        }
      }
    },
    quietEnd,
  );
}
