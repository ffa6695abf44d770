/**
 * The span tree under load: 50 subtasks at once, some attempts failing and retried, plan updates mid-run while
 * other attempts are going. Every attempt started gets exactly one ended `invoke_agent` span (the SDK exports
 * only ended spans), and every span's parent is one of them or the run's, in the run's one trace.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterEach, expect, it } from 'vitest';
import type { Workflow } from '../../src/graph/workflow.js';
import { createModel } from '../../src/llm/resolve-model.js';
import { startTelemetry, stopTelemetry } from '../../src/llm/start-telemetry.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { runEvents } from '../../src/run/run-events.js';

afterEach(async () => {
  await stopTelemetry();
});

function fifty(): Workflow {
  const ids = Array.from({ length: 50 }, (_, i) => `p${i}`);
  return {
    task: 'fifty parts',
    roles: [{ name: 'worker', prompt: 'You work.', kind: 'llm' }],
    subtasks: [
      ...ids.map((id) => ({
        id,
        objective: `part ${id}`,
        agent: 'worker',
        dependsOn: [],
        status: 'not started' as const,
        attempts: 0,
      })),
      { id: 'sum', objective: 'sum up', agent: 'worker', dependsOn: ids, status: 'not started' as const, attempts: 0 },
    ],
  };
}

it('50 parallel subtasks with retries and plan updates: one ended span per attempt, every parent present', async () => {
  const spans: ReadableSpan[] = [];
  const exporter: SpanExporter = {
    export(batch, done) {
      spans.push(...batch);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  await startTelemetry({ exporter });
  const home = mkdtempSync(join(tmpdir(), 'weft-otel-par-'));
  const store = await openRunStore({ home });
  const result = await runTask({
    task: 'fifty parts',
    plan: fifty(),
    model: await createModel('sim:seed=11,latency=uniform(1,6),fail=0.3,error=0.05'),
    store,
    home,
    run: { concurrency: 50, strategy: 'on-failure' },
  });
  const events = await runEvents(store, result.runId);
  await store.close();
  const stopped = await stopTelemetry();
  expect(stopped?.failed).toBe(0);

  const starts = events.filter((event) => event.type === 'task-start');
  const updates = events.filter((event) => event.type === 'plan-update');
  // The run exercised what the test is about.
  expect(starts.length).toBeGreaterThan(51);
  expect(updates.length).toBeGreaterThan(0);

  const agents = spans.filter((span) => span.name.startsWith('invoke_agent '));
  const key = (taskId: unknown, attempt: unknown) => `${String(taskId)}#${String(attempt)}`;
  expect(agents.map((span) => key(span.attributes['weft.task.id'], span.attributes['weft.attempt'])).sort()).toEqual(
    starts.map((event) => key(event.taskId, event.attempt)).sort(),
  );
  const roots = spans.filter((span) => span.parentSpanContext === undefined);
  expect(roots.map((span) => span.name)).toEqual(['invoke_workflow']);
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  for (const span of spans)
    if (span !== roots[0]) expect(ids.has(span.parentSpanContext!.spanId), span.name).toBe(true);
  expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
});
