/**
 * Agent Importance Scores (docs/algorithms.md#importance-scores, DyLAN §3.4): forward ratings, backward aggregation.
 * Pure.
 *
 * 1. Each node's ratings of its peers are normalised to sum 1: w(t−1, j → t, i). A node whose ratings cannot be
 *    used (none, wrong count, non-positive sum) spreads its weight equally over its peers.
 * 2. The last layer's contribution (1 in total) goes in equal parts to the nodes that agree with the final
 *    answer; for `code` also to nodes whose own tests all passed (working code counts even when it reads
 *    differently). If none qualifies (cannot happen when the final answer is a majority of that layer, but
 *    guarded) it is spread over every node of the layer.
 * 3. Backwards: I(t−1, j) = Σ_i I(t, i) · w(t−1, j → t, i), where node i's `peers` name the agents j it saw.
 *    A peer name missing from layer t−1 would leak mass, so a node whose peers are all unknown spreads its
 *    contribution over the whole previous layer; known peers keep their normalised share among themselves.
 * Every layer therefore sums to 1. Agents dropped by the reformation keep what they earned in earlier layers;
 * total[a] = Σ_t I(t, a), over every agent that appears in any layer.
 */
import { answersAgree } from './answers-agree.js';
import type { AnswerKind, TeamNode } from './team.js';

export type ImportanceNode = Pick<TeamNode, 'agent' | 'answer' | 'peers' | 'ratings'> &
  Partial<Pick<TeamNode, 'tests'>>;

export interface ImportanceScores {
  /** I(t, a) for t = 1..T (index t−1); each sums to 1. */
  readonly byLayer: Record<string, number>[];
  readonly total: Record<string, number>;
}

export function importanceScores(
  layers: readonly (readonly ImportanceNode[])[],
  finalAnswer: string,
  kind: AnswerKind,
): ImportanceScores {
  const byLayer: Record<string, number>[] = layers.map((layer) =>
    Object.fromEntries(layer.map((node) => [node.agent, 0])),
  );
  const last = layers.length - 1;
  const lastLayer = layers[last];
  if (lastLayer && lastLayer.length > 0) {
    const credited = lastLayer.filter((node) => isCredited(node, finalAnswer, kind));
    const receivers = credited.length > 0 ? credited : lastLayer;
    for (const node of receivers) byLayer[last]![node.agent]! += 1 / receivers.length;
  }
  for (let t = last; t > 0; t--) {
    const previous = byLayer[t - 1]!;
    for (const node of layers[t]!) {
      const contribution = byLayer[t]![node.agent]!;
      if (contribution === 0) continue;
      for (const [agent, weight] of peerWeights(node, previous)) previous[agent]! += contribution * weight;
    }
  }
  const total: Record<string, number> = {};
  for (const layer of byLayer)
    for (const [agent, value] of Object.entries(layer)) total[agent] = (total[agent] ?? 0) + value;
  return { byLayer, total };
}

function isCredited(node: ImportanceNode, finalAnswer: string, kind: AnswerKind): boolean {
  if (answersAgree(node.answer, finalAnswer, kind)) return true;
  return kind === 'code' && node.tests !== undefined && node.tests.total > 0 && node.tests.passed === node.tests.total;
}

/** w(t−1, j → t, i) for the peers j of node i that exist in the previous layer; sums to 1. */
export function peerWeights(
  node: Pick<ImportanceNode, 'peers' | 'ratings'>,
  previous: Readonly<Record<string, number>>,
): [string, number][] {
  const known = node.peers
    .map((agent, index) => ({ agent, rating: node.ratings[index] }))
    .filter((p) => p.agent in previous);
  if (known.length === 0) {
    const all = Object.keys(previous);
    return all.map((agent) => [agent, 1 / all.length]);
  }
  const usable =
    node.ratings.length === node.peers.length &&
    known.every((p) => typeof p.rating === 'number' && Number.isFinite(p.rating) && p.rating >= 0);
  const sum = usable ? known.reduce((s, p) => s + p.rating!, 0) : 0;
  if (sum <= 0) return known.map((p) => [p.agent, 1 / known.length]);
  return known.map((p) => [p.agent, p.rating! / sum]);
}
