/**
 * Theorem 3.1 of the Flow paper (docs/algorithms.md#expected-completion), reproduced by the simulator: each subtask
 * fails verification with probability p, independently; with `strategy: 'none'` a failed subtask blocks its
 * descendants. For a few random DAGs (A) and the same DAGs with one extra dependency that adds an ancestor (B), the
 * mean number of completed subtasks over many seeds is compared with `expectedCompleted` = Σ_v
 * (1 − p)^(1 + |ancestors(v)|), and the simulated order with the theorem's E[S_A] > E[S_B].
 */
import { expectedCompleted, toWorkflowJson, workflowFromJson, type Workflow } from '../src/graph/index.js';
import { integerSample, randomFrom } from '../src/llm/seeded-random.js';
import { simModel } from '../src/llm/sim-model.js';
import { execute } from '../src/run/execution.js';
import { randomDag } from './random-dag.js';
import type { Bench, BenchReport } from './report.js';
import { mean } from './stats.js';

const SEEDS = 400;
const PROBABILITIES = [0.1, 0.3] as const;
/** Small and shallow enough that the lean graph still completes a fair share at p = 0.3. */
const SHAPES = [
  { dag: 1, nodes: 10, depth: 3 },
  { dag: 2, nodes: 14, depth: 4 },
  { dag: 3, nodes: 20, depth: 5 },
] as const;
/** |simulated − expected| in standard errors: with 18 comparisons, 4 is a fair alarm. */
const Z_LIMIT = 4;

interface Sample {
  readonly mean: number;
  readonly standardError: number;
}

export const theoremBench: Bench = {
  name: 'theorem',
  async run(): Promise<BenchReport> {
    const cells: string[][] = [];
    let largestZ = 0;
    let largestDifferenceZ = 0;
    let orderMatches = 0;
    let subsetViolations = 0;
    // Per p: verdicts that failed and verdicts given (every subtask that ran got one).
    const verdicts = new Map<number, { failed: number; total: number }>(
      PROBABILITIES.map((p) => [p, { failed: 0, total: 0 }]),
    );
    const notes: string[] = [];
    for (const shape of SHAPES) {
      const lean = randomDag(shape.dag, { nodes: shape.nodes, depth: shape.depth, extraParents: 1 }).workflow;
      const { from, to } = extraDependency(lean, shape.dag);
      const dense = withDependency(lean, from, to);
      notes.push(`DAG ${shape.dag}: ${shape.nodes} subtasks, ${edgeCount(lean)} edges; B adds ${from} → ${to}.`);
      for (const [pIndex, p] of PROBABILITIES.entries()) {
        const leanCounts: number[] = [];
        const denseCounts: number[] = [];
        // Every (DAG, p) row gets seeds of its own, so the rows are independent checks; A and B share them.
        const firstSeed = (shape.dag * PROBABILITIES.length + pIndex) * SEEDS + 1;
        for (let seed = firstSeed; seed < firstSeed + SEEDS; seed++) {
          const leanRun = await simulate(lean, p, seed);
          const denseRun = await simulate(dense, p, seed);
          leanCounts.push(leanRun.completed.size);
          denseCounts.push(denseRun.completed.size);
          // Same seed, same per-subtask draws: whatever B completes, A completes too.
          if ([...denseRun.completed].some((id) => !leanRun.completed.has(id))) subsetViolations += 1;
          const tally = verdicts.get(p)!;
          tally.failed += leanRun.failed + denseRun.failed;
          tally.total += leanRun.completed.size + leanRun.failed + denseRun.completed.size + denseRun.failed;
        }
        const expectedLean = expectedCompleted(lean, p);
        const expectedDense = expectedCompleted(dense, p);
        const simulatedLean = sampleOf(leanCounts);
        const simulatedDense = sampleOf(denseCounts);
        const difference = sampleOf(leanCounts.map((count, index) => count - denseCounts[index]!));
        const zLean = (simulatedLean.mean - expectedLean) / simulatedLean.standardError;
        const zDense = (simulatedDense.mean - expectedDense) / simulatedDense.standardError;
        const zDifference = (difference.mean - (expectedLean - expectedDense)) / difference.standardError;
        largestZ = Math.max(largestZ, Math.abs(zLean), Math.abs(zDense));
        largestDifferenceZ = Math.max(largestDifferenceZ, Math.abs(zDifference));
        const matches = expectedLean > expectedDense && simulatedLean.mean > simulatedDense.mean;
        if (matches) orderMatches += 1;
        cells.push([
          `DAG ${shape.dag}`,
          p.toFixed(2),
          expectedLean.toFixed(3),
          `${simulatedLean.mean.toFixed(3)} ± ${simulatedLean.standardError.toFixed(3)}`,
          expectedDense.toFixed(3),
          `${simulatedDense.mean.toFixed(3)} ± ${simulatedDense.standardError.toFixed(3)}`,
          (expectedLean - expectedDense).toFixed(3),
          `${difference.mean.toFixed(3)} ± ${difference.standardError.toFixed(3)}`,
          `${zLean.toFixed(1)} / ${zDense.toFixed(1)} / ${zDifference.toFixed(1)}`,
          matches ? 'yes' : 'NO',
        ]);
      }
    }
    const pairs = SHAPES.length * PROBABILITIES.length;
    return {
      title: `Theorem 3.1: expected completed subtasks, theory vs simulator (${SEEDS} seeds per graph, strategy none, sim fail = p)`,
      rows: [
        {
          label: 'pairs where simulated A > B (theorem order)',
          value: orderMatches,
          goal: { comparison: '>=', target: pairs },
        },
        {
          label: 'largest |simulated − expected| / SE, A and B',
          value: largestZ,
          goal: { comparison: '<=', target: Z_LIMIT },
        },
        {
          label: 'largest |simulated − expected| / SE, A − B',
          value: largestDifferenceZ,
          goal: { comparison: '<=', target: Z_LIMIT },
        },
        {
          label: 'runs where B completed a subtask A did not',
          value: subsetViolations,
          goal: { comparison: '<=', target: 0 },
        },
      ],
      table: {
        header: [
          'graph',
          'p',
          'E[S_A]',
          'sim A ± SE',
          'E[S_B]',
          'sim B ± SE',
          'E[S_A − S_B]',
          'sim A − B ± SE',
          'z A / B / A − B',
          'order',
        ],
        cells,
      },
      notes: [
        ...notes,
        `Observed verification failure rate: ${[...verdicts].map(([p, tally]) => `${((tally.failed / tally.total) * 100).toFixed(1)} % of ${tally.total} verdicts at p = ${p}`).join(', ')}.`,
        'A and B share seeds (common random numbers): the sim seeds each verdict by (seed, subtask id, attempt), so B',
        'never completes what A does not and the A − B column has a small SE; different seeds hash to independent draws.',
      ],
    };
  },
};

