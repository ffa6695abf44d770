/**
 * Conversations with procedures as the stores keep them: a session row and its append-only event log,
 * beside runs and apart from them (`weft runs` and `weft prune` do not see sessions). The dialog engine owns the
 * contract (dialog/session-store.ts) and the event vocabulary (dialog/session-events.ts); this file has the types
 * and the checks both stores share. Events are plain JSON, checked like run events (json-blobs.ts), and kept whole:
 * no blobs, since the blobs table is the runs' (its statistics and its collection by `weft prune`).
 */
import { WeftError } from '../errors.js';
import { deflate, parseJson } from './json-blobs.js';
import type { EventRecord, RunOwner } from './run-store.js';
import { checkOwner } from './store-validation.js';

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

/**
 * What a session id may be: letters, digits and `.`, `_`, `:`, `-`, starting with a letter or digit, up to 128
 * characters. Ids are printed in terminals and typed after `--session`, so nothing that needs quoting or could be a
 * terminal control sequence; a web service's own ids (UUIDs, `user:42`) fit.
 */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** A session id as messages show it: as is when it is a valid id, otherwise quoted and cut to 40 characters. */
export function displaySessionId(sessionId: unknown): string {
  if (typeof sessionId === 'string' && SESSION_ID_PATTERN.test(sessionId)) return sessionId;
  if (typeof sessionId !== 'string') return `(a ${typeof sessionId})`;
  return sessionId.length > 40
    ? `${JSON.stringify(sessionId.slice(0, 40))}… (${sessionId.length} characters)`
    : JSON.stringify(sessionId);
}

/** Whether a session of this id could be stored; any other id names no session (NOT_FOUND, never a query). */
export function isSessionId(sessionId: unknown): sessionId is string {
  return typeof sessionId === 'string' && SESSION_ID_PATTERN.test(sessionId);
}

/** A session as it is written: the fields checked, the options as JSON text. */
export interface PreparedSession {
  readonly sessionId: string;
  readonly procedure: string;
  readonly pdlPath: string;
  readonly model: string;
  readonly options: string;
  readonly owner: RunOwner | undefined;
}

/** Throws WeftError('STORE') unless `sessionId` is a session id a store may create (SESSION_ID_PATTERN). */
export function checkSessionId(sessionId: unknown): string {
  if (!isSessionId(sessionId)) {
    throw new WeftError(
      'STORE',
      `Cannot store a session with id ${displaySessionId(sessionId)}: ids are 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit`,
    );
  }
  return sessionId;
}

/**
 * Checks a new session before anything is written (id, strings, plain-JSON options, owner) and serialises its
 * options. `maxInteger` is the largest pid the store's column holds (store-validation.ts).
 */
export function prepareSession(session: NewSession, maxInteger: number): PreparedSession {
  if (typeof session !== 'object' || session === null)
    throw new WeftError('STORE', 'Cannot store a session: expected { sessionId, procedure, pdlPath, model, options }');
  const sessionId = checkSessionId(session.sessionId);
  for (const field of ['procedure', 'pdlPath', 'model'] as const) {
    if (typeof session[field] !== 'string')
      throw new WeftError('STORE', `Cannot store session ${sessionId}: ${field} must be a string`);
  }
  if (typeof session.options !== 'object' || session.options === null || Array.isArray(session.options)) {
    throw new WeftError('STORE', `Cannot store session ${sessionId}: options must be an object`);
  }
  // Options stay inline (no blobs): they are small, and a session row must read back on its own.
  const options = deflate(session.options, `the options of session ${sessionId}`, Number.POSITIVE_INFINITY).json;
  const owner = session.owner === undefined ? undefined : checkOwner(session.owner, `session ${sessionId}`, maxInteger);
  return {
    sessionId,
    procedure: session.procedure,
    pdlPath: session.pdlPath,
    model: session.model,
    options,
    owner,
  };
}

/** Checks what `setSessionProgress` records: a known status and a whole number of turns up to `maxInteger`. */
export function checkSessionProgress(
  sessionId: string,
  progress: { readonly status: SessionStatus; readonly turns: number },
  maxInteger: number,
): { status: SessionStatus; turns: number } {
  const { status, turns } = (progress ?? {}) as Partial<typeof progress>;
  const limit = Math.min(maxInteger, Number.MAX_SAFE_INTEGER);
  if (!SESSION_STATUSES.includes(status as SessionStatus)) {
    throw new WeftError(
      'STORE',
      `Cannot record the progress of session ${sessionId}: unknown status ${JSON.stringify(status)}; expected one of ${SESSION_STATUSES.join(', ')}`,
    );
  }
  if (typeof turns !== 'number' || !Number.isSafeInteger(turns) || turns < 0 || turns > limit) {
    throw new WeftError(
      'STORE',
      `Cannot record the progress of session ${sessionId}: turns must be an integer from 0 to ${limit}, got ${String(turns)}`,
    );
  }
  return { status: status as SessionStatus, turns };
}

/** The session row both stores keep (the same columns in SQLite and Postgres). */
export interface SessionRow {
  session_id: string;
  procedure: string;
  pdl_path: string;
  model: string;
  options: string;
  status: string;
  turns: number;
  created_at: string;
  updated_at: string;
  owner_pid: number | null;
  owner_host: string | null;
}

export function sessionRecordFromRow(row: SessionRow): SessionRecord {
  const options = parseJson(row.options, `the options of session ${row.session_id}`);
  if (!SESSION_STATUSES.includes(row.status as SessionStatus)) {
    throw new WeftError(
      'STORE',
      `The run store holds an unknown status ${JSON.stringify(row.status)} for session ${row.session_id}`,
    );
  }
  return {
    sessionId: row.session_id,
    procedure: row.procedure,
    pdlPath: row.pdl_path,
    model: row.model,
    options: options as Record<string, unknown>,
    status: row.status as SessionStatus,
    turns: Number(row.turns),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.owner_pid !== null && row.owner_host !== null
      ? { owner: { pid: row.owner_pid, host: row.owner_host } }
      : {}),
  };
}
