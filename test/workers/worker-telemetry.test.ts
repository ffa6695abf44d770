/**
 * Tracing across a `weft worker`: the coordinator puts its attempt span's W3C traceparent in the job, and
 * the worker's model calls become `chat` spans under that attempt, in the run's trace. Coordinator and worker run
 * in this process on a real Redis; the spans are collected by the SDK with an in-memory exporter.
 */
import { spanCollector as collector } from '../run/span-collector.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startTelemetry, stopTelemetry } from '../../src/llm/start-telemetry.js';
import { createModel } from '../../src/llm/resolve-model.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { createQueueRunner } from '../../src/workers/queue-runner.js';
import { runWorker } from '../../src/workers/run-worker.js';
import { tempHome } from '../cli/cli-harness.js';
import { startTestRedis } from './redis-server.js';

const redis = await startTestRedis();
afterAll(() => redis.stop());
afterEach(async () => {
  await stopTelemetry();
});

describe.skipIf(redis.url === undefined)('tracing across workers', () => {
  it("the worker's calls are chat spans under the coordinator's attempt spans, in the run's trace", {
    timeout: 60_000,
  }, async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const queue = `weft-otel-${process.pid}-${Date.now()}`;
    const home = tempHome();
    const SIM = 'sim:seed=3,tasks=3';
    const stop = new AbortController();
    const worker = runWorker({ redisUrl: redis.url!, queueName: queue, signal: stop.signal, modelSpec: SIM });
    const store = await openRunStore({ home });
    const runner = await createQueueRunner({ redisUrl: redis.url!, queueName: queue });
    let calls: number;
    try {
      const result = await runTask({
        task: 'write a report',
        model: await createModel(SIM),
        store,
        home,
        attemptRunner: runner.attemptRunner,
      });
      expect(result.status).toBe('completed');
      calls = result.calls;
    } finally {
      stop.abort();
      await worker;
      await runner.close();
      await store.close();
    }
    await stopTelemetry();
    const spans = exporter.spans;
    const run = spans.find((span) => span.name === 'invoke_workflow')!;
    const attempts = new Map(
      spans.filter((span) => span.name.startsWith('invoke_agent ')).map((span) => [span.spanContext().spanId, span]),
    );
    expect(attempts.size).toBeGreaterThanOrEqual(3);
    const onWorker = spans.filter(
      (span) =>
        span.name.startsWith('chat ') &&
        (span.attributes['weft.call.purpose'] === 'execute' || span.attributes['weft.call.purpose'] === 'verify'),
    );
    // One per execute and verify call of each attempt, none of them left outside the run.
    expect(onWorker.length).toBeGreaterThanOrEqual(attempts.size);
    for (const chat of onWorker) {
      expect(chat.spanContext().traceId).toBe(run.spanContext().traceId);
      const attempt = attempts.get(chat.parentSpanContext?.spanId ?? '');
      expect(attempt, 'a worker call whose parent is no attempt').toBeDefined();
      expect(chat.attributes['weft.task.id']).toBe(attempt!.attributes['weft.task.id']);
      expect(chat.attributes['weft.cost_usd']).toBeUndefined();
    }
    expect(spans.filter((span) => span.name.startsWith('chat ')).length).toBe(calls);
  });
});
