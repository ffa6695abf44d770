/**
 * On a queue worker, the verifier of a tool-using subtask sees the attempt's tool calls as it does in process: the
 * failing refund of refund-fixtures.ts, run through BullMQ on a real Redis, gets the same verifier prompt (the call,
 * its redacted arguments, the error), the same rejection, and the same count of failed calls in the run's summary.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatCall } from '../../src/llm/chat-model.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { createQueueRunner } from '../../src/workers/queue-runner.js';
import { runWorker } from '../../src/workers/run-worker.js';
import { CARD, PLAN, REJECTION, recordedScriptedModel, refundTool, verifierPrompts } from '../run/refund-fixtures.js';
import { startTestRedis } from './redis-server.js';
import { runEvents } from '../../src/run/run-events.js';

const redis = await startTestRedis();
afterAll(() => redis.stop());

/** The refund run with the coordinator's model (model) and the attempts on a worker (workerModel's calls). */
async function refundRun(queue?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'weft-worker-evidence-'));
  const model = await recordedScriptedModel(dir);
  const store = await openRunStore({ home: dir });
  const workerCalls: ChatCall[] = [];
  const tool = refundTool();
  const stop = new AbortController();
  const worker = queue
    ? runWorker({
        redisUrl: redis.url!,
        queueName: queue,
        signal: stop.signal,
        tools: [tool],
        createModel: () => recordedScriptedModel(dir, workerCalls),
      })
    : undefined;
  const runner = queue ? await createQueueRunner({ redisUrl: redis.url!, queueName: queue }) : undefined;
  try {
    const result = await runTask({
      task: PLAN.task,
      plan: PLAN,
      model,
      store,
      home: dir,
      ...(runner ? { attemptRunner: runner.attemptRunner } : {}),
      run: { strategy: 'none' },
      tools: { available: [tool] },
    });
    const events = await runEvents(store, result.runId);
    return { result, events, calls: queue ? workerCalls : model.calls, tool };
  } finally {
    stop.abort();
    await worker;
    await runner?.close();
    await store.close();
  }
}

describe.skipIf(redis.url === undefined)('the verifier on a worker', () => {
  it('sees the attempt tool calls as in process, and rejects the claim of the failed refund', {
    timeout: 60_000,
  }, async () => {
    const local = await refundRun();
    const remote = await refundRun(`weft-evidence-${process.pid}-${Date.now()}`);
    expect(remote.tool.made).toBe(1);
    const prompts = verifierPrompts(remote.calls);
    expect(prompts).toHaveLength(1);
    expect(prompts).toEqual(verifierPrompts(local.calls));
    expect(prompts[0]).toContain('<call n="1" tool="issue_refund" status="failed" code="TOOL">');
    expect(prompts[0]).toContain('"card":"[redacted]"');
    expect(prompts[0]).not.toContain(CARD);
    expect(remote.events.filter((e) => e.type === 'task-verify')).toMatchObject([
      { taskId: 'refund', verdict: 'replan', reason: REJECTION },
    ]);
    expect(remote.result).toMatchObject({ status: 'failed', toolCalls: 1, toolCallsFailed: 1 });
    expect(remote.result.tasks[0]).toMatchObject({ toolCalls: 1, toolCallsFailed: 1 });
  });
});
