/** Small hand-built WorkflowText values and an exact-text similarity, for the scoring tests. */
import type { EdgeSource, EdgeTarget, WorkflowText } from '../../src/eval/workflow-text.js';

type End = number | 'S' | 'E';

/** `workflow(['a', 'b'], 'S1 12 2E')`: edges written as `from` `to` pairs, S = START, E = END. */
export function workflow(nodes: readonly string[], edges: readonly (readonly [End, End])[]): WorkflowText {
  return {
    nodes,
    edges: edges.map(
      ([from, to]) => [from === 'S' ? 'START' : (from as EdgeSource), to === 'E' ? 'END' : (to as EdgeTarget)] as const,
    ),
  };
}

/** A chain START → 1 → … → n → END. */
export function chain(nodes: readonly string[]): WorkflowText {
  const edges: [End, End][] = [['S', 1]];
  for (let node = 1; node < nodes.length; node++) edges.push([node, node + 1]);
  edges.push([nodes.length, 'E']);
  return workflow(nodes, edges);
}

/** 1 for equal texts, 0 otherwise: isolates the graph algorithms from any similarity model. */
export function exactSimilarity(gold: WorkflowText, predicted: WorkflowText): number[][] {
  return gold.nodes.map((a) => predicted.nodes.map((b) => (a === b ? 1 : 0)));
}
