/**
 * Every type of event a run's log holds, at run time: what a typed read checks an event read back from the store
 * against. The check below the list fails to compile when WeftEvent gains a type this list lacks.
 */
import type { WeftEventType } from './events.js';

export const WEFT_EVENT_TYPES = [
  'run-start',
  'plan-candidates',
  'plan-chosen',
  'task-start',
  'task-end',
  'task-verify',
  'plan-update',
  'task-check',
  'artifact',
  'artifact-refused',
  'tool-call',
  'tool-result',
  'run-resume',
  'team',
  'model-call',
  'budget-stop',
  'usage',
  'run-end',
] as const satisfies readonly WeftEventType[];

type Unlisted = Exclude<WeftEventType, (typeof WEFT_EVENT_TYPES)[number]>;
// A compile-time check: `true` only when no event type is missing from the list.
const everyTypeListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyTypeListed;

const KNOWN: ReadonlySet<string> = new Set(WEFT_EVENT_TYPES);

export function isWeftEventType(type: unknown): type is WeftEventType {
  return typeof type === 'string' && KNOWN.has(type);
}
