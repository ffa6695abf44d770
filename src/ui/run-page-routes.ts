/**
 * The run page's neighbours: `GET /api/runs/:id/teams` (what each team subtask's DyLAN team did: layers, who was
 * kept or dropped, the ranker's reason, importance scores). Plan history reads `/api/runs/:id/plans` and
 * `/api/runs/:id/layout?version=N` from run-routes.ts. Read-only over the store.
 */
import type { Hono } from 'hono';
import { noRunReply } from './api-replies.js';
import type { DashboardStore } from './dashboard-store.js';
import { teamRuns } from './team-runs.js';
import type { RunLogCache } from './run-log-cache.js';

export interface RunPageRoutesOptions {
  readonly store: DashboardStore;
  readonly logs: RunLogCache;
}

export function registerRunPageRoutes(app: Hono, options: RunPageRoutesOptions): void {
  const { store, logs } = options;
  app.get('/api/runs/:id/teams', async (c) => {
    const runId = c.req.param('id');
    if (!(await store.getRun(runId))) return noRunReply(c, runId);
    return c.json({ teams: teamRuns(await logs.events(runId)) });
  });
}
