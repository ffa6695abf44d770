/**
 * The batches API (distillation): `GET /api/batches` (newest first, paged), `GET /api/batches/:id` (the
 * manifest, counts and status, and the workflow's graph laid out by dagre, unless `?graph=no`), `GET /api/batches/:id/results`
 * (`?offset=&limit=&status=passed|failed|error`, in completion order, outputs cut; errors with their node and
 * field). Reads `<home>/batches/` through batch-folders.ts; writes nothing, not even the lock.
 */
import type { Hono } from 'hono';
import type { LivenessProbe } from '../store/run-owner.js';
import { badInputReply, clippedJson, clipText, notFoundReply, queryInteger } from './api-replies.js';
import { type IndexedStatus, orderedResults, readIndexedRecord } from './batch-log-index.js';
import { batchFolders } from './batch-folders.js';

export interface BatchRoutesOptions {
  /** The Weft home whose `batches/` folder is shown; none: no batches. */
  readonly home?: string;
  readonly probe?: LivenessProbe;
}

const RESULT_STATUSES: readonly IndexedStatus[] = ['passed', 'failed', 'error'];
const OUTPUT_CHARS = 2_000;

export function registerBatchRoutes(app: Hono, options: BatchRoutesOptions): void {
  const folders = options.home === undefined ? undefined : batchFolders(options.home, options.probe);

  app.get('/api/batches', async (c) => {
    const limit = queryInteger(c.req.query('limit'), 50, 1, 200);
    const offset = queryInteger(c.req.query('offset'), 0, 0, Number.MAX_SAFE_INTEGER);
    const all = (await folders?.list()) ?? [];
    const batches = [];
    for (const entry of all.slice(offset, offset + limit)) {
      if (entry.problem) {
        batches.push({ batchId: entry.batchId, status: 'unreadable', problem: entry.problem });
        continue;
      }
      const { manifest: _manifest, ...row } = await folders!.summary(entry.batchId);
      batches.push(row);
    }
    return c.json({ total: all.length, offset, batches });
  });

  app.get('/api/batches/:id', async (c) => {
    const batchId = c.req.param('id');
    if (!folders) return notFoundReply(c, 'No batches: the dashboard was started without a Weft home');
    const { manifest, ...summary } = await folders.summary(batchId);
    if (!manifest) {
      if (summary.problem === 'no such batch' || summary.problem === 'not a batch id')
        return notFoundReply(c, `No batch ${JSON.stringify(batchId.slice(0, 200))}`);
      return c.json({ batch: summary });
    }
    // `?graph=no`: the page refreshing a running batch's numbers does not need the graph again.
    const graph = c.req.query('graph') === 'no' ? undefined : await folders.workflowGraph(manifest);
    return c.json({
      batch: {
        ...summary,
        inputs: manifest.inputs.path,
        ...(manifest.tools ? { tools: manifest.tools.path } : {}),
        options: manifest.options,
      },
      ...(graph ? { graph } : {}),
    });
  });

  app.get('/api/batches/:id/results', async (c) => {
    const batchId = c.req.param('id');
    const status = c.req.query('status');
    if (status !== undefined && status !== '' && !RESULT_STATUSES.includes(status as IndexedStatus))
      return badInputReply(c, `status must be one of ${RESULT_STATUSES.join(', ')}`);
    const limit = queryInteger(c.req.query('limit'), 50, 1, 200);
    const offset = queryInteger(c.req.query('offset'), 0, 0, Number.MAX_SAFE_INTEGER);
    if (!folders) return notFoundReply(c, 'No batches: the dashboard was started without a Weft home');
    const summary = await folders.summary(batchId);
    if (!summary.manifest) {
      if (summary.problem === 'no such batch' || summary.problem === 'not a batch id')
        return notFoundReply(c, `No batch ${JSON.stringify(batchId.slice(0, 200))}`);
      return badInputReply(c, `Batch ${batchId} cannot be read: ${summary.problem}`);
    }
    const page = await folders.withLog(batchId, async (log) => {
      if (!log) return { total: 0, results: [] };
      const matching = orderedResults(log.index, (status || undefined) as IndexedStatus | undefined);
      const results = [];
      for (const place of matching.slice(offset, offset + limit)) {
        const record = await readIndexedRecord(log.handle, place);
        results.push(record ? shownResult(record) : { id: null, status: place.status, unreadable: true });
      }
      return { total: matching.length, results };
    });
    return c.json({ offset, ...page });
  });
}

function shownResult(record: Record<string, unknown>) {
  const error = record.error as { code?: unknown; message?: unknown; field?: unknown } | undefined;
  return {
    id: typeof record.id === 'string' || typeof record.id === 'number' ? record.id : null,
    status: record.status,
    ...('output' in record ? { output: clippedJson(record.output, OUTPUT_CHARS) } : {}),
    ...(error && typeof error === 'object'
      ? {
          error: {
            code: String(error.code ?? ''),
            message: clipText(String(error.message ?? ''), 5_000),
            ...(error.field !== undefined ? { field: clipText(String(error.field), 500) } : {}),
          },
        }
      : {}),
    ...(record.interrupted === true ? { interrupted: true } : {}),
    ...(typeof record.steps === 'number' ? { steps: record.steps } : {}),
    ...(typeof record.toolCalls === 'number' ? { toolCalls: record.toolCalls } : {}),
  };
}
