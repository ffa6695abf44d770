/**
 * Inputs for the WorfEval benchmarks: a seeded perturbation of a gold workflow (the kind of difference a real
 * prediction has), adversarial 30-node cases for the MCIS search, and the topological-order histogram of the
 * paper's Table 7. Pure and seeded.
 */
import { addRandomEdge, deleteNode, relistWorkflowText } from '../src/eval/perturb-workflow-text.js';
import type { EdgeSource, EdgeTarget, WorkflowText } from '../src/eval/workflow-text.js';
import { integerSample, randomFrom, shuffled, type RandomSource } from '../src/llm/seeded-random.js';

/** Small word swaps that keep a step's meaning: "reword one node slightly". */
const SWAPS: Readonly<Record<string, string>> = {
  the: 'a',
  a: 'the',
  with: 'using',
  using: 'with',
  and: 'plus',
  to: 'into',
  from: 'out of',
  for: 'regarding',
  of: 'in',
};

/** One node's text changed slightly: a swapped small word when it has one, else a word added at the end. */
export function rewordSlightly(text: string, random: RandomSource): string {
  const words = text.split(' ');
  const swappable = words.flatMap((word, index) => (SWAPS[word.toLowerCase()] !== undefined ? [index] : []));
  if (swappable.length === 0) return `${text} first`;
  const index = swappable[integerSample(random, 0, swappable.length - 1)]!;
  words[index] = SWAPS[words[index]!.toLowerCase()]!;
  return words.join(' ');
}

export interface Perturbation {
  readonly workflow: WorkflowText;
  /** What was done, for notes: e.g. `relist, reword 3, delete 5, add (2,4)`. */
  readonly steps: readonly string[];
}

/**
 * The gold relisted in another topological order and renumbered, one node reworded slightly, one node deleted
 * (when there are at least two), one edge added that keeps it acyclic. Always a valid workflow text.
 */
export function perturbGold(gold: WorkflowText, seed: number): Perturbation {
  const random = randomFrom('worfeval-perturb', seed);
  const steps: string[] = ['relist'];
  let workflow = relistWorkflowText(gold, random);
  const reworded = integerSample(random, 1, workflow.nodes.length);
  workflow = {
    nodes: workflow.nodes.map((text, index) => (index + 1 === reworded ? rewordSlightly(text, random) : text)),
    edges: workflow.edges,
  };
  steps.push(`reword ${reworded}`);
  if (workflow.nodes.length > 1) {
    const deleted = integerSample(random, 1, workflow.nodes.length);
    workflow = deleteNode(workflow, deleted);
    steps.push(`delete ${deleted}`);
  }
  const added = addRandomEdge(workflow, random);
  if (added) {
    const edge = added.edges[added.edges.length - 1]!;
    steps.push(`add (${edge[0]},${edge[1]})`);
    workflow = added;
  }
  return { workflow, steps };
}

export interface AdversarialCase {
  readonly gold: WorkflowText;
  readonly predicted: WorkflowText;
  /** Identity on node texts: every node is matched to its copy. */
  readonly similarity: number[][];
}

/**
 * A hard case for the MCIS search: a dense random DAG on `nodes` nodes and a copy with a fraction `flip` of
 * its node pairs toggled (edge added or removed, always from the earlier to the later node, so both stay
 * acyclic), listed in a shuffled order. START precedes and END follows every node in both, so no pair is
 * excluded by the anchors and the search sees all `nodes` pairs; its conflict graph is the toggled pairs.
 */
export function adversarialCase(
  seed: number,
  options: { nodes: number; density: number; flip: number },
): AdversarialCase {
  const random = randomFrom('worfeval-adversarial', seed);
  const { nodes: count, density, flip } = options;
  const texts = Array.from({ length: count }, (_, index) => `step ${index + 1} of case ${seed}`);
  const goldPairs: [number, number][] = [];
  const predictedPairs: [number, number][] = [];
  for (let to = 2; to <= count; to++) {
    for (let from = 1; from < to; from++) {
      const present = random() < density;
      if (present) goldPairs.push([from, to]);
      if (present !== random() < flip) predictedPairs.push([from, to]);
    }
  }
  const anchored = (
    pairs: readonly [number, number][],
    numberOf: (node: number) => number,
  ): (readonly [EdgeSource, EdgeTarget])[] => [
    ...texts.map((_, index) => ['START', numberOf(index + 1)] as const),
    ...pairs.map(([from, to]) => [numberOf(from), numberOf(to)] as const),
    ...texts.map((_, index) => [numberOf(index + 1), 'END'] as const),
  ];
  const gold: WorkflowText = { nodes: texts, edges: anchored(goldPairs, (node) => node) };
  // The prediction lists the same nodes in another order (any order: START reaches all, so numbering is free).
  const order = shuffled(
    random,
    texts.map((_, index) => index + 1),
  );
  const position = new Map(order.map((node, index) => [node, index + 1]));
  const predicted: WorkflowText = {
    nodes: order.map((node) => texts[node - 1]!),
    edges: anchored(predictedPairs, (node) => position.get(node)!),
  };
  const similarity = gold.nodes.map((a) => predicted.nodes.map((b) => (a === b ? 1 : 0)));
  return { gold, predicted, similarity };
}

/** The buckets of the paper's Table 7 (cumulative: at most this many topological orders). */
export const ORDER_BUCKETS = [1, 5, 10, 20, 50, 100] as const;

/** Percent of graphs with at most b orders for each bucket b, then the percent with more than the last. */
export function orderCountDistribution(counts: readonly number[]): {
  atMost: { bucket: number; percent: number }[];
  above: number;
} {
  const percent = (n: number) => (counts.length === 0 ? 0 : (100 * n) / counts.length);
  const last = ORDER_BUCKETS[ORDER_BUCKETS.length - 1]!;
  return {
    atMost: ORDER_BUCKETS.map((bucket) => ({
      bucket,
      percent: percent(counts.filter((count) => count <= bucket).length),
    })),
    above: percent(counts.filter((count) => count > last).length),
  };
}

/** Table 7 of the WorfBench paper: percent of workflows with at most b topological orders. */
export const PAPER_TABLE_7: Readonly<Record<number, number>> = {
  5: 86.39,
  10: 92.82,
  20: 96.01,
  50: 98.22,
  100: 98.32,
};
