/**
 * What the dashboard may ask of the store: reads only. The server is handed this narrowed view, so a write from a
 * dashboard route is a type error, not a convention (the issue: "the server reads the store but never writes it").
 */
import type { SessionStore } from '../dialog/session-store.js';
import type { RunStore } from '../store/run-store.js';
import type { TraceStore } from '../store/traces.js';
import type { BatchReader } from './batch-view.js';

/** The session reads (procedures); both stores have them. */
export type SessionReader = Pick<SessionStore, 'listSessions' | 'getSession' | 'sessionEvents'>;
/** The trace reads (distillation). */
export type TraceReader = Pick<TraceStore, 'listTraces' | 'getTrace'>;

/** Session, trace and batch reads are optional: a store without them shows empty pages, not errors. */
export type DashboardStore = Pick<RunStore, 'listRuns' | 'getRun' | 'events' | 'planVersions'> &
  Partial<SessionReader> &
  Partial<TraceReader> &
  Partial<BatchReader>;
