/**
 * The sessions API (procedures): `GET /api/sessions` (newest first) and `GET /api/sessions/:id` (the
 * record, its totals and the transcript — user and bot turns, tool calls with their arguments and results, the
 * controllers' verdicts and guidance — paged by `?offset=&limit=` over the entries). Read-only over the store.
 */
import type { Hono } from 'hono';
import { readSessionEvents } from '../dialog/read-session-events.js';
import { transcriptOf, type TranscriptEntry } from '../dialog/transcript.js';
import { type LivenessProbe, ownerState } from '../store/run-owner.js';
import { isSessionId, type SessionRecord } from '../store/sessions.js';
import { clippedJson, clipText, notFoundReply, queryInteger } from './api-replies.js';
import type { DashboardStore } from './dashboard-store.js';

export interface SessionRoutesOptions {
  readonly store: DashboardStore;
  readonly probe?: LivenessProbe;
}

/** Characters of one message, thought or guidance shown; tool arguments and results are cut apart (clippedJson). */
const TEXT_CHARS = 50_000;
export const TRANSCRIPT_PAGE = 500;

/** As `weft sessions` shows it: an open session whose chat process is alive on this host is `active`. */
export function shownSessionStatus(session: SessionRecord, probe?: LivenessProbe): 'open' | 'active' | 'ended' {
  if (session.status === 'ended') return 'ended';
  return ownerState(session.owner, probe) === 'alive' ? 'active' : 'open';
}

export function registerSessionRoutes(app: Hono, options: SessionRoutesOptions): void {
  const { store } = options;

  app.get('/api/sessions', async (c) => {
    const limit = queryInteger(c.req.query('limit'), 200, 1, 1_000);
    const offset = queryInteger(c.req.query('offset'), 0, 0, Number.MAX_SAFE_INTEGER);
    const all = ((await store.listSessions?.()) ?? []).reverse();
    return c.json({
      total: all.length,
      offset,
      sessions: all.slice(offset, offset + limit).map((session) => ({
        sessionId: session.sessionId,
        procedure: session.procedure,
        status: shownSessionStatus(session, options.probe),
        turns: session.turns,
        model: session.model,
        createdAt: session.createdAt,
        updatedAt: session.updatedAt,
      })),
    });
  });

  app.get('/api/sessions/:id', async (c) => {
    const sessionId = c.req.param('id');
    // An id no store could hold names no session: answered without a query.
    const session = isSessionId(sessionId) ? await store.getSession?.(sessionId) : undefined;
    if (!session || !store.sessionEvents)
      return notFoundReply(c, `No session ${JSON.stringify(sessionId.slice(0, 200))}`);
    const events = await readSessionEvents({ sessionEvents: store.sessionEvents.bind(store) }, sessionId);
    const start = events.find((event) => event.type === 'session-start');
    const { entries, totals } = transcriptOf(events);
    const limit = queryInteger(c.req.query('limit'), TRANSCRIPT_PAGE, 1, 2_000);
    const offset = queryInteger(c.req.query('offset'), 0, 0, Number.MAX_SAFE_INTEGER);
    return c.json({
      session: {
        sessionId: session.sessionId,
        procedure: session.procedure,
        pdlPath: session.pdlPath,
        model: session.model,
        status: shownSessionStatus(session, options.probe),
        turns: session.turns,
        createdAt: session.createdAt,
        updatedAt: session.updatedAt,
      },
      controllers: start?.type === 'session-start' ? start.controllers : [],
      ...(start?.type === 'session-start' && start.simulatedApis?.length
        ? { simulatedApis: start.simulatedApis, apiModel: start.apiModel ?? session.model }
        : {}),
      totals,
      entriesTotal: entries.length,
      offset,
      entries: entries.slice(offset, offset + limit).map(shownEntry),
    });
  });
}

/** An entry as the page draws it: long text cut, tool arguments and results as JSON text. */
function shownEntry(entry: TranscriptEntry) {
  switch (entry.role) {
    case 'tool':
      return {
        turn: entry.turn,
        role: entry.role,
        name: entry.name,
        args: clippedJson(entry.args),
        preconditionsMet: entry.preconditionsMet,
        ...(entry.simulated ? { simulated: true } : {}),
        ...(entry.ok === undefined ? {} : { ok: entry.ok }),
        ...(entry.result === undefined ? {} : { result: clippedJson(entry.result) }),
        ...(entry.error === undefined ? {} : { error: clipText(entry.error, TEXT_CHARS) }),
      };
    case 'user':
    case 'bot':
    case 'thought':
      return { ...entry, text: clipText(entry.text, TEXT_CHARS) };
    case 'guidance':
      return { ...entry, text: clipText(entry.text, TEXT_CHARS) };
    case 'verdict':
      return entry.reason === undefined ? entry : { ...entry, reason: clipText(entry.reason, TEXT_CHARS) };
    default:
      return entry;
  }
}
