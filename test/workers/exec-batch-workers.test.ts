/**
 * `weft exec --inputs … --workers redis://…`: the cases of a batch run on `weft worker`s through BullMQ
 * on a real Redis (skipped, with the reason printed, only when no redis-server can start). Workers started after
 * the batch and before it both take its jobs; no case runs twice; case errors come back located; the redis URL's
 * password is never printed.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHash, randomUUID } from 'node:crypto';
import { loadToolsFile } from '../../src/tools/tools-file.js';
import { liveKey } from '../../src/workers/attempt-job.js';
import { execCaseJournalKey, workflowKey } from '../../src/workers/exec-case-job.js';
import { runExecCaseJob } from '../../src/workers/exec-case-worker.js';
import { loadQueueModules } from '../../src/workers/load-queue.js';
import { redisOptions } from '../../src/workers/redis-url.js';
import { runWorker, type WorkerEvent } from '../../src/workers/run-worker.js';
import { homeBatches } from '../cli/batch-store-harness.js';
import { cli, tempHome } from '../cli/cli-harness.js';
import { startTestRedis } from './redis-server.js';

const redis = await startTestRedis();
afterAll(() => redis.stop());

const FIXTURES = new URL('../fixtures/workflows/batch/', import.meta.url).pathname;
const WORKFLOW = join(FIXTURES, 'batch.workflow.json');
const TOOLS = join(FIXTURES, 'tools.yaml');

function callCounts(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (!existsSync(file)) return counts;
  for (const tag of readFileSync(file, 'utf8').split('\n').filter(Boolean)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  return counts;
}

async function startWorker(queueName: string, options: { tools?: boolean; id: string }) {
  const tools = options.tools === false ? undefined : await loadToolsFile(TOOLS);
  const stop = new AbortController();
  const events: WorkerEvent[] = [];
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const running = runWorker({
    redisUrl: redis.url as string,
    queueName,
    concurrency: 4,
    id: options.id,
    signal: stop.signal,
    ...(tools ? { tools: tools.tools } : {}),
    onEvent: (event) => {
      events.push(event);
      if (event.type === 'worker-ready') ready();
    },
  });
  await isReady;
  return {
    events,
    async stop() {
      stop.abort();
      await running;
      await tools?.close();
    },
  };
}

describe.skipIf(redis.url === undefined)('weft exec --inputs --workers', () => {
  it('workers started after the batch and before it take its cases; each case runs once; errors come back located', async () => {
    const home = tempHome();
    const calls = join(home, 'calls.txt');
    const cases = Array.from({ length: 60 }, (_, i) => ({
      id: i,
      input: { tag: `w${i}`, n: i === 13 ? -1 : i },
      expected: i * 2,
    }));
    const inputs = join(home, 'cases.jsonl');
    writeFileSync(inputs, `${cases.map((item) => JSON.stringify(item)).join('\n')}\n`);
    const out = join(home, 'out.jsonl');
    // The default queue of `weft exec --workers` and `weft worker`.
    const queueName = 'weft-subtasks';
    const batch = cli(
      [
        'exec',
        WORKFLOW,
        '--tools',
        TOOLS,
        '--inputs',
        inputs,
        '--workers',
        redis.url as string,
        '--out',
        out,
        '--home',
        home,
        '--json',
      ],
      { WEFT_TEST_CALLS: calls },
    );
    // No worker yet: the batch's jobs wait in the queue. Then one worker comes.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(callCounts(calls).size).toBe(0);
    process.env['WEFT_TEST_CALLS'] = calls;
    const late = await startWorker(queueName, { id: 'late' });
    try {
      const result = await batch;
      expect(result.code, result.stderr).toBe(1);
      const summary = JSON.parse(result.stdout) as {
        cases: number;
        passed: number;
        errors: number;
        results: { id: number; ok: boolean; error?: { code: string; field?: string; message: string } }[];
      };
      expect(summary).toMatchObject({ cases: 60, passed: 59, errors: 1 });
      const broken = summary.results.find((entry) => entry.id === 13);
      expect(broken?.error).toMatchObject({ code: 'WORKFLOW', field: 'node broken (values).x' });
      expect(broken?.error?.message).toContain('$number("not a number")');
      expect([...callCounts(calls).values()].every((count) => count === 1)).toBe(true);
      expect(callCounts(calls).size).toBe(60);
      expect(late.events.some((event) => event.type === 'job-end' && event.status === 'completed')).toBe(true);

      // A second batch with the worker already running (started before the batch), and a second one joining.
      writeFileSync(calls, '');
      const early = await startWorker(queueName, { id: 'early' });
      try {
        const second = await cli(
          [
            'exec',
            WORKFLOW,
            '--tools',
            TOOLS,
            '--inputs',
            inputs,
            '--workers',
            redis.url as string,
            '--home',
            home,
            '--json',
            '--concurrency',
            '30',
          ],
          { WEFT_TEST_CALLS: calls },
        );
        expect(JSON.parse(second.stdout)).toMatchObject({ passed: 59, errors: 1 });
        expect([...callCounts(calls).values()].every((count) => count === 1)).toBe(true);
        expect(callCounts(calls).size).toBe(60);
      } finally {
        await early.stop();
      }
    } finally {
      await late.stop();
      delete process.env['WEFT_TEST_CALLS'];
    }
  }, 60_000);

  it("a worker without the workflow's tools fails each case with a message naming the batch's tools file", async () => {
    const home = tempHome();
    const inputs = join(home, 'cases.jsonl');
    writeFileSync(inputs, `${JSON.stringify({ id: 'a', input: { tag: 'x', n: 1 } })}\n`);
    const queueName = 'weft-subtasks';
    const bare = await startWorker(queueName, { tools: false, id: 'bare' });
    try {
      const result = await cli([
        'exec',
        WORKFLOW,
        '--tools',
        TOOLS,
        '--inputs',
        inputs,
        '--workers',
        redis.url as string,
        '--home',
        home,
        '--json',
      ]);
      const summary = JSON.parse(result.stdout) as { errors: number; results: { error?: { message: string } }[] };
      expect(summary.errors).toBe(1);
      expect(summary.results[0]?.error?.message).toContain('start it with --tools');
      expect(summary.results[0]?.error?.message).toContain(TOOLS);
    } finally {
      await bare.stop();
    }
  }, 30_000);

  it('a job run again after its worker died does not rerun the cases its journal shows started', async () => {
    const { Redis } = await loadQueueModules();
    const client = new Redis({ ...redisOptions(redis.url as string), maxRetriesPerRequest: 3 });
    const home = tempHome();
    const calls = join(home, 'calls.txt');
    process.env['WEFT_TEST_CALLS'] = calls;
    const tools = await loadToolsFile(TOOLS);
    try {
      // A name of its own: the journal key outlives the test (24 h) in a Redis that CI keeps between runs.
      const queueName = `weft-journal-test-${randomUUID()}`;
      const workflow = JSON.parse(readFileSync(WORKFLOW, 'utf8')) as unknown;
      const text = JSON.stringify(workflow);
      const hash = createHash('sha256').update(text).digest('hex');
      await client.set(workflowKey(queueName, hash), text, 'EX', 60);
      await client.set(liveKey(queueName, 'b-journal'), '1', 'EX', 60);
      // The first attempt's worker had started case 0 (index 0 journalled) when it died.
      await client.rpush(execCaseJournalKey(queueName, 'b-journal:chunk:1'), '0');
      const declarations = tools.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema as Record<string, unknown>,
        ...(tool.idempotent !== undefined ? { idempotent: tool.idempotent } : {}),
      }));
      const result = await runExecCaseJob(
        {
          kind: 'exec-case',
          batchId: 'b-journal',
          workflowHash: hash,
          tools: { declarations },
          cases: [
            { id: 'j0', attempt: 1, input: { tag: 'j0', n: 1 } },
            { id: 'j1', attempt: 1, input: { tag: 'j1', n: 2 } },
          ],
        },
        { redis: client, queueName, workerId: 'test', tools: tools.tools, jobId: 'b-journal:chunk:1' },
      );
      expect(result.results).toEqual([{ interrupted: true }, { output: 4, steps: 5, toolCalls: 2 }]);
      expect([...callCounts(calls).keys()]).toEqual(['j1']);
      expect(await client.lrange(execCaseJournalKey(queueName, 'b-journal:chunk:1'), 0, -1)).toEqual(['0', '1']);
    } finally {
      delete process.env['WEFT_TEST_CALLS'];
      await tools.close();
      await client.quit();
    }
  });

  it('never prints the password of the redis URL', async () => {
    const home = tempHome();
    const inputs = join(home, 'cases.jsonl');
    writeFileSync(inputs, `${JSON.stringify({ id: 1, input: { tag: 'x', n: 1 } })}\n`);
    const url = (redis.url as string).replace('redis://', 'redis://weft:s3cret-pass@');
    const result = await cli([
      'exec',
      WORKFLOW,
      '--tools',
      TOOLS,
      '--inputs',
      inputs,
      '--workers',
      url,
      '--home',
      home,
    ]);
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toContain('s3cret-pass');
    // Nor is it stored: the batch keeps the URL without it.
    for (const batch of await homeBatches(home)) {
      const manifest = JSON.stringify(batch.manifest);
      expect(manifest).not.toContain('s3cret-pass');
      expect(manifest).toContain('redis://weft@127.0.0.1');
    }
  }, 30_000);
});

if (redis.url === undefined) console.warn(`skipping weft exec --workers tests: ${redis.skipReason}`);
