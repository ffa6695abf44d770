/**
 * Seeded edits of a workflow text, for the WorfEval laws and benchmarks: relist in another topological order,
 * delete a node, add an edge. Each result is again a valid workflow text (acyclic, edges over known nodes).
 */
import { WeftError } from '../errors.js';
import type { RandomSource } from '../llm/seeded-random.js';
import type { EdgeSource, EdgeTarget, WorkflowText } from './workflow-text.js';

type Edge = readonly [EdgeSource, EdgeTarget];

/** The nodes listed in a random topological order, renumbered to match, with the edges renumbered too. */
export function relistWorkflowText(workflow: WorkflowText, random: RandomSource): WorkflowText {
  const count = workflow.nodes.length;
  const children = nodeChildren(workflow);
  const waiting = new Array<number>(count + 1).fill(0);
  for (const list of children) for (const child of list) waiting[child] = (waiting[child] ?? 0) + 1;
  const ready: number[] = [];
  for (let node = 1; node <= count; node++) if (waiting[node] === 0) ready.push(node);
  const order: number[] = [];
  while (ready.length > 0) {
    const node = ready.splice(Math.floor(random() * ready.length), 1)[0] ?? 0;
    order.push(node);
    for (const child of children[node] ?? []) {
      waiting[child] = (waiting[child] ?? 0) - 1;
      if (waiting[child] === 0) ready.push(child);
    }
  }
  if (order.length !== count) throw new WeftError('BAD_INPUT', 'relistWorkflowText: the workflow has a cycle');
  const renumber = new Array<number>(count + 1);
  order.forEach((node, index) => (renumber[node] = index + 1));
  return {
    nodes: order.map((node) => workflow.nodes[node - 1] ?? ''),
    edges: workflow.edges.map(
      ([from, to]): Edge => [from === 'START' ? from : (renumber[from] ?? 0), to === 'END' ? to : (renumber[to] ?? 0)],
    ),
  };
}

/**
 * Node `node` (1-based) removed; its parents are wired to its children so that what ran before it still runs
 * before what ran after it, and the later nodes are renumbered down by one.
 */
export function deleteNode(workflow: WorkflowText, node: number): WorkflowText {
  const parents = workflow.edges.filter(([, to]) => to === node).map(([from]) => from);
  const children = workflow.edges.filter(([from]) => from === node).map(([, to]) => to);
  const shift = <T extends EdgeSource | EdgeTarget>(end: T): T =>
    typeof end === 'number' && end > node ? ((end - 1) as T) : end;
  const kept: Edge[] = workflow.edges.filter(([from, to]) => from !== node && to !== node);
  for (const parent of parents)
    for (const child of children) if (!(parent === 'START' && child === 'END')) kept.push([parent, child]);
  const seen = new Set<string>();
  return {
    nodes: workflow.nodes.filter((_, index) => index + 1 !== node),
    edges: kept
      .map(([from, to]): Edge => [shift(from), shift(to)])
      .filter(([from, to]) => {
        const key = `${from}>${to}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      }),
  };
}

/** One random new edge that keeps the workflow acyclic (never START→END), or undefined when none exists. */
export function addRandomEdge(
  workflow: WorkflowText,
  random: RandomSource,
  allowed: (edge: Edge) => boolean = () => true,
): WorkflowText | undefined {
  const count = workflow.nodes.length;
  const children = nodeChildren(workflow);
  const present = new Set(workflow.edges.map(([from, to]) => `${from}>${to}`));
  const reaches = (from: number, target: number): boolean => {
    const stack = [from];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const node = stack.pop() ?? 0;
      if (node === target) return true;
      if (seen.has(node)) continue;
      seen.add(node);
      stack.push(...(children[node] ?? []));
    }
    return false;
  };
  const candidates: Edge[] = [];
  const sources: EdgeSource[] = ['START', ...Array.from({ length: count }, (_, index) => index + 1)];
  const targets: EdgeTarget[] = [...Array.from({ length: count }, (_, index) => index + 1), 'END'];
  for (const from of sources) {
    for (const to of targets) {
      if (from === to || (from === 'START' && to === 'END') || present.has(`${from}>${to}`)) continue;
      if (typeof from === 'number' && typeof to === 'number' && reaches(to, from)) continue;
      if (allowed([from, to])) candidates.push([from, to]);
    }
  }
  if (candidates.length === 0) return undefined;
  const edge = candidates[Math.floor(random() * candidates.length)];
  return edge ? { nodes: workflow.nodes, edges: [...workflow.edges, edge] } : undefined;
}

/** children[k] = the node numbers after node k (index 0 unused). */
function nodeChildren(workflow: WorkflowText): number[][] {
  const children: number[][] = Array.from({ length: workflow.nodes.length + 1 }, () => []);
  for (const [from, to] of workflow.edges)
    if (typeof from === 'number' && typeof to === 'number') children[from]?.push(to);
  return children;
}
