/**
 * Server-sent events as text. `id:` is the store's event sequence, so a browser that reconnects sends it back as
 * Last-Event-ID and the stream resumes after it, with nothing lost and nothing twice. The data is one line of
 * JSON (JSON.stringify never emits a raw newline), which SSE requires of a `data:` field.
 */
import type { StoredEvent } from '../store/run-store.js';

export function formatSseEvents(events: readonly StoredEvent[]): string {
  let text = '';
  for (const { seq, event } of events) text += `id: ${seq}\nevent: weft\ndata: ${JSON.stringify(event)}\n\n`;
  return text;
}

/** A comment line: keeps proxies and the browser from timing an idle stream out, and shows the server is alive. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';

/**
 * Where to resume: Last-Event-ID (a reconnect) wins over `?after=` (a page that already read events over the
 * API). Anything that is not a non-negative integer starts from the beginning, which is safe: the client folds
 * events by sequence and drops the ones it has.
 */
export function resumeAfter(lastEventId: string | undefined, after: string | undefined): number {
  for (const value of [lastEventId, after]) {
    if (value === undefined || !/^\d{1,15}$/.test(value.trim())) continue;
    return Number(value.trim());
  }
  return 0;
}
