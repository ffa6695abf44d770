/**
 * Distillation, `npm run bench -- distill`: what running a distilled workflow costs with no model.
 * - Interpreter throughput: 10,000 cases of a 20-node workflow (bench/distill/order.workflow.json: a lookup, a
 *   forEach over the items, a two-way and a three-way condition, a counted loop through a back-edge, an early
 *   exit) with module tools (each call in a worker thread): `runWorkflow` alone, one case after another, the whole
 *   batch with `runWorkflow` in this thread, and the batch as `weft exec --inputs` runs it, each case isolated in a
 *   worker thread (`runCaseIsolated`; the batch's case-start and case-end records in the SQLite store, the
 *   results file, 8 at once).
 * - Loop-heavy workflows, Collatz steps and sum to n (bench/distill-loops.ts): in this thread and as a batch.
 * - The same batch on 1, 2 and 4 BullMQ workers (separate processes, 16 jobs at once each), as ratios to one
 *   worker. Redis: WEFT_TEST_REDIS_URL, else a redis-server on a free port; without one that part says why.
 * Every case has a known expected output (computed here from the tools' own functions), so the figures count
 * only correct runs.
 *
 * Then the cost saved by distillation (bench/distill-cost.ts): solving N instances with the agent against
 * distilling once and running the workflow N times.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { costSavedSection } from './distill-cost.js';
import { distillLoopRows } from './distill-loops.js';
import { readBatchCases, scanBatchCases } from '../src/distill/batch-cases.js';
import { createBatch } from '../src/distill/batch-store.js';
import { loadWorkflowFile } from '../src/distill/read-workflow-file.js';
import { type CaseRunner, runBatch } from '../src/distill/run-batch.js';
import { runWorkflow } from '../src/distill/run-workflow.js';
import { casesInFlight, defaultJobs, runCaseIsolated } from '../src/distill/run-workflow-isolated.js';
import type { ExecutableWorkflow } from '../src/distill/workflow.js';
import { openSqliteRunStore } from '../src/store/sqlite-run-store.js';
import { loadToolsFile } from '../src/tools/tools-file.js';
import type { Tool } from '../src/tools/tool.js';
import { createExecCaseQueue } from '../src/workers/exec-case-queue.js';
import { startTestRedis } from '../test/workers/redis-server.js';
import { orderOf, priceOf } from './distill/bench-tools.js';
import { type CaseRate, timeCases, timeOneByOne } from './case-rate.js';
import type { Bench, BenchReport, ReportRow } from './report.js';

const CASES = 10_000;
const WARMUP = 1_000;
const WORKER_COUNTS = [1, 2, 4] as const;
/** Cases in flight on the workers' batches: 80 jobs of 25 cases, enough for 4 workers taking 16 each. */
const IN_FLIGHT = 2000;
const WORKFLOW = new URL('./distill/order.workflow.json', import.meta.url).pathname;
const TOOLS = new URL('./distill/tools.yaml', import.meta.url).pathname;

