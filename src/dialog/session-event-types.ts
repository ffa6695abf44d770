/**
 * Every type of event a session's log holds, at run time: what a typed read checks an event read back from the
 * store against. The check below the list fails to compile when SessionEvent gains a type this list lacks.
 */
import type { SessionEventType } from './session-events.js';

export const SESSION_EVENT_TYPES = [
  'session-start',
  'session-resume',
  'user-message',
  'user-message-refused',
  'guidance',
  'model-call',
  'decision',
  'verdict',
  'tool-call',
  'tool-result',
  'bot-reply',
  'turn-end',
  'session-end',
  'budget-stop',
] as const satisfies readonly SessionEventType[];

type Unlisted = Exclude<SessionEventType, (typeof SESSION_EVENT_TYPES)[number]>;
// A compile-time check: `true` only when no event type is missing from the list.
const everyTypeListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyTypeListed;

const KNOWN: ReadonlySet<string> = new Set(SESSION_EVENT_TYPES);

export function isSessionEventType(type: unknown): type is SessionEventType {
  return typeof type === 'string' && KNOWN.has(type);
}
