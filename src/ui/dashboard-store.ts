/**
 * What the dashboard may ask of the store: reads only. The server is handed this narrowed view, so a write from a
 * dashboard route is a type error, not a convention (the issue: "the server reads the store but never writes it").
 */
import type { RunStore } from '../store/run-store.js';

export type DashboardStore = Pick<RunStore, 'listRuns' | 'getRun' | 'events' | 'planVersions'>;
