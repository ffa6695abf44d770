/**
 * Exec-case jobs a worker must not trust: a workflow in Redis whose text does not match the job's hash,
 * one that is missing, and one that is not a valid workflow — each reported as the
 * job's error, never run.
 */
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { liveKey } from '../../src/workers/attempt-job.js';
import { type ExecCaseJobData, workflowKey } from '../../src/workers/exec-case-job.js';
import { runExecCaseJob } from '../../src/workers/exec-case-worker.js';
import { loadQueueModules } from '../../src/workers/load-queue.js';
import { redisOptions } from '../../src/workers/redis-url.js';
import { startTestRedis } from './redis-server.js';

const redis = await startTestRedis();
afterAll(() => redis.stop());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const workflowText = (output: string) =>
  JSON.stringify({
    name: 'w',
    nodes: [
      { id: 'start', kind: 'start' },
      { id: 'end', kind: 'end', output },
    ],
    edges: [{ from: 'start', to: 'end' }],
  });

describe.skipIf(redis.url === undefined)('exec-case jobs a worker must not trust', () => {
  it('refuses a workflow whose text is not the one hashed, a missing one and an invalid one', async () => {
    const { Redis } = await loadQueueModules();
    const client = new Redis(redisOptions(redis.url as string));
    const queueName = `q-${Math.random().toString(16).slice(2)}`;
    try {
      const batchId = 'b-hostile';
      await client.set(liveKey(queueName, batchId), '1', 'PX', 60_000);
      const job = (workflowHash: string): ExecCaseJobData => ({
        kind: 'exec-case',
        batchId,
        workflowHash,
        tools: { declarations: [] },
        cases: [{ id: 1, attempt: 1, input: {} }],
      });
      const context = { redis: client, queueName, workerId: 'w1', tools: undefined };
      const honest = workflowText('{% 1 + 1 %}');
      const forged = workflowText('{% 6 * 7 %}');
      await client.set(workflowKey(queueName, sha256(honest)), forged, 'PX', 60_000);
      expect(await runExecCaseJob(job(sha256(honest)), context)).toMatchObject({
        error: { message: expect.stringContaining('has another hash') },
      });
      expect(await runExecCaseJob(job(sha256('nothing')), context)).toMatchObject({
        error: { message: expect.stringContaining('is not in Redis') },
      });
      const invalid = JSON.stringify({ name: 'w', nodes: [{ id: '__proto__', kind: 'start' }], edges: [] });
      await client.set(workflowKey(queueName, sha256(invalid)), invalid, 'PX', 60_000);
      expect(await runExecCaseJob(job(sha256(invalid)), context)).toMatchObject({
        error: { message: expect.stringContaining('not valid here') },
      });
      await client.set(workflowKey(queueName, sha256(honest)), honest, 'PX', 60_000);
      expect(await runExecCaseJob(job(sha256(honest)), context)).toMatchObject({ results: [{ output: 2 }] });
    } finally {
      client.disconnect();
    }
  });
});
