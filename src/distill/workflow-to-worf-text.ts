/**
 * An executable workflow as WorfBench node/edge text (docs/algorithms.md#executable-workflows-as-worfbench-text), so
 * WorfEval can score a distilled workflow against a reference one. The nodes are the steps a reader would list:
 * each tool node (`Call find_customer with email`) and each condition (`Check whether …`). Set nodes are
 * bookkeeping and forEach nodes stand for their bodies: both are left out, their edges bridged. Loops become a
 * single pass (the edge that goes back is dropped; a forEach body leads on to what follows the loop), so the
 * result is a DAG; `START` leads to the first steps, every end node is `END`, and every step with no successor
 * leads to `END`. Pure; linear in the size of the workflow apart from the sets of bridged targets.
 */
import type { EdgeSource, EdgeTarget, WorkflowText } from '../eval/workflow-text.js';
import { expressionOf, type ExecutableWorkflow, type WorkflowNode } from './workflow.js';

/** Node texts longer than this are cut (a model-written expression can be long). */
const MAX_NODE_TEXT = 200;

type Target = string | typeof END;
const END = Symbol('END');

/**
 * The workflow's steps as WorfBench text, numbered in the order a reader meets them (a topological order that
 * takes the ready step met first when following the edges in the file's order, loop bodies before what follows
 * them). A workflow with no tool and no condition has no nodes. Works on any workflow (an invalid one gives
 * a best effort, never an exception); `formatWorkflowText` writes it out.
 */
export function workflowToWorfText(workflow: Pick<ExecutableWorkflow, 'nodes' | 'edges'>): WorkflowText {
  const byId = new Map<string, WorkflowNode>();
  for (const node of workflow.nodes) if (!byId.has(node.id)) byId.set(node.id, node);
  // Sets, not lists: a condition may have thousands of edges, and checking a list for repeats would be quadratic.
  const outSets = new Map<string, Set<string>>();
  const whenValues = new Map<string, unknown[]>();
  for (const edge of workflow.edges) {
    if (!byId.has(edge.from) || !byId.has(edge.to)) continue;
    const targets = outSets.get(edge.from) ?? new Set();
    targets.add(edge.to);
    outSets.set(edge.from, targets);
    if (edge.when !== undefined) {
      const values = whenValues.get(edge.from) ?? [];
      values.push(edge.when);
      whenValues.set(edge.from, values);
    }
  }
  const out = new Map([...outSets].map(([from, targets]) => [from, [...targets]]));
  const exitOf = (node: WorkflowNode): string | undefined =>
    node.kind === 'forEach' ? (out.get(node.id) ?? []).find((to) => to !== node.body) : undefined;

  // 1. A depth-first walk from the start that keeps only forward edges: an edge back to a node on the stack closes
  //    a loop and is dropped, except that an edge back to a forEach is its body ending, which leads on to the
  //    forEach's exit. A forEach goes into its body first; its own edge to the exit stays only when the body never
  //    comes back (it always ends the workflow instead).
  const start = workflow.nodes.find((node) => node.kind === 'start');
  const dag = new Map<string, Set<string>>();
  const preorder = new Map<string, number>();
  const postorder: string[] = [];
  const onStack = new Set<string>();
  const loopsBack = new Set<string>();
  if (start) {
    const successorsOf = (node: WorkflowNode): string[] => {
      // A run stops at an end, whatever edges (wrongly) leave it.
      if (node.kind === 'end') return [];
      if (node.kind !== 'forEach') return out.get(node.id) ?? [];
      const exit = exitOf(node);
      return [...(byId.has(node.body) ? [node.body] : []), ...(exit !== undefined ? [exit] : [])];
    };
    const frames: { node: WorkflowNode; next: string[]; at: number }[] = [];
    const enter = (node: WorkflowNode) => {
      preorder.set(node.id, preorder.size);
      onStack.add(node.id);
      dag.set(node.id, new Set());
      frames.push({ node, next: successorsOf(node), at: 0 });
    };
    enter(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      if (frame.at >= frame.next.length) {
        frames.pop();
        onStack.delete(frame.node.id);
        postorder.push(frame.node.id);
        continue;
      }
      let to: string | undefined = frame.next[frame.at++]!;
      const target = byId.get(to)!;
      if (frame.node.kind === 'forEach' && to === exitOf(frame.node) && loopsBack.has(frame.node.id)) continue;
      if (onStack.has(to) && target.kind === 'forEach' && frame.node.id !== to) {
        loopsBack.add(to);
        to = exitOf(target);
      }
      if (to === undefined || onStack.has(to)) continue;
      dag.get(frame.node.id)!.add(to);
      if (!preorder.has(to)) enter(byId.get(to)!);
    }
  }

  // 2. Bridge the nodes that are not steps: what each node leads to among steps and END, in postorder so every
  //    successor is done first. A set or start node has one successor and shares its set.
  const isStep = (node: WorkflowNode) => node.kind === 'tool' || node.kind === 'condition';
  const leadsTo = new Map<string, ReadonlySet<Target>>();
  const targetsOf = (id: string): Set<Target> => {
    const targets = new Set<Target>();
    for (const next of dag.get(id) ?? []) {
      const node = byId.get(next)!;
      if (isStep(node)) targets.add(next);
      else if (node.kind === 'end') targets.add(END);
      else for (const target of leadsTo.get(next) ?? []) targets.add(target);
    }
    return targets;
  };
  const stepEdges = new Map<string, Set<Target>>();
  for (const id of postorder) {
    const node = byId.get(id)!;
    const successors = [...(dag.get(id) ?? [])];
    const only = successors.length === 1 ? byId.get(successors[0]!)! : undefined;
    if (isStep(node)) stepEdges.set(id, targetsOf(id));
    else if (only && !isStep(only) && only.kind !== 'end') leadsTo.set(id, leadsTo.get(only.id) ?? new Set());
    else leadsTo.set(id, targetsOf(id));
  }

  // 3. Number the steps: Kahn's algorithm, the ready step met first in the walk going first.
  const steps = [...stepEdges.keys()].sort((a, b) => preorder.get(a)! - preorder.get(b)!);
  const waiting = new Map(steps.map((id) => [id, 0]));
  for (const targets of stepEdges.values())
    for (const target of targets) if (target !== END) waiting.set(target, waiting.get(target)! + 1);
  const ready = steps.filter((id) => waiting.get(id) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.shift()!;
    order.push(id);
    for (const target of stepEdges.get(id)!) {
      if (target === END) continue;
      const left = waiting.get(target)! - 1;
      waiting.set(target, left);
      if (left === 0) insertByWalk(ready, target, preorder);
    }
  }
  const numberOf = new Map(order.map((id, index) => [id, index + 1]));

  // 4. Edges in WorfBench's order: from START, between steps by (from, to), then to END.
  const fromStart = [...(start ? (leadsTo.get(start.id) ?? []) : [])]
    .filter((target): target is string => target !== END)
    .map((id) => numberOf.get(id)!)
    .sort((a, b) => a - b);
  const between: [number, number][] = [];
  const toEnd: number[] = [];
  for (const id of order) {
    const from = numberOf.get(id)!;
    const targets = stepEdges.get(id)!;
    for (const target of targets) if (target !== END) between.push([from, numberOf.get(target)!]);
    if (targets.has(END) || targets.size === 0) toEnd.push(from);
  }
  between.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const edges: (readonly [EdgeSource, EdgeTarget])[] = [
    ...fromStart.map((to) => ['START', to] as const),
    ...between,
    ...toEnd.map((from) => [from, 'END'] as const),
  ];
  return { nodes: order.map((id) => stepText(byId.get(id)!, whenValues.get(id) ?? [])), edges };
}

