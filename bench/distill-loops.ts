/**
 * Loop-heavy distilled workflows (part of `npm run bench -- distill`): the distillation suite's Collatz steps and
 * sum to n (examples/distill-suite, tools from its kit module), n = 1..39, each case checked against its answer
 * computed here. Two rows each: `runWorkflow` in this thread, one case after another (its module tools each called in
 * a worker thread), and the batch as `weft exec --inputs` runs it (runBatch, each case in a worker thread with
 * runCaseIsolated, the default --jobs and as many cases in flight as the command keeps, the SQLite store and a
 * results file).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBatchCases, scanBatchCases } from '../src/distill/batch-cases.js';
import { createBatch } from '../src/distill/batch-store.js';
import { loadWorkflowFile } from '../src/distill/read-workflow-file.js';
import { runBatch } from '../src/distill/run-batch.js';
import { runWorkflow } from '../src/distill/run-workflow.js';
import { casesInFlight, defaultJobs, runCaseIsolated } from '../src/distill/run-workflow-isolated.js';
import type { ExecutableWorkflow } from '../src/distill/workflow.js';
import { openSqliteRunStore } from '../src/store/sqlite-run-store.js';
import { loadToolsFile } from '../src/tools/tools-file.js';
import type { Tool } from '../src/tools/tool.js';
import { type CaseRate, timeCases, timeOneByOne } from './case-rate.js';
import type { ReportRow } from './report.js';

/** Cases per workflow and measure: n = 1..39 over and over. */
const CASES = 7_800;
const WARMUP = 390;
const SUITE = new URL('../examples/distill-suite/', import.meta.url).pathname;
/** What `weft exec --inputs` keeps in flight by default. */
const BATCH_CONCURRENCY = casesInFlight(defaultJobs());

interface LoopWorkflow {
  readonly name: string;
  readonly expected: (n: number) => number;
}

const WORKFLOWS: readonly LoopWorkflow[] = [
  { name: 'collatz-steps', expected: collatzSteps },
  { name: 'sum-to-n', expected: (n) => (n * (n + 1)) / 2 },
];

function collatzSteps(n: number): number {
  let steps = 0;
  for (let x = n; x !== 1; steps++) x = x % 2 === 0 ? x / 2 : 3 * x + 1;
  return steps;
}

const nOf = (i: number) => (i % 39) + 1;

/** The rows of both workflows, and notes on what they measured. */
export async function distillLoopRows(): Promise<{ rows: ReportRow[]; notes: string[] }> {
  const home = mkdtempSync(join(tmpdir(), 'weft-bench-loops-'));
  const tools = await loadToolsFile(join(SUITE, 'tools/kit.tools.yaml'));
  const rows: ReportRow[] = [];
  const notes: string[] = [];
  try {
    for (const spec of WORKFLOWS) {
      const path = join(SUITE, spec.name, 'reference.workflow.json');
      const { workflow } = await loadWorkflowFile(path, { toolNames: tools.tools.map((tool) => tool.name) });
      const inThread = await timeInThread(workflow, tools.tools, spec);
      const batch = await timeBatch(home, spec, path, workflow, tools.tools);
      rows.push(
        {
          label: `${spec.name}: runWorkflow in this thread, one case after another`,
          value: inThread.wall,
          unit: 'cases/s',
        },
        {
          label: `${spec.name}: batch isolated (as weft exec --inputs)`,
          value: batch.rate.wall,
          unit: 'cases/s',
          goal: { comparison: '>=', target: 2500 },
        },
        { label: `${spec.name}: runWorkflow in this thread, per CPU second`, value: inThread.cpu, unit: 'cases/s' },
        { label: `${spec.name}: batch isolated, per CPU second`, value: batch.rate.cpu, unit: 'cases/s' },
      );
      notes.push(
        `${spec.name}: ${CASES.toLocaleString('en-US')} cases (n = 1..39), each checked; ${batch.visits} node visits and ${batch.toolCalls} tool calls per case on average.`,
      );
    }
    notes.push(
      `Per CPU second: cases over the user+system time of the whole process, its worker threads included (what other load on the machine changes less than wall time; load average now ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores).`,
      `Loop batches: ${defaultJobs()} worker threads (the default --jobs), ${BATCH_CONCURRENCY} cases at once; in this thread each module tool call goes to a worker thread of its own, in a batch it runs in the case's worker.`,
    );
    return { rows, notes };
  } finally {
    await tools.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function timeInThread(
  workflow: ExecutableWorkflow,
  tools: readonly Tool[],
  spec: LoopWorkflow,
): Promise<CaseRate> {
  const run = async (i: number) => {
    const n = nOf(i);
    const result = await runWorkflow(workflow, { tools, input: { n } });
    if (result.output !== spec.expected(n))
      throw new Error(`${spec.name}: n = ${n} gave ${JSON.stringify(result.output)}, not ${spec.expected(n)}`);
  };
  return timeOneByOne(CASES, WARMUP, run);
}

/** The batch as `weft exec --inputs` runs it; throws unless every case passed. */
async function timeBatch(
  home: string,
  spec: LoopWorkflow,
  workflowPath: string,
  workflow: ExecutableWorkflow,
  tools: readonly Tool[],
): Promise<{ rate: CaseRate; visits: number; toolCalls: number }> {
  const inputs = join(home, `${spec.name}.jsonl`);
  const lines: string[] = [];
  for (let i = 0; i < CASES; i++) {
    const n = nOf(i);
    lines.push(JSON.stringify({ id: i, input: { n }, expected: spec.expected(n) }));
  }
  writeFileSync(inputs, `${lines.join('\n')}\n`);
  // Warm the worker threads (their start, the workflow's first crossing) outside the timed part.
  await Promise.all(
    Array.from({ length: BATCH_CONCURRENCY }, (_, i) => runCaseIsolated(workflow, { tools, input: { n: i + 1 } })),
  );
  const scan = await scanBatchCases(inputs);
  const batchId = `bench-loops-${spec.name}`;
  const store = await openSqliteRunStore(join(home, 'weft.db'));
  let visits = 0;
  let toolCalls = 0;
  try {
    await createBatch(store, {
      version: 1,
      batchId,
      createdAt: new Date().toISOString(),
      workflow: { path: workflowPath, sha256: '' },
      inputs: { path: inputs, sha256: scan.sha256, cases: scan.cases },
      options: { concurrency: BATCH_CONCURRENCY },
    });
    let summary: Awaited<ReturnType<typeof runBatch>> | undefined;
    const rate = await timeCases(CASES, async () => {
      summary = await runBatch({
        batchId,
        store,
        cases: () => readBatchCases(inputs),
        total: scan.cases,
        runCase: async (item, _attempt, signal) => {
          const run = await runCaseIsolated(workflow, { tools, input: item.input, signal });
          visits += run.steps;
          toolCalls += run.toolCalls;
          return run;
        },
        concurrency: BATCH_CONCURRENCY,
        out: { path: join(home, `${batchId}.results.jsonl`) },
      });
    });
    if (summary?.passed !== CASES)
      throw new Error(
        `${spec.name}: ${summary?.passed} of ${CASES} passed: ${JSON.stringify(summary?.results.find((result) => !result.ok))}`,
      );
    return { rate, visits: Math.round(visits / CASES), toolCalls: Math.round(toolCalls / CASES) };
  } finally {
    await store.close();
  }
}