async function simulate(
  workflow: Workflow,
  p: number,
  seed: number,
): Promise<{ completed: Set<string>; failed: number }> {
  const result = await execute({
    workflow,
    model: simModel(`fail=${p},seed=${seed}`),
    strategy: 'none',
    verify: true,
    emit: () => {},
  });
  const completed = new Set(
    result.workflow.subtasks.filter((subtask) => subtask.status === 'completed').map((subtask) => subtask.id),
  );
  return { completed, failed: result.workflow.subtasks.filter((subtask) => subtask.status === 'failed').length };
}

/**
 * A seeded pick among the pairs (from, to) with `from` earlier in the input (random DAG edges run from lower to
 * higher index, so the new edge keeps the graph acyclic) and not yet an ancestor of `to`: the edge adds an ancestor.
 */
function extraDependency(workflow: Workflow, seed: number): { from: string; to: string } {
  const ancestors = new Map<string, Set<string>>();
  for (const subtask of workflow.subtasks) {
    const own = new Set<string>();
    for (const parent of subtask.dependsOn) {
      own.add(parent);
      for (const ancestor of ancestors.get(parent) ?? []) own.add(ancestor);
    }
    ancestors.set(subtask.id, own);
  }
  const candidates: { from: string; to: string }[] = [];
  workflow.subtasks.forEach((target, index) => {
    for (const source of workflow.subtasks.slice(0, index)) {
      if (!ancestors.get(target.id)!.has(source.id)) candidates.push({ from: source.id, to: target.id });
    }
  });
  if (candidates.length === 0) throw new Error('no dependency can be added: the DAG is already a total order');
  return candidates[integerSample(randomFrom('theorem-edge', seed), 0, candidates.length - 1)]!;
}

function withDependency(workflow: Workflow, from: string, to: string): Workflow {
  const json = toWorkflowJson(workflow);
  return workflowFromJson({
    ...json,
    subtasks: json.subtasks.map((subtask) =>
      subtask.id === to ? { ...subtask, dependsOn: [...subtask.dependsOn, from] } : subtask,
    ),
  });
}

function edgeCount(workflow: Workflow): number {
  return workflow.subtasks.reduce((sum, subtask) => sum + subtask.dependsOn.length, 0);
}

function sampleOf(values: readonly number[]): Sample {
  const average = mean(values);
  const variance = values.reduce((sum, value) => sum + (value - average) ** 2, 0) / (values.length - 1);
  return { mean: average, standardError: Math.sqrt(variance / values.length) };
}
