/**
 * The runs API: `GET /api/runs` (newest first, `?status=`, `?limit=`, `?offset=`), `GET /api/runs/:id`,
 * `/api/runs/:id/layout?version=N`, `/api/runs/:id/tasks/:taskId`, `/api/runs/:id/plans` and the live
 * `/api/runs/:id/events` (server-sent events). Read-only over the store.
 */
import type { Hono } from 'hono';
import { diffWorkflows } from '../graph/diff-workflows.js';
import type { WorkflowJson } from '../graph/workflow.js';
import { effectiveStatus, type LivenessProbe } from '../store/run-owner.js';
import { STORED_RUN_STATUSES, type RunRecord, type StoredRunStatus } from '../store/run-store.js';
import { badInputReply, noRunReply, notFoundReply } from './api-replies.js';
import type { DashboardStore } from './dashboard-store.js';
import { streamGate, streamRunEvents } from './event-stream.js';
import type { PlanLayout } from './layout-plan.js';
import { layoutPlanOffThread } from './layout-off-thread.js';
import { renderMarkdown } from './render-markdown.js';
import { addToTally, emptyTally, type RunTally } from './run-tally.js';
import { taskDetail } from './task-detail.js';
import { readRunEvents } from './read-run-events.js';
import type { RunLogCache } from './run-log-cache.js';

export interface RunRoutesOptions {
  readonly store: DashboardStore;
  /** The logs kept per run (run-log-cache.ts): a run's summary and a node panel read only what is new. */
  readonly logs: RunLogCache;
  readonly pollMs: number;
  readonly heartbeatMs: number;
  readonly probe?: LivenessProbe;
  /** Live event streams open at once, at most (event-stream.ts MAX_EVENT_STREAMS). */
  readonly maxStreams?: number;
}

/** The task text in lists is clipped; the run page shows it whole. */
const LIST_TASK_CHARS = 300;
const LAYOUT_CACHE = 16;