export const distillBench: Bench = {
  name: 'distill',
  async run(): Promise<BenchReport> {
    const title = `Distilled workflows without a model: ${CASES.toLocaleString('en-US')} cases of a 20-node workflow with module tools`;
    const home = mkdtempSync(join(tmpdir(), 'weft-bench-distill-'));
    const tools = await loadToolsFile(TOOLS);
    try {
      const { workflow } = await loadWorkflowFile(WORKFLOW, { toolNames: tools.tools.map((tool) => tool.name) });
      const inputs = writeCases(home);
      const interpreter = await timeInterpreter(workflow, tools.tools);
      const batch = await timeBatch(home, 'in-process', inputs, inProcess(workflow, tools.tools), 8);
      // As `weft exec --inputs` runs it: cases in worker threads, --jobs 1 and the default (one per core), with as
      // many cases in flight as the command keeps.
      const jobs = defaultJobs();
      // Each pool's workers started and warm first, as the interpreter is warmed: the rows measure throughput, not
      // the start of worker threads (which `weft exec` pays once per batch).
      await warmIsolated(workflow, tools.tools, 1);
      await warmIsolated(workflow, tools.tools, jobs);
      const one = await timeBatch(home, 'isolated-1', inputs, inIsolation(workflow, tools.tools, 1), casesInFlight(1));
      const all = await timeBatch(
        home,
        'isolated-n',
        inputs,
        inIsolation(workflow, tools.tools, jobs),
        casesInFlight(jobs),
      );
      const rows: ReportRow[] = [
        { label: 'runWorkflow alone, one case after another', value: interpreter.wall, unit: 'cases/s' },
        { label: 'batch in process (log, results file, 8 at once)', value: batch.wall, unit: 'cases/s' },
        {
          label: 'weft exec batch, --jobs 1 (each case in a worker thread)',
          value: one.wall,
          unit: 'cases/s',
          goal: { comparison: '>=', target: 5000 },
        },
        { label: `weft exec batch, default --jobs (${jobs})`, value: all.wall, unit: 'cases/s' },
        {
          label: `default --jobs over --jobs 1`,
          value: all.wall / one.wall,
          unit: '×',
          ...(jobs >= 2 ? { goal: { comparison: '>=' as const, target: 1.8 } } : {}),
        },
        { label: 'runWorkflow alone, per CPU second', value: interpreter.cpu, unit: 'cases/s' },
        { label: 'batch in process, per CPU second', value: batch.cpu, unit: 'cases/s' },
      ];
      const notes = [
        `${CASES.toLocaleString('en-US')} cases, each checked against its expected output; 17 node visits and 6 tool calls per case on average.`,
        `Per CPU second: cases over this process's user+system time, which other load on the machine changes less than wall time (load average now ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores).`,
      ];
      const loops = await distillLoopRows();
      rows.push(...loops.rows);
      notes.push(...loops.notes);
      const distributed = await timeWorkers(home, inputs, workflow, tools.tools);
      rows.push(...distributed.rows);
      notes.push(...distributed.notes);
      const cost = await costSavedSection();
      rows.push(...cost.rows);
      notes.push(...cost.notes.map((note) => `cost saved: ${note}`));
      return { title, rows, notes };
    } finally {
      await tools.close();
      rmSync(home, { recursive: true, force: true });
    }
  },
};

