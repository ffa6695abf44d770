/** The error bodies and query parsing shared by the dashboard's routes (runs, sessions, traces, batches, reports). */

type JsonReply = { json: (body: unknown, status: 400 | 404) => Response };

export function notFoundReply(c: JsonReply, message: string): Response {
  return c.json({ error: { code: 'NOT_FOUND', message } }, 404);
}

/** A run id the store does not know. */
export function noRunReply(c: JsonReply, runId: string): Response {
  return notFoundReply(c, `No run ${JSON.stringify(runId)}`);
}

export function badInputReply(c: JsonReply, message: string): Response {
  return c.json({ error: { code: 'BAD_INPUT', message } }, 400);
}

/** A whole number from the query, clamped to [min, max]; anything else is the fallback (a page, never an error). */
export function queryInteger(value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !/^\d{1,15}$/.test(value)) return fallback;
  return Math.min(max, Math.max(min, Number(value)));
}

/**
 * A value as indented JSON text for the page, cut at `limit` characters: a tool result can be megabytes, and the page
 * shows it as text anyway. Values that are not JSON (cycles cannot come from a store, but undefined can) read `null`.
 */
export function clippedJson(value: unknown, limit = 20_000): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? 'null';
  } catch {
    text = String(value);
  }
  return clipText(text, limit);
}

export function clipText(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}