export function registerRunRoutes(app: Hono, options: RunRoutesOptions): void {
  const { store } = options;
  const tallies = new Map<string, { updatedAt: string; tally: RunTally }>();
  // Promises, so two pages asking for a large plan's layout at once share one computation.
  const layouts = new Map<string, Promise<PlanLayout>>();
  const gate = streamGate(options.maxStreams);

  const statusOf = (run: RunRecord): StoredRunStatus => effectiveStatus(run, options.probe);

  app.get('/api/runs', async (c) => {
    const status = c.req.query('status');
    if (status !== undefined && status !== '' && !STORED_RUN_STATUSES.includes(status as StoredRunStatus))
      return badInputReply(c, `status must be one of ${STORED_RUN_STATUSES.join(', ')}`);
    const limit = boundedInteger(c.req.query('limit'), 100, 1, 1_000);
    const offset = boundedInteger(c.req.query('offset'), 0, 0, Number.MAX_SAFE_INTEGER);
    const all = (await store.listRuns()).map((run) => ({ run, status: statusOf(run) })).reverse();
    const matching = status ? all.filter((entry) => entry.status === status) : all;
    const page = matching.slice(offset, offset + limit);
    const runs = [];
    for (const { run, status: shown } of page) {
      let cached = tallies.get(run.runId);
      if (!cached || cached.updatedAt !== run.updatedAt || shown === 'running') {
        const tally = cached?.tally ?? emptyTally();
        addToTally(tally, await readRunEvents(store, run.runId, tally.lastSeq));
        cached = { updatedAt: run.updatedAt, tally };
        tallies.set(run.runId, cached);
      }
      const { lastSeq: _seq, ...numbers } = cached.tally;
      runs.push({
        runId: run.runId,
        status: shown,
        task: run.task.slice(0, LIST_TASK_CHARS),
        model: run.model,
        createdAt: run.createdAt,
        updatedAt: run.updatedAt,
        ...numbers,
      });
    }
    return c.json({ total: matching.length, offset, runs });
  });

  app.get('/api/runs/:id', async (c) => {
    const run = await store.getRun(c.req.param('id'));
    if (!run) return noRunReply(c, c.req.param('id'));
    const { workflow: _workflow, tasks, ...summary } = await options.logs.summary(run.runId);
    const versions = (await store.planVersions(run.runId)).map((version) => ({
      version: version.version,
      cause: version.cause,
      createdAt: version.createdAt,
      subtasks: version.workflow.subtasks.length,
    }));
    return c.json({
      run: { ...run, status: statusOf(run) },
      summary: { ...summary, subtasks: tasks.length },
      planVersions: versions,
    });
  });

  app.get('/api/runs/:id/plans', async (c) => {
    const runId = c.req.param('id');
    if (!(await store.getRun(runId))) return noRunReply(c, runId);
    const versions = await store.planVersions(runId);
    return c.json({
      versions: versions.map((version, index) => ({
        version: version.version,
        cause: version.cause,
        createdAt: version.createdAt,
        workflow: version.workflow,
        ...(index > 0 ? { diff: diffWorkflows(versions[index - 1]!.workflow, version.workflow) } : {}),
      })),
    });
  });

  app.get('/api/runs/:id/layout', async (c) => {
    const runId = c.req.param('id');
    if (!(await store.getRun(runId))) return noRunReply(c, runId);
    const versions = await store.planVersions(runId);
    const wanted = c.req.query('version');
    const version =
      wanted === undefined || wanted === 'latest'
        ? versions[versions.length - 1]
        : versions.find((candidate) => String(candidate.version) === wanted);
    if (!version)
      return notFoundReply(c, versions.length === 0 ? 'The run has no plan yet' : `No plan version ${wanted}`);
    const key = `${runId}\u0000${version.version}`;
    let layout = layouts.get(key);
    if (!layout) {
      layout = layoutPlanOffThread(version.workflow);
      layouts.set(key, layout);
      layout.catch(() => layouts.delete(key));
      if (layouts.size > LAYOUT_CACHE) layouts.delete(layouts.keys().next().value!);
    }
    return c.json({ version: version.version, subtasks: subtaskCards(version.workflow), layout: await layout });
  });

  app.get('/api/runs/:id/tasks/:taskId', async (c) => {
    const runId = c.req.param('id');
    if (!(await store.getRun(runId))) return noRunReply(c, runId);
    const detail = taskDetail(await options.logs.events(runId), c.req.param('taskId'));
    if (detail.objective === undefined && detail.attempts.length === 0)
      return notFoundReply(c, `No subtask ${JSON.stringify(c.req.param('taskId'))} in run ${runId}`);
    return c.json({
      ...detail,
      attempts: detail.attempts.map((attempt) => ({
        ...attempt,
        ...(attempt.output !== undefined ? { outputHtml: renderMarkdown(attempt.output).html } : {}),
      })),
    });
  });

  app.get('/api/runs/:id/events', async (c) => {
    const runId = c.req.param('id');
    if (!(await store.getRun(runId))) return noRunReply(c, runId);
    // HEAD: the headers only. Hono answers HEAD by running the GET route and dropping the body without cancelling
    // it, so a stream started here would poll the store forever, holding a place under the cap.
    if (c.req.method === 'HEAD')
      return c.body(null, 200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store' });
    if (!gate.tryEnter())
      return c.json(
        { error: { code: 'BUSY', message: `${gate.open} live event streams are open already; close some pages` } },
        503,
      );
    return streamRunEvents(c, store, runId, { ...options, gate });
  });
}

function subtaskCards(workflow: WorkflowJson) {
  return workflow.subtasks.map((subtask) => ({
    id: subtask.id,
    agent: subtask.agent,
    objective: subtask.objective.slice(0, 500),
    dependsOn: subtask.dependsOn,
  }));
}

function boundedInteger(value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !/^\d+$/.test(value)) return fallback;
  return Math.min(max, Math.max(min, Number(value)));
}
