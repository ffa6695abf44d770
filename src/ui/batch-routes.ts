/**
 * The batches API (distillation): `GET /api/batches` (newest first, paged), `GET /api/batches/:id` (the
 * manifest, counts and status, and the workflow's graph laid out by dagre, unless `?graph=no`), `GET /api/batches/:id/results`
 * (`?offset=&limit=&status=passed|failed|error`, in completion order, outputs cut; errors with their node and
 * field). Reads the store's batches (batch-view.ts); writes nothing, not even the owner.
 */
import type { Hono } from 'hono';
import { type BatchCaseStatus, BATCH_CASE_STATUSES, isBatchId } from '../store/batch-records.js';
import type { LivenessProbe } from '../store/run-owner.js';
import { badInputReply, clippedJson, clipText, notFoundReply, queryInteger } from './api-replies.js';
import { type BatchReader, batchGraphs, batchSummary, legacyBatchFolders } from './batch-view.js';

export interface BatchRoutesOptions {
  /** The store's batch reads; none: no batches. */
  readonly store?: Partial<BatchReader>;
  /** The Weft home: batch folders of older versions under `batches/` are listed (not read). */
  readonly home?: string;
  readonly probe?: LivenessProbe;
}

const OUTPUT_CHARS = 2_000;

function readerOf(store: Partial<BatchReader> | undefined): BatchReader | undefined {
  return store?.listBatches && store.getBatch && store.batchCounts && store.batchResults
    ? (store as BatchReader)
    : undefined;
}

export function registerBatchRoutes(app: Hono, options: BatchRoutesOptions): void {
  const store = readerOf(options.store);
  const graphOf = batchGraphs();

  app.get('/api/batches', async (c) => {
    const limit = queryInteger(c.req.query('limit'), 50, 1, 200);
    const offset = queryInteger(c.req.query('offset'), 0, 0, Number.MAX_SAFE_INTEGER);
    const stored = (await store?.listBatches()) ?? [];
    const legacy =
      options.home === undefined ? [] : await legacyBatchFolders(options.home, new Set(stored.map((b) => b.batchId)));
    const total = stored.length + legacy.length;
    const batches = [];
    for (let index = offset; index < Math.min(total, offset + limit); index++) {
      const info = stored[index];
      if (info && store) {
        const { manifest: _manifest, ...row } = await batchSummary(store, info, options.probe);
        batches.push(row);
      } else batches.push(legacy[index - stored.length]);
    }
    return c.json({ total, offset, batches });
  });

  app.get('/api/batches/:id', async (c) => {
    const batchId = c.req.param('id');
    const info = store && isBatchId(batchId) ? await store.getBatch(batchId) : undefined;
    if (!store || !info) return notFoundReply(c, `No batch ${JSON.stringify(batchId.slice(0, 200))}`);
    const { manifest, ...summary } = await batchSummary(store, info, options.probe);
    if (!manifest) return c.json({ batch: summary });
    // `?graph=no`: the page refreshing a running batch's numbers does not need the graph again.
    const graph = c.req.query('graph') === 'no' ? undefined : await graphOf(manifest);
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
    if (status !== undefined && status !== '' && !BATCH_CASE_STATUSES.includes(status as BatchCaseStatus))
      return badInputReply(c, `status must be one of ${BATCH_CASE_STATUSES.join(', ')}`);
    const limit = queryInteger(c.req.query('limit'), 50, 1, 200);
    const offset = queryInteger(c.req.query('offset'), 0, 0, Number.MAX_SAFE_INTEGER);
    const info = store && isBatchId(batchId) ? await store.getBatch(batchId) : undefined;
    if (!store || !info) return notFoundReply(c, `No batch ${JSON.stringify(batchId.slice(0, 200))}`);
    const page = await store.batchResults(batchId, {
      ...(status ? { status: status as BatchCaseStatus } : {}),
      offset,
      limit,
    });
    return c.json({
      offset,
      total: page.total,
      results: page.results.map((stored) => shownResult(stored.record as unknown as Record<string, unknown>)),
    });
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
