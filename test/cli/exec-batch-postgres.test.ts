/**
 * `weft exec --inputs` with its batch in a real Postgres (skipped, with the reason printed, only when no server can
 * start): a batch killed mid-way is resumed from another home folder — nothing shared on disk — and no case runs
 * twice; a `--workers` batch keeps its log in Postgres too (when a redis-server can start). Module tools record each
 * call per case (WEFT_TEST_CALLS), so "no case run twice" is counted, not assumed.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadToolsFile } from '../../src/tools/tools-file.js';
import { runWorker, type WorkerEvent } from '../../src/workers/run-worker.js';
import { startTestPostgres } from '../store/postgres-server.js';
import { startTestRedis } from '../workers/redis-server.js';
import { cli, tempHome } from './cli-harness.js';

const started = await startTestPostgres();
const server = 'server' in started ? started.server : undefined;
if (server === undefined)
  console.log(`exec batch Postgres tests skipped: ${'skipReason' in started ? started.skipReason : ''}`);
const redis = server ? await startTestRedis() : undefined;
if (server && redis?.url === undefined)
  console.log(`exec batch Postgres + workers test skipped: ${redis?.skipReason ?? 'no Redis'}`);
afterAll(async () => {
  redis?.stop();
  await server?.stop();
});

const FIXTURES = new URL('../fixtures/workflows/batch/', import.meta.url).pathname;
const WORKFLOW = join(FIXTURES, 'batch.workflow.json');
const TOOLS = join(FIXTURES, 'tools.yaml');

function callCounts(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (!existsSync(file)) return counts;
  for (const tag of readFileSync(file, 'utf8').split('\n').filter(Boolean)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  return counts;
}

/** A schema of its own for the test (dropped afterwards) and the store URL naming it. */
function freshStore(): { url: string; schema: string } {
  const schema = server!.freshSchema();
  onTestFinished(() => server!.dropSchema(schema));
  return { schema, url: `${server!.url}${server!.url.includes('?') ? '&' : '?'}schema=${schema}` };
}

async function recordCount(schema: string, type: 'case-start' | 'case-end'): Promise<number> {
  const result = await server!.admin.query(`SELECT count(*)::int AS n FROM "${schema}".batch_records WHERE type = $1`, [
    type,
  ]);
  return (result.rows[0] as { n: number }).n;
}

describe.skipIf(server === undefined)('weft exec --inputs with a Postgres store', () => {
  it('a batch killed mid-way is finished from another home folder, with no case run twice', async () => {
    const { url, schema } = freshStore();
    const first = tempHome();
    const calls = join(first, 'calls.txt');
    const inputs = join(first, 'cases.jsonl');
    // 40 cases that each wait 200 ms in their second tool (n >= 1000 pauses n - 1000 ms), after their first call.
    writeFileSync(
      inputs,
      `${Array.from({ length: 40 }, (_, i) => JSON.stringify({ id: i, input: { tag: `p${i}`, n: 1200 }, expected: 2400 })).join('\n')}\n`,
    );
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'exec',
        WORKFLOW,
        '--tools',
        TOOLS,
        '--inputs',
        inputs,
        '--concurrency',
        '4',
        '--home',
        first,
        '--store',
        url,
      ],
      { stdio: 'ignore', env: { ...process.env, WEFT_TEST_CALLS: calls } },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Killed once some cases have ended: the ones running then are started without a result.
    for (let i = 0; i < 1200 && child.exitCode === null; i++) {
      const ended = await recordCount(schema, 'case-end').catch(() => 0);
      if (ended >= 8) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    child.kill('SIGKILL');
    await exited;
    const batches = await server!.admin.query(`SELECT batch_id FROM "${schema}".batches`);
    expect(batches.rows).toHaveLength(1);
    const batchId = (batches.rows[0] as { batch_id: string }).batch_id;
    const ended = await recordCount(schema, 'case-end');
    const startedCases = await recordCount(schema, 'case-start');
    expect(ended).toBeGreaterThanOrEqual(8);
    expect(ended).toBeLessThan(40);
    // Nothing of the batch is in the first home: no folder, no SQLite file.
    expect(existsSync(join(first, 'batches'))).toBe(false);
    expect(existsSync(join(first, 'weft.db'))).toBe(false);

    const second = tempHome();
    const resumed = await cli(['exec', '--resume', batchId, '--home', second, '--store', url, '--json'], {
      WEFT_TEST_CALLS: calls,
    });
    const summary = JSON.parse(resumed.stdout) as {
      cases: number;
      passed: number;
      errors: number;
      results: { id: number; error?: { code: string } }[];
    };
    expect(summary.cases).toBe(40);
    expect(summary.passed + summary.errors).toBe(40);
    // The cases running at the kill are reported interrupted, not run again; every case called its tool once.
    const interrupted = summary.results.filter((entry) => entry.error?.code === 'INTERRUPTED').length;
    expect(interrupted).toBe(startedCases - ended);
    expect(summary.errors).toBe(interrupted);
    // (A case killed between its start record and its first call has no call: at most once, for those.)
    const counts = callCounts(calls);
    for (const entry of summary.results)
      if (entry.error?.code === 'INTERRUPTED') expect(counts.get(`p${entry.id}`) ?? 0).toBeLessThanOrEqual(1);
      else expect(counts.get(`p${entry.id}`), `p${entry.id}`).toBe(1);
    expect(await recordCount(schema, 'case-start')).toBe(40);
    expect(existsSync(join(second, 'batches'))).toBe(false);
  }, 120_000);

  it.skipIf(redis?.url === undefined)(
    'runs a --workers batch with its log in Postgres',
    async () => {
      const { url, schema } = freshStore();
      const home = tempHome();
      const calls = join(home, 'calls.txt');
      const inputs = join(home, 'cases.jsonl');
      writeFileSync(
        inputs,
        `${Array.from({ length: 30 }, (_, i) => JSON.stringify({ id: i, input: { tag: `q${i}`, n: i }, expected: 2 * i })).join('\n')}\n`,
      );
      process.env['WEFT_TEST_CALLS'] = calls;
      const tools = await loadToolsFile(TOOLS);
      const stop = new AbortController();
      const events: WorkerEvent[] = [];
      let ready: () => void = () => {};
      const isReady = new Promise<void>((resolve) => {
        ready = resolve;
      });
      const worker = runWorker({
        redisUrl: redis?.url as string,
        queueName: 'weft-subtasks',
        concurrency: 4,
        id: 'pg-worker',
        signal: stop.signal,
        tools: tools.tools,
        onEvent: (event) => {
          events.push(event);
          if (event.type === 'worker-ready') ready();
        },
      });
      try {
        await isReady;
        const result = await cli([
          'exec',
          WORKFLOW,
          '--tools',
          TOOLS,
          '--inputs',
          inputs,
          '--workers',
          redis?.url as string,
          '--home',
          home,
          '--store',
          url,
          '--json',
        ]);
        expect(result.code, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout)).toMatchObject({ cases: 30, passed: 30 });
        const counts = callCounts(calls);
        expect(counts.size).toBe(30);
        expect([...counts.values()].every((count) => count === 1)).toBe(true);
        expect(events.some((event) => event.type === 'job-end' && event.status === 'completed')).toBe(true);
        expect(await recordCount(schema, 'case-start')).toBe(30);
        expect(await recordCount(schema, 'case-end')).toBe(30);
        expect(existsSync(join(home, 'batches'))).toBe(false);
      } finally {
        stop.abort();
        await worker;
        await tools.close();
        delete process.env['WEFT_TEST_CALLS'];
      }
    },
    120_000,
  );
});