/**
 * `Call add with a and b`, `Check whether i < n`, `Check whether tier is "gold" or "silver"`; `values` are the `when`
 * values of a condition's edges.
 */
export function stepText(node: WorkflowNode, values: readonly unknown[] = []): string {
  let text: string;
  if (node.kind === 'tool') {
    const args = Object.keys(node.args ?? {});
    text = `Call ${node.tool}${args.length > 0 ? ` with ${listed(args)}` : ''}`;
  } else if (node.kind === 'condition') {
    const test = readable(expressionOf(node.expr) ?? node.expr);
    text = values.every((value) => typeof value === 'boolean')
      ? `Check whether ${test}`
      : `Check whether ${test} is ${listed(
          values.map((value) => JSON.stringify(value)),
          'or',
        )}`;
  } else {
    text = node.kind;
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= MAX_NODE_TEXT ? line : `${line.slice(0, MAX_NODE_TEXT - 1).trimEnd()}…`;
}

/** A JSONata test as a reader says it: `vars.` and `inputs.` go (`vars.i < inputs.n` → `i < n`). */
function readable(expression: string): string {
  return expression.replace(/(?<![\w$.])(?:vars|inputs)\.(?=[A-Za-z_$])/g, '');
}

function listed(words: readonly string[], conjunction = 'and'): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${conjunction} ${words[words.length - 1]}`;
}

/** Keeps `ready` sorted by walk order (binary search: a wide fan-out must not make this quadratic). */
function insertByWalk(ready: string[], id: string, preorder: ReadonlyMap<string, number>): void {
  const rank = preorder.get(id)!;
  let low = 0;
  let high = ready.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (preorder.get(ready[middle]!)! < rank) low = middle + 1;
    else high = middle;
  }
  ready.splice(low, 0, id);
}
