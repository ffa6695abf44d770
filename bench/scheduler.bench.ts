/**
 * Scheduler benchmark: on 100 seeded random DAGs, Weft's makespan against the critical-path bound and
 * against LangGraph.js running the same DAGs with the same latencies.
 */
import { criticalPath } from '../src/graph/index.js';
import { buildLangGraph } from './langgraph-runner.js';
import { randomDag, type BenchDag } from './random-dag.js';
import type { Bench, BenchReport } from './report.js';
import { checkSchedule, type Span } from './schedule-check.js';
import { sleep } from './sleep.js';
import { summarize } from './stats.js';
import { superstepBound } from './superstep-bound.js';
import { runWeft } from './weft-runner.js';

const DAG_COUNT = 100;

export const schedulerBench: Bench = {
  name: 'scheduler',
  async run(): Promise<BenchReport> {
    const notes = await correctnessNotes();
    const dags = Array.from({ length: DAG_COUNT }, (_, index) => randomDag(index + 1));
    // One engine after the other, not interleaved: LangGraph allocates enough to trigger major collections of
    // 100 ms and more, and interleaving would bill those pauses to whichever engine happened to run next.
    const weft = await weftPhase(dags);
    await sleep(200);
    const langGraph = await langGraphPhase(dags);

    const bounds = dags.map((dag) => criticalPath(dag.workflow, (id) => dag.latencyMs.get(id) ?? 0).length);
    const supersteps = dags.map((dag) => superstepBound(dag.workflow, (id) => dag.latencyMs.get(id) ?? 0));
    const weftOverBound = summarize(weft.map((run, index) => run.makespanMs / bounds[index]!));
    const weftOverMeasured = summarize(
      weft.map((run, index) => run.makespanMs / measuredBound(dags[index]!, run.spans)),
    );
    const langGraphOverBound = summarize(langGraph.map((makespan, index) => makespan / bounds[index]!));
    const langGraphOverSupersteps = summarize(langGraph.map((makespan, index) => makespan / supersteps[index]!));
    const versus = summarize(weft.map((run, index) => run.makespanMs / langGraph[index]!));
    const subtasks = dags.reduce((sum, dag) => sum + dag.workflow.subtasks.length, 0);
    return {
      title: `Scheduler: ${DAG_COUNT} random DAGs (20–200 subtasks, ${subtasks} in all), log-normal(3, 0.8) ms latencies`,
      rows: [
        { label: 'Weft makespan / critical path, p50', value: weftOverBound.p50 },
        {
          label: 'Weft makespan / critical path, p95',
          value: weftOverBound.p95,
          goal: { comparison: '<=', target: 1.05 },
        },
        { label: 'Weft makespan / critical path, max', value: weftOverBound.max },
        { label: 'Weft makespan / measured-latency critical path, p95', value: weftOverMeasured.p95 },
        { label: 'LangGraph makespan / critical path, p50', value: langGraphOverBound.p50 },
        { label: 'LangGraph makespan / superstep bound, p50', value: langGraphOverSupersteps.p50 },
        { label: 'LangGraph makespan / superstep bound, p95', value: langGraphOverSupersteps.p95 },
        { label: 'Weft / LangGraph makespan, p50', value: versus.p50, goal: { comparison: '<=', target: 0.7 } },
        { label: 'Weft / LangGraph makespan, p95', value: versus.p95 },
        { label: 'Weft / LangGraph makespan, mean', value: versus.mean, goal: { comparison: '<=', target: 0.7 } },
      ],
      notes: [
        ...notes,
        'Measured-latency critical path: the sleeps as they really lasted, so timer lateness is not billed to Weft.',
        'Superstep bound: the sum over longest-path levels of the slowest latency on the level, which is what a',
        'bulk-synchronous engine like LangGraph cannot beat; near 1 means LangGraph itself added little overhead.',
        'Near-chain DAGs leave no room between the two models, so the Weft / LangGraph p95 is close to 1 by nature.',
      ],
    };
  },
};

interface WeftSample {
  readonly makespanMs: number;
  readonly spans: Span[];
}

async function weftPhase(dags: readonly BenchDag[]): Promise<WeftSample[]> {
  await runWeft(dags[0]!); // warm-up, not counted
  const samples: WeftSample[] = [];
  for (const dag of dags) {
    const run = await runWeft(dag);
    if (run.status !== 'completed') throw new Error(`Weft ended ${run.status} on DAG ${dag.seed}`);
    samples.push({ makespanMs: run.makespanMs, spans: run.spans });
  }
  return samples;
}

async function langGraphPhase(dags: readonly BenchDag[]): Promise<number[]> {
  await buildLangGraph(dags[0]!.workflow, dags[0]!.latencyMs).run(); // warm-up, not counted
  const makespans: number[] = [];
  for (const dag of dags) {
    const run = await buildLangGraph(dag.workflow, dag.latencyMs).run();
    if (run.finished.length !== dag.workflow.subtasks.length) {
      throw new Error(
        `LangGraph ran ${run.finished.length} of ${dag.workflow.subtasks.length} nodes on DAG ${dag.seed}`,
      );
    }
    makespans.push(run.makespanMs);
  }
  return makespans;
}

function measuredBound(dag: BenchDag, spans: readonly Span[]): number {
  const durations = new Map(spans.map((span) => [span.id, span.end - span.start]));
  return criticalPath(dag.workflow, (id) => durations.get(id) ?? 0).length;
}

/** Both engines on a small DAG with joins: each node exactly once, never before its parents. */
async function correctnessNotes(): Promise<string[]> {
  const dag = randomDag(4242, { nodes: 30, depth: 6, extraParents: 3 });
  const joins = dag.workflow.subtasks.filter((subtask) => subtask.dependsOn.length > 1).length;
  const checks = {
    LangGraph: checkSchedule(dag.workflow, (await buildLangGraph(dag.workflow, dag.latencyMs).run()).spans),
    Weft: checkSchedule(dag.workflow, (await runWeft(dag)).spans),
  };
  return Object.entries(checks).map(([engine, check]) =>
    check.ok
      ? `Check ${engine}: each of the 30 nodes ran exactly once, after all its parents (${joins} joins): OK`
      : `Check ${engine}: FAILED: ${check.problems.slice(0, 5).join('; ')}`,
  );
}
