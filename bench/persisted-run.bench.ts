/**
 * Orchestration time with persistence: the same 10,000-subtask run as the large-run bench, but through
 * `runTask` with the SQLite store, so every event is written ahead of its effect (one transaction per batch).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Workflow } from '../src/graph/index.js';
import { runTask } from '../src/run/run-task.js';
import { openRunStore } from '../src/store/open-store.js';
import { instantModel } from './bench-models.js';
import { randomDag } from './random-dag.js';
import type { Bench, BenchReport } from './report.js';
import { percentile } from './stats.js';

const NODES = 10_000;
const REPEATS = 3;

export const persistedRunBench: Bench = {
  name: 'persisted-run',
  async run(): Promise<BenchReport> {
    const { workflow } = randomDag(NODES, { nodes: NODES, depth: 100, extraParents: 2 });
    await timeRun(randomDag(1, { nodes: 1_000, depth: 20 }).workflow); // JIT warm-up
    const samples: { ms: number; events: number }[] = [];
    for (let repeat = 0; repeat < REPEATS; repeat++) samples.push(await timeRun(workflow));
    const median = percentile(
      samples.map((sample) => sample.ms),
      0.5,
    );
    return {
      title: `Persisted run: ${NODES} subtasks, instant model, SQLite store, write-ahead (median of ${REPEATS})`,
      rows: [
        { label: '100 ranks, verify on, SQLite', value: median, unit: 'ms', goal: { comparison: '<', target: 1500 } },
      ],
      notes: [
        `runs: ${samples.map((sample) => sample.ms.toFixed(0)).join(', ')} ms; ${samples[0]!.events} events stored per run.`,
        'Includes creating the run, every event batch, the plan version, the report, the accepted outputs in outputs/ (past 1,000 outputs one file, outputs/@all.md, not 10,000 small ones) and closing the store.',
      ],
    };
  },
};

async function timeRun(workflow: Workflow): Promise<{ ms: number; events: number }> {
  const home = mkdtempSync(join(tmpdir(), 'weft-bench-persist-'));
  try {
    const started = performance.now();
    const store = await openRunStore({ home });
    const result = await runTask({ task: workflow.task, plan: workflow, model: instantModel(), store, home });
    const events = (await store.stats()).events;
    await store.close();
    const ms = performance.now() - started;
    if (result.status !== 'completed')
      throw new Error(`The persisted run ended ${result.status}: ${result.reason ?? ''}`);
    return { ms, events };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
