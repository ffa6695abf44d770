/**
 * Where conversations with procedures are kept. The dialog engine owns this contract apart from the core
 * RunStore, as the team engine owns TeamScoreStore: the SQLite and the Postgres store implement both
 * (store/sessions.ts has the shared types). test/store/describe-run-store.ts checks the behaviour for both:
 * - Event values must be plain JSON (as for runs); a bad value is a WeftError('STORE') naming the field, and
 *   nothing of that call is written. Creating a session id twice is a WeftError('STORE').
 * - Naming a session that does not exist is a WeftError('NOT_FOUND') everywhere except `getSession`.
 * - Appends are atomic per batch and seq numbers continue the session's log, also across processes.
 * - `takeOverSession` is a compare-and-set on the owner: of several processes taking over one session at once,
 *   exactly one gets true (two `weft chat --session ID` at once: the second is refused).
 */
import { WeftError } from '../errors.js';
import type { EventRecord, RunOwner } from '../store/run-store.js';
import type { NewSession, SessionRecord, SessionStatus, StoredSessionEvent } from '../store/sessions.js';

export interface SessionStore {
  createSession(session: NewSession): Promise<void>;
  appendSessionEvents(sessionId: string, events: readonly EventRecord[]): Promise<void>;
  /** Events with seq > afterSeq (default 0), in order. */
  sessionEvents(sessionId: string, afterSeq?: number): Promise<StoredSessionEvent[]>;
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** Oldest first. */
  listSessions(): Promise<SessionRecord[]>;
  /** Records the status and the number of user turns so far; `updatedAt` moves. */
  setSessionProgress(
    sessionId: string,
    progress: { readonly status: SessionStatus; readonly turns: number },
  ): Promise<void>;
  /** Records `owner` only if the session's owner is still `previous` (undefined: none), atomically. */
  takeOverSession(sessionId: string, owner: RunOwner, previous: RunOwner | undefined): Promise<boolean>;
  /** Forgets the owner if it is still `owner` (a chat that ends or is paused lets go of its session). */
  releaseSession(sessionId: string, owner: RunOwner): Promise<void>;
}

export function isSessionStore(store: unknown): store is SessionStore {
  if (typeof store !== 'object' || store === null) return false;
  const candidate = store as Partial<Record<keyof SessionStore, unknown>>;
  return (
    typeof candidate.createSession === 'function' &&
    typeof candidate.appendSessionEvents === 'function' &&
    typeof candidate.sessionEvents === 'function' &&
    typeof candidate.takeOverSession === 'function'
  );
}

/** The store as a SessionStore, for commands that keep sessions (`weft chat`, `weft sessions`); a STORE error otherwise. */
export function sessionStoreOf<S>(store: S): S & SessionStore {
  if (!isSessionStore(store))
    throw new WeftError('STORE', 'This run store keeps no sessions (it does not implement SessionStore)');
  return store;
}
