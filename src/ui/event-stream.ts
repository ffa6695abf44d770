/**
 * `GET /api/runs/:id/events`: a run's events as server-sent events, live. The store is the only channel between
 * the process running the run and this server (it may be another process, or another machine on Postgres), so
 * the stream polls it for events after the last one sent, a page of them per store read and per write.
 */
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import type { DashboardStore } from './dashboard-store.js';
import { formatSseEvents, resumeAfter, SSE_HEARTBEAT } from './sse-format.js';

export interface EventStreamOptions {
  readonly pollMs: number;
  readonly heartbeatMs: number;
  /** Events read from the store per poll, at most; a long log streams in several writes, not one huge read. */
  readonly batch?: number;
}

export function streamRunEvents(c: Context, store: DashboardStore, runId: string, options: EventStreamOptions) {
  let after = resumeAfter(c.req.header('Last-Event-ID'), c.req.query('after'));
  c.header('Content-Type', 'text/event-stream; charset=utf-8');
  c.header('Cache-Control', 'no-store');
  c.header('X-Accel-Buffering', 'no');
  return stream(c, async (out) => {
    let open = true;
    out.onAbort(() => {
      open = false;
    });
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
        await out.write(formatSseEvents(events));
        after = events[events.length - 1]!.seq;
        lastWrite = Date.now();
      }
      if (Date.now() - lastWrite >= options.heartbeatMs) {
        await out.write(SSE_HEARTBEAT);
        lastWrite = Date.now();
      }
      if (open) await out.sleep(options.pollMs);
    }
  });
}
