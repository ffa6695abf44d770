/**
 * Seeded random workflows for the benchmarks. Every subtask gets a rank (its index scaled to the DAG's depth);
 * each non-source subtask has one parent on the rank just below plus a few random parents on any lower rank, so
 * edges always run from a lower to a higher index. Depth and extra parents are drawn per DAG, so the set mixes
 * near-chains (few subtasks, many ranks) with wide fans (many subtasks, few ranks).
 */
import { levels, workflowFromJson, type Workflow, type WorkflowJson } from '../src/graph/index.js';
import { integerSample, lognormalSample, randomFrom, type RandomSource } from '../src/llm/seeded-random.js';

export const BENCH_ROLES = ['researcher', 'writer', 'coder', 'reviewer'] as const;

export interface DagShape {
  /** Subtask count (default: uniform in [20, 200]). */
  readonly nodes?: number;
  /** Number of ranks, i.e. the longest path in subtasks (default: uniform in [3, 10], at most `nodes`). */
  readonly depth?: number;
  /** Most random parents added on top of the one on the rank below (default: uniform in [0, 3]). */
  readonly extraParents?: number;
  /** Probability that a subtask above the first rank has no parent at all (default 0.05). */
  readonly sourceProbability?: number;
}

export interface LatencyModel {
  /** Log-normal parameters of one subtask's latency in milliseconds. */
  readonly mu: number;
  readonly sigma: number;
}

/** Median e³ ≈ 20 ms: a 100-node DAG of 6–8 ranks then takes about 0.2–0.4 s. */
export const DEFAULT_LATENCY: LatencyModel = { mu: 3, sigma: 0.8 };

export interface BenchDag {
  readonly seed: number;
  readonly workflow: Workflow;
  readonly depth: number;
  /** Milliseconds per subtask id. */
  readonly latencyMs: ReadonlyMap<string, number>;
}

export function randomDagJson(seed: number, shape: DagShape = {}): WorkflowJson {
  const random = randomFrom('bench-dag', seed);
  const nodes = shape.nodes ?? integerSample(random, 20, 200);
  const depth = Math.min(nodes, shape.depth ?? integerSample(random, 3, 10));
  const extraParents = shape.extraParents ?? integerSample(random, 0, 3);
  const sourceProbability = shape.sourceProbability ?? 0.05;
  if (!Number.isInteger(nodes) || nodes < 1) throw new RangeError(`Expected nodes >= 1, got ${nodes}`);
  if (!Number.isInteger(depth) || depth < 1) throw new RangeError(`Expected depth >= 1, got ${depth}`);

  const rankStarts = rankBoundaries(nodes, depth);
  const subtasks: WorkflowJson['subtasks'] = [];
  for (let index = 0; index < nodes; index++) {
    const rank = rankOf(index, nodes, depth);
    // The first subtask of each rank hangs under the first of the rank below: that chain makes the depth exact.
    const rankHead = index === rankStarts[rank];
    const parents =
      rank === 0 || (!rankHead && random() < sourceProbability)
        ? []
        : chooseParents(random, rankStarts, rank, extraParents, rankHead);
    subtasks.push({
      id: subtaskId(index),
      objective: `Benchmark step ${index + 1} (rank ${rank + 1} of ${depth})`,
      agent: BENCH_ROLES[integerSample(random, 0, BENCH_ROLES.length - 1)]!,
      dependsOn: parents.map(subtaskId),
    });
  }
  return {
    task: `Random benchmark DAG ${seed}: ${nodes} subtasks, ${depth} ranks`,
    roles: BENCH_ROLES.map((name) => ({ name, prompt: `You are the ${name}.` })),
    subtasks,
  };
}

export function randomDag(seed: number, shape: DagShape = {}, latency: LatencyModel = DEFAULT_LATENCY): BenchDag {
  const json = randomDagJson(seed, shape);
  const workflow = workflowFromJson(json);
  const latencyMs = new Map<string, number>();
  for (const subtask of workflow.subtasks) {
    // Seeded per id, so the latencies do not depend on the order anyone asks for them.
    latencyMs.set(
      subtask.id,
      lognormalSample(randomFrom('bench-latency', seed, subtask.id), latency.mu, latency.sigma),
    );
  }
  return { seed, workflow, depth: levels(workflow).length, latencyMs };
}

export function subtaskId(index: number): string {
  return `t${index + 1}`;
}

/** The rank of a subtask: indices are spread evenly over the ranks, in order. */
export function rankOf(index: number, nodes: number, depth: number): number {
  return Math.floor((index * depth) / nodes);
}

/** `starts[r]` is the first index on rank r; `starts[depth]` is `nodes`. */
function rankBoundaries(nodes: number, depth: number): number[] {
  const starts: number[] = [];
  for (let rank = 0; rank <= depth; rank++) starts.push(Math.ceil((rank * nodes) / depth));
  return starts;
}

function chooseParents(
  random: RandomSource,
  rankStarts: readonly number[],
  rank: number,
  extraParents: number,
  rankHead: boolean,
): number[] {
  const below = rankHead ? rankStarts[rank - 1]! : integerSample(random, rankStarts[rank - 1]!, rankStarts[rank]! - 1);
  const parents = new Set([below]);
  const extra = integerSample(random, 0, extraParents);
  for (let count = 0; count < extra; count++) parents.add(integerSample(random, 0, rankStarts[rank]! - 1));
  return [...parents].sort((a, b) => a - b);
}
