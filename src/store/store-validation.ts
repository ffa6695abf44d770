/**
 * The checks every RunStore makes before it writes (run-store.ts states the rules), with the messages both stores
 * give. Each check throws WeftError('STORE') and serialises what it accepts, so a store writes nothing of a bad call.
 *
 * `maxInteger` is the largest integer the store's columns hold (pids, plan versions): 0x7fffffff for a Postgres
 * `integer`, no bound (Infinity) for SQLite.
 */
import { WeftError } from '../errors.js';
import { BLOB_THRESHOLD_BYTES, deflate, type Deflated } from './json-blobs.js';
import {
  STORED_RUN_STATUSES,
  type EventRecord,
  type NewRun,
  type PlanVersion,
  type RunOwner,
  type StoredRunStatus,
} from './run-store.js';

/** A run as it is written: the id checked, the options as JSON text. */
export interface PreparedRun {
  readonly runId: string;
  readonly options: string;
  readonly owner: RunOwner | undefined;
}

export interface PreparedEvent {
  readonly type: string;
  readonly at: number;
  readonly deflated: Deflated;
}

function requireText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new WeftError(
      'STORE',
      `Cannot store a run: ${field} must be a non-empty string, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** An owner is a positive integer pid (up to `maxInteger`) and a non-empty host; `what` names it in the message. */
export function checkOwner(owner: unknown, what: string, maxInteger: number): RunOwner {
  const candidate = owner as Partial<RunOwner> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.pid !== 'number' ||
    !Number.isInteger(candidate.pid) ||
    candidate.pid <= 0 ||
    candidate.pid > maxInteger ||
    typeof candidate.host !== 'string' ||
    candidate.host === ''
  ) {
    throw new WeftError(
      'STORE',
      `Cannot store ${what}: owner must be { pid: a positive integer, host: a non-empty string }, got ${JSON.stringify(owner)}`,
    );
  }
  return { pid: candidate.pid, host: candidate.host };
}

/** Checks a new run (id, task, model, options, owner) and serialises its options. */
export function prepareRun(run: NewRun, maxInteger: number): PreparedRun {
  const runId = requireText(run.runId, 'runId');
  for (const field of ['task', 'model'] as const) {
    if (typeof run[field] !== 'string')
      throw new WeftError('STORE', `Cannot store run ${runId}: ${field} must be a string`);
  }
  if (typeof run.options !== 'object' || run.options === null || Array.isArray(run.options)) {
    throw new WeftError('STORE', `Cannot store run ${runId}: options must be an object`);
  }
  const options = deflate(run.options, `the options of run ${runId}`, Number.POSITIVE_INFINITY).json;
  const owner = run.owner === undefined ? undefined : checkOwner(run.owner, `run ${runId}`, maxInteger);
  return { runId, options, owner };
}

/** Checks a batch of events (a non-empty string `type`, a finite `at`) and serialises each. */
export function prepareEvents(runId: string, events: readonly EventRecord[]): PreparedEvent[] {
  return prepareEventBatch(events, `run ${runId}`);
}

/**
 * prepareEvents for any log: `owner` names it in messages (`run X`, `session Y`); strings longer than
 * `thresholdBytes` become blobs (Infinity: none, the whole event stays one JSON text).
 */
export function prepareEventBatch(
  events: readonly EventRecord[],
  owner: string,
  thresholdBytes = BLOB_THRESHOLD_BYTES,
): PreparedEvent[] {
  if (!Array.isArray(events)) throw new WeftError('STORE', `Cannot store events for ${owner}: expected an array`);
  return events.map((event, index) => {
    const what = `event ${index + 1} of the batch for ${owner}`;
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string' || event.type === '') {
      throw new WeftError('STORE', `Cannot store ${what}: it needs a non-empty string \`type\``);
    }
    if (typeof event.at !== 'number' || !Number.isFinite(event.at)) {
      throw new WeftError('STORE', `Cannot store ${what} (${event.type}): \`at\` must be a finite number`);
    }
    return { type: event.type, at: event.at, deflated: deflate(event, what, thresholdBytes) };
  });
}

/** Checks a plan version (an integer from 1 up to `maxInteger`, a string cause) and serialises its workflow and diff. */
export function preparePlanVersion(version: Omit<PlanVersion, 'createdAt'>, maxInteger: number): Deflated {
  const { runId } = version;
  if (!Number.isInteger(version.version) || version.version < 1 || version.version > maxInteger) {
    throw new WeftError(
      'STORE',
      `Cannot store plan version ${String(version.version)} of run ${runId}: versions are integers from 1`,
    );
  }
  if (typeof version.cause !== 'string') {
    throw new WeftError(
      'STORE',
      `Cannot store plan version ${version.version} of run ${runId}: cause must be a string`,
    );
  }
  return deflate(
    { workflow: version.workflow, diff: version.diff },
    `plan version ${version.version} of run ${runId}`,
    BLOB_THRESHOLD_BYTES,
  );
}

export function checkStatus(status: StoredRunStatus): void {
  if (!STORED_RUN_STATUSES.includes(status)) {
    throw new WeftError(
      'STORE',
      `Unknown run status ${JSON.stringify(status)}; expected one of ${STORED_RUN_STATUSES.join(', ')}`,
    );
  }
}

/** A page size for `events`: a positive integer, or undefined for all of them. */
export function eventLimit(limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new WeftError('STORE', `An events limit must be a positive integer, not ${String(limit)}`);
  return limit;
}
