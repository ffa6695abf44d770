/**
 * The traces API (distillation): `GET /api/traces` (newest first, `?task=`, `?success=true|false`,
 * `?limit=`, at most 1,000; `more` when there are more) and `GET /api/traces/:id` (the trace with its tool calls,
 * long values cut). Read-only over the store.
 */
import type { Hono } from 'hono';
import { isTraceId } from '../store/traces.js';
import { badInputReply, clippedJson, clipText, notFoundReply, queryInteger } from './api-replies.js';
import type { DashboardStore } from './dashboard-store.js';

const TEXT_CHARS = 50_000;

export function registerTraceRoutes(app: Hono, options: { readonly store: DashboardStore }): void {
  const { store } = options;

  app.get('/api/traces', async (c) => {
    const limit = queryInteger(c.req.query('limit'), 100, 1, 1_000);
    const success = c.req.query('success');
    if (success !== undefined && success !== '' && success !== 'true' && success !== 'false')
      return badInputReply(c, 'success must be true or false');
    const task = c.req.query('task');
    // One more than asked tells whether there are more, without counting them all.
    const traces =
      (await store.listTraces?.({
        limit: limit + 1,
        ...(task ? { taskKey: task } : {}),
        ...(success === 'true' || success === 'false' ? { success: success === 'true' } : {}),
      })) ?? [];
    return c.json({
      traces: traces.slice(0, limit).map((trace) => ({
        traceId: trace.traceId,
        createdAt: trace.createdAt,
        taskKey: trace.taskKey ?? null,
        task: clipText(trace.task, 300),
        mode: trace.mode,
        model: trace.model,
        success: trace.success,
        calls: trace.calls.length,
        tokens: trace.usage.inputTokens + trace.usage.outputTokens,
        costUsd: trace.usage.costUsd ?? 0,
      })),
      ...(traces.length > limit ? { more: true } : {}),
    });
  });

  app.get('/api/traces/:id', async (c) => {
    const traceId = c.req.param('id');
    const trace = isTraceId(traceId) ? await store.getTrace?.(traceId) : undefined;
    if (!trace) return notFoundReply(c, `No trace ${JSON.stringify(traceId.slice(0, 200))}`);
    return c.json({
      trace: {
        traceId: trace.traceId,
        createdAt: trace.createdAt,
        task: clipText(trace.task, TEXT_CHARS),
        taskKey: trace.taskKey ?? null,
        mode: trace.mode,
        model: trace.model,
        success: trace.success,
        ...(trace.error !== undefined ? { error: clipText(trace.error, TEXT_CHARS) } : {}),
        input: clippedJson(trace.input),
        ...(trace.plan ? { plan: trace.plan.slice(0, 1_000).map((step) => clipText(String(step), 2_000)) } : {}),
        ...(trace.answer !== undefined ? { answer: clippedJson(trace.answer) } : {}),
        ...(trace.expected !== undefined ? { expected: clippedJson(trace.expected) } : {}),
        usage: trace.usage,
        ...(trace.runId ? { runId: trace.runId } : {}),
        callsTotal: trace.calls.length,
        calls: trace.calls.slice(0, 2_000).map((call) => ({
          tool: call.tool,
          ok: call.ok,
          args: clippedJson(call.args, 5_000),
          ...(call.result !== undefined ? { result: clippedJson(call.result, 5_000) } : {}),
          ...(call.error !== undefined ? { error: clipText(call.error, 5_000) } : {}),
          durationMs: call.durationMs,
          ...(call.step !== undefined ? { step: call.step } : {}),
        })),
      },
    });
  });
}
