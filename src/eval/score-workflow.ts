/**
 * WorfEval (docs/algorithms.md#worfeval-scoring): a predicted workflow against its gold, given the node similarity
 * matrix. Pure and synchronous; `scoreWithSimilarity` computes the matrix first.
 */
import { longestIncreasingSubsequence } from './longest-increasing-subsequence.js';
import { matchNodes, type NodePair } from './match-nodes.js';
import { maximumIndependentSet } from './maximum-independent-set.js';
import { referenceOrders } from './reference-orders.js';
import {
  DEFAULT_BETA,
  DEFAULT_MAX_ORDERS,
  DEFAULT_MCIS_TIME_LIMIT_MS,
  type SampleScore,
  type ScoreOptions,
} from './sample-score.js';
import type { Similarity } from './similarity.js';
import type { WorkflowText } from './workflow-text.js';

/** `similarity[i][j]`: gold node i against predicted node j, before the β threshold. */
export function scoreWorkflow(
  gold: WorkflowText,
  predicted: WorkflowText,
  similarity: readonly (readonly number[])[],
  options: ScoreOptions = {},
): SampleScore {
  const beta = options.beta ?? DEFAULT_BETA;
  const pairs = matchNodes(similarity, gold.nodes.length, predicted.nodes.length, beta);
  const orders = referenceOrders(gold, options.maxOrders ?? DEFAULT_MAX_ORDERS);
  const chainLength = longestChain(pairs, orders);
  const graph = commonInducedSubgraph(gold, predicted, pairs, options.mcisTimeLimitMs ?? DEFAULT_MCIS_TIME_LIMIT_MS);
  const chain = precisionRecall(chainLength, predicted.nodes.length, gold.nodes.length);
  const subgraph = precisionRecall(graph.size, predicted.nodes.length, gold.nodes.length);
  return {
    f1_chain: chain.f1,
    p_chain: chain.precision,
    r_chain: chain.recall,
    f1_graph: subgraph.f1,
    p_graph: subgraph.precision,
    r_graph: subgraph.recall,
    matched: pairs.length,
    chainLength,
    graphNodes: graph.size,
    ordersChecked: orders.length,
    mcisExact: graph.exact,
  };
}

export async function scoreWithSimilarity(
  gold: WorkflowText,
  predicted: WorkflowText,
  similarity: Similarity,
  options: ScoreOptions & { readonly signal?: AbortSignal } = {},
): Promise<SampleScore> {
  const matrix = await similarity.matrix(gold.nodes, predicted.nodes, options.signal);
  return scoreWorkflow(gold, predicted, matrix, options);
}

/**
 * l: the predicted chain restricted to matched nodes, in predicted order, mapped to gold nodes; its longest
 * increasing subsequence of positions in each gold order; the best over the orders.
 */
function longestChain(pairs: readonly NodePair[], orders: readonly (readonly number[])[]): number {
  const goldInPredictedOrder = [...pairs].sort((a, b) => a[1] - b[1]).map(([gold]) => gold);
  let best = 0;
  for (const order of orders) {
    const position = new Array<number>(order.length);
    order.forEach((node, index) => (position[node] = index));
    best = Math.max(best, longestIncreasingSubsequence(goldInPredictedOrder.map((gold) => position[gold] ?? -1)));
    if (best === goldInPredictedOrder.length) break;
  }
  return best;
}

/**
 * k (docs/algorithms.md#f1_graph): START and END are matched to each other and always kept; with the correspondence
 * fixed by the matching, the largest set of pairs whose mutual edges agree in both directions. Pairs that disagree
 * with START or END are out; among the rest it is a maximum independent set of the "edges disagree" graph.
 */
function commonInducedSubgraph(
  gold: WorkflowText,
  predicted: WorkflowText,
  pairs: readonly NodePair[],
  timeLimitMs: number,
): { size: number; exact: boolean } {
  const goldEdges = edgeMatrix(gold);
  const predictedEdges = edgeMatrix(predicted);
  // Node slots: 0 = START, 1..n = nodes, n + 1 = END.
  const goldSlots = [0, gold.nodes.length + 1];
  const predictedSlots = [0, predicted.nodes.length + 1];
  const agree = (goldA: number, predictedA: number, goldB: number, predictedB: number): boolean =>
    goldEdges.has(goldA, goldB) === predictedEdges.has(predictedA, predictedB) &&
    goldEdges.has(goldB, goldA) === predictedEdges.has(predictedB, predictedA);
  const candidates = pairs
    .map(([goldNode, predictedNode]) => [goldNode + 1, predictedNode + 1] as const)
    .filter(([goldSlot, predictedSlot]) =>
      goldSlots.every((anchor, index) => agree(goldSlot, predictedSlot, anchor, predictedSlots[index] ?? 0)),
    );
  const conflicts = candidates.map(([goldA, predictedA]) =>
    candidates.map(([goldB, predictedB]) => !agree(goldA, predictedA, goldB, predictedB)),
  );
  const best = maximumIndependentSet(conflicts, { timeLimitMs });
  return { size: best.vertices.length, exact: best.exact };
}

interface EdgeMatrix {
  has(from: number, to: number): boolean;
}

function edgeMatrix(workflow: WorkflowText): EdgeMatrix {
  const size = workflow.nodes.length + 2;
  const cells = new Uint8Array(size * size);
  const slot = (end: number | 'START' | 'END'): number => (end === 'START' ? 0 : end === 'END' ? size - 1 : end);
  for (const [from, to] of workflow.edges) cells[slot(from) * size + slot(to)] = 1;
  return { has: (from, to) => cells[from * size + to] === 1 };
}

function precisionRecall(
  hits: number,
  predictedCount: number,
  goldCount: number,
): { precision: number; recall: number; f1: number } {
  if (hits === 0) return { precision: 0, recall: 0, f1: 0 };
  const precision = hits / predictedCount;
  const recall = hits / goldCount;
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall) };
}