/** The cases file, with the output each case must give (the workflow's logic, recomputed from the tools). */
function writeCases(home: string): string {
  const lines: string[] = [];
  for (let i = 0; i < CASES; i++) {
    const input = { orderId: i, rounds: i % 4 };
    lines.push(JSON.stringify({ id: i, input, expected: expectedOutput(input.orderId, input.rounds) }));
  }
  const file = join(home, 'cases.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function expectedOutput(orderId: number, rounds: number): unknown {
  const order = orderOf(orderId);
  if (order.items.length === 0) return { label: 'empty', total: 0, rounds: 0 };
  const total = order.items.reduce((sum, item) => sum + priceOf(item.sku) * item.qty, 0);
  const final = total > 100 ? Math.round(total * 90) / 100 : total;
  const bonus = order.customer.tier === 'gold' ? 5 : order.customer.tier === 'silver' ? 2 : 0;
  return { label: `${final.toFixed(2)}+${bonus}`, total: final, rounds };
}

function inProcess(workflow: ExecutableWorkflow, tools: readonly Tool[]): CaseRunner {
  return async (item, _attempt, signal) => {
    const run = await runWorkflow(workflow, { tools, input: item.input, signal });
    return { output: run.output, steps: run.steps, toolCalls: run.toolCalls.length };
  };
}

function inIsolation(workflow: ExecutableWorkflow, tools: readonly Tool[], jobs: number): CaseRunner {
  return (item, _attempt, signal) => runCaseIsolated(workflow, { tools, input: item.input, signal, jobs });
}

async function warmIsolated(workflow: ExecutableWorkflow, tools: readonly Tool[], jobs: number): Promise<void> {
  const inFlight = casesInFlight(jobs);
  for (let i = 0; i < WARMUP; i += inFlight)
    await Promise.all(
      Array.from({ length: inFlight }, (_, k) =>
        runCaseIsolated(workflow, { tools, input: { orderId: i + k, rounds: (i + k) % 4 }, jobs }),
      ),
    );
}

async function timeInterpreter(workflow: ExecutableWorkflow, tools: readonly Tool[]): Promise<CaseRate> {
  return timeOneByOne(CASES, WARMUP, (i) => runWorkflow(workflow, { tools, input: { orderId: i, rounds: i % 4 } }));
}

/** Runs the whole batch as `weft exec --inputs` does; throws unless every case passed. */
async function timeBatch(
  home: string,
  name: string,
  inputs: string,
  runCase: CaseRunner,
  concurrency: number,
): Promise<CaseRate> {
  const scan = await scanBatchCases(inputs);
  const batchId = `bench-${name}`;
  // The store `weft exec` keeps batches in by default: SQLite in the home.
  const store = await openSqliteRunStore(join(home, 'weft.db'));
  let summary: Awaited<ReturnType<typeof runBatch>> | undefined;
  let rate: CaseRate;
  try {
    await createBatch(store, {
      version: 1,
      batchId,
      createdAt: new Date().toISOString(),
      workflow: { path: WORKFLOW, sha256: '' },
      inputs: { path: inputs, sha256: scan.sha256, cases: scan.cases },
      options: { concurrency },
    });
    rate = await timeCases(CASES, async () => {
      summary = await runBatch({
        batchId,
        store,
        cases: () => readBatchCases(inputs),
        total: scan.cases,
        runCase,
        concurrency,
        out: { path: join(home, `${batchId}.results.jsonl`) },
      });
    });
  } finally {
    await store.close();
  }
  if (summary?.passed !== CASES)
    throw new Error(
      `batch ${name}: ${summary?.passed} of ${CASES} passed (${summary?.failed} failed, ${summary?.errors} errors): ${JSON.stringify(summary?.results.find((result) => !result.ok))}`,
    );
  return rate;
}

async function timeWorkers(
  home: string,
  inputs: string,
  workflow: ExecutableWorkflow,
  tools: readonly Tool[],
): Promise<{ rows: ReportRow[]; notes: string[] }> {
  const redis = await startTestRedis();
  if (!redis.url) return { rows: [], notes: [`BullMQ workers skipped: ${redis.skipReason ?? 'no Redis'}`] };
  try {
    const rates = new Map<number, number>();
    for (const count of WORKER_COUNTS)
      rates.set(count, (await timeOnWorkers(redis.url, count, home, inputs, workflow, tools)).wall);
    const one = rates.get(1) as number;
    return {
      rows: [
        { label: 'batch on 1 BullMQ worker', value: one, unit: 'cases/s' },
        ...WORKER_COUNTS.slice(1).map((count) => ({
          label: `${count} workers / 1 worker`,
          value: (rates.get(count) as number) / one,
          unit: '×',
        })),
      ],
      notes: [
        `workers: ${WORKER_COUNTS.map((count) => `${count} → ${Math.round(rates.get(count) as number)} cases/s`).join(', ')}; each worker a process running 16 jobs at once, jobs of 25 cases, the coordinator keeping ${IN_FLIGHT} cases in flight.`,
        `A case is a few hundred microseconds of work, less than a queue round trip (hence the chunks); workers pay off for cases that wait on slow tools. The ratios are bounded by this machine's ${availableParallelism()} cores, shared with Redis and the coordinator.`,
      ],
    };
  } finally {
    redis.stop();
  }
}

async function timeOnWorkers(
  redisUrl: string,
  count: number,
  home: string,
  inputs: string,
  workflow: ExecutableWorkflow,
  tools: readonly Tool[],
): Promise<CaseRate> {
  const queueName = `weft-bench-distill-${process.pid}-${count}`;
  const children: ChildProcess[] = [];
  try {
    const script = new URL('./distill-worker.ts', import.meta.url).pathname;
    await Promise.all(
      Array.from({ length: count }, () => {
        const child = spawn(process.execPath, ['--import', 'tsx', script, redisUrl, queueName, '16'], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.push(child);
        return new Promise<void>((resolve, reject) => {
          child.stdout?.on('data', (chunk: Buffer) => {
            if (chunk.toString().includes('ready')) resolve();
          });
          child.once('exit', (code) => reject(new Error(`a bench worker exited (${code}) before it was ready`)));
        });
      }),
    );
    const queue = await createExecCaseQueue({ redisUrl, batchId: `bench-w${count}`, workflow, tools, queueName });
    try {
      return await timeBatch(home, `workers-${count}`, inputs, queue.runCase, IN_FLIGHT);
    } finally {
      await queue.close();
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map(
        (child) => new Promise((resolve) => (child.exitCode !== null ? resolve(0) : child.once('exit', resolve))),
      ),
    );
  }
}
