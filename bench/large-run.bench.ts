/**
 * Orchestration overhead: a 10,000-subtask DAG run by a model that answers instantly, so the wall time
 * is the executor's own work (scheduling, prompts, verification parsing, events). Two shapes: a random DAG of 100
 * ranks, and a wide one of 2 ranks where thousands of subtasks of the same role run at once.
 */
import type { Workflow } from '../src/graph/index.js';
import { execute } from '../src/run/execution.js';
import { instantModel } from './bench-models.js';
import { randomDag } from './random-dag.js';
import type { Bench, BenchReport, ReportRow } from './report.js';
import { percentile } from './stats.js';

const NODES = 10_000;
const REPEATS = 3;
/** The growth check: ten times the subtasks. */
const LARGE = 100_000;
const LARGE_REPEATS = 3;
const SHAPES = [
  { name: '100 ranks', depth: 100 },
  { name: '2 ranks', depth: 2 },
] as const;

export const largeRunBench: Bench = {
  name: 'large-run',
  async run(): Promise<BenchReport> {
    await timeRun(randomDag(1, { nodes: 1_000, depth: 20 }).workflow, true); // JIT warm-up
    const rows: ReportRow[] = [];
    const notes: string[] = [];
    let timings100Ranks: number[] = [];
    for (const shape of SHAPES) {
      const { workflow } = randomDag(NODES, { nodes: NODES, depth: shape.depth, extraParents: 2 });
      const edges = workflow.subtasks.reduce((sum, subtask) => sum + subtask.dependsOn.length, 0);
      const timings = { on: [] as number[], off: [] as number[] };
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        timings.on.push(await timeRun(workflow, true));
        timings.off.push(await timeRun(workflow, false));
      }
      if (shape.depth === 100) timings100Ranks = timings.on;
      for (const [verify, samples] of Object.entries(timings)) {
        rows.push({
          label: `${shape.name}, verify ${verify}`,
          value: percentile(samples, 0.5),
          unit: 'ms',
          goal: { comparison: '<', target: 1000 },
        });
      }
      notes.push(
        `${shape.name}: ${edges} edges; runs with verify on ${list(timings.on)} ms, off ${list(timings.off)} ms.`,
      );
    }
    // Growth: the same shape at ten times the subtasks should cost about ten times as much, not more.
    const tenK = percentile(timings100Ranks, 0.5);
    const { workflow: large } = randomDag(LARGE, { nodes: LARGE, depth: 100, extraParents: 2 });
    const largeTimes: number[] = [];
    for (let repeat = 0; repeat < LARGE_REPEATS; repeat++) largeTimes.push(await timeRun(large, true));
    const hundredK = percentile(largeTimes, 0.5);
    rows.push(
      {
        label: `${LARGE.toLocaleString('en-US')} subtasks, 100 ranks, verify on`,
        value: hundredK,
        unit: 'ms',
        goal: { comparison: '<', target: 1500 },
      },
      {
        label: `growth, ${LARGE.toLocaleString('en-US')} / ${NODES.toLocaleString('en-US')} subtasks`,
        value: hundredK / tenK,
        unit: '×',
        goal: { comparison: '<=', target: 11 },
      },
    );
    notes.push(`${LARGE.toLocaleString('en-US')} subtasks: runs ${list(largeTimes)} ms.`);
    return {
      title: `Large run: ${NODES} subtasks, instant model, orchestration time (median of ${REPEATS})`,
      rows,
      notes,
    };
  },
};

async function timeRun(workflow: Workflow, verify: boolean): Promise<number> {
  let events = 0;
  const started = performance.now();
  const result = await execute({ workflow, model: instantModel(), verify, emit: () => void (events += 1) });
  const elapsed = performance.now() - started;
  if (result.status !== 'completed') throw new Error(`The large run ended ${result.status}: ${result.reason ?? ''}`);
  if (events === 0) throw new Error('The large run emitted no events');
  return elapsed;
}

function list(samples: readonly number[]): string {
  return samples.map((sample) => sample.toFixed(0)).join(', ');
}
