/**
 * Conversations with procedures (issue 13) as the stores keep them: a session row and its append-only event log,
 * beside runs and apart from them (`weft runs` and `weft prune` do not see sessions). The dialog engine owns the
 * contract (dialog/session-store.ts) and the event vocabulary (dialog/session-events.ts); this file has the types
 * and the checks both stores share. Events are plain JSON, checked like run events (json-blobs.ts).
 */
import type { EventRecord, RunOwner } from './run-store.js';

/** `open`: it can go on (`weft chat --session ID`); `ended`: the user left or the bot closed it. */
export type SessionStatus = 'open' | 'ended';

export const SESSION_STATUSES: readonly SessionStatus[] = ['open', 'ended'];

export interface NewSession {
  /** Same alphabet as run ids (run-id.ts): `s-` followed by the time and randomness. */
  readonly sessionId: string;
  /** The procedure's `Name`. */
  readonly procedure: string;
  /** The PDL file as given (absolute), or `` for a PDL given as text. */
  readonly pdlPath: string;
  /** The model spec of the bot. */
  readonly model: string;
  /** What it was started with (controllers, limits, tools file, …), plain JSON. */
  readonly options: Record<string, unknown>;
  readonly owner?: RunOwner;
}

export interface SessionRecord extends NewSession {
  readonly status: SessionStatus;
  /** User turns so far (kept by `setSessionProgress`). */
  readonly turns: number;
  /** ISO-8601. */
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface StoredSessionEvent<E extends EventRecord = EventRecord> {
  readonly sessionId: string;
  /** 1-based position in the session's log. */
  readonly seq: number;
  readonly event: E;
}
