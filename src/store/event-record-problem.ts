/**
 * What is wrong with an event read back from a log, for a typed read of that log (runs: run/run-events.ts;
 * sessions: dialog/read-session-events.ts): it must be an object with a `type` of the log's vocabulary and a numeric
 * `at`. The store keeps events as JSON it does not interpret, so the layer that owns the vocabulary passes it in.
 */
export interface EventRecordProblem {
  readonly field: 'event' | 'type' | 'at';
  /** Reads after the event's name: `event 3 of run r1 ${message}`. */
  readonly message: string;
}

export function eventRecordProblem(
  event: unknown,
  isKnownType: (type: unknown) => boolean,
): EventRecordProblem | undefined {
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    return { field: 'event', message: 'is not an object' };
  const { type, at } = event as { type?: unknown; at?: unknown };
  if (!isKnownType(type))
    return { field: 'type', message: `has an unknown type ${JSON.stringify(type) ?? 'undefined'}` };
  if (typeof at !== 'number' || !Number.isFinite(at))
    return { field: 'at', message: `(${String(type)}) has no numeric "at"` };
  return undefined;
}
