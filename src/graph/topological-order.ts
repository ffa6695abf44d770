import { WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { indexDependencies, type DependencyIndex } from './dependency-index.js';
import type { Workflow } from './workflow.js';

/**
 * One topological order (Kahn), taking the ready subtask that comes first in the input. That tie
 * rule is WorfBench's: the gold node chain is this order of the gold graph
 * (docs/algorithms.md#worfbench-workflow-text). Throws PLAN_INVALID naming the cycle when there is one.
 */
export function topologicalOrder(workflow: Pick<Workflow, 'subtasks'>): string[] {
  const index = indexDependencies(workflow);
  return orderPositions(index).map((position) => index.ids[position] ?? '');
}

/** Positions in topological order; throws on a cycle. Shared with levels and the critical path. */
export function orderPositions(index: DependencyIndex): number[] {
  const waitingOn = index.parents.map((parents) => parents.length);
  const ready: number[] = [];
  waitingOn.forEach((count, position) => {
    if (count === 0) ready.push(position);
  });
  const order: number[] = [];
  while (ready.length > 0) {
    // `ready` stays sorted, so the first entry is the earliest in the input.
    const position = ready.shift() ?? 0;
    order.push(position);
    for (const child of index.children[position] ?? []) {
      const remaining = (waitingOn[child] ?? 0) - 1;
      waitingOn[child] = remaining;
      if (remaining === 0) insertSorted(ready, child);
    }
  }
  if (order.length < index.ids.length) throw cycleError(index);
  return order;
}

/**
 * Up to `limit` distinct topological orders, depth first, earliest-ready choice first, so the first
 * order is `topologicalOrder`'s. WorfEval scores a predicted chain against several (at most 20,
 * docs/algorithms.md#f1_chain).
 */
export function topologicalOrders(workflow: Pick<Workflow, 'subtasks'>, limit: number): string[][] {
  if (limit !== Number.POSITIVE_INFINITY) integerOption(limit, 'limit', { min: 1 });
  const index = indexDependencies(workflow);
  orderPositions(index); // fails on a cycle before the search starts
  const count = index.ids.length;
  const waitingOn = index.parents.map((parents) => parents.length);
  const placed = new Array<boolean>(count).fill(false);
  const current: number[] = [];
  const orders: string[][] = [];

  // Returns true once enough orders are found, to unwind the search.
  const extend = (): boolean => {
    if (current.length === count) {
      orders.push(current.map((position) => index.ids[position] ?? ''));
      return orders.length >= limit;
    }
    for (let position = 0; position < count; position++) {
      if (placed[position] || waitingOn[position] !== 0) continue;
      placed[position] = true;
      current.push(position);
      for (const child of index.children[position] ?? []) waitingOn[child] = (waitingOn[child] ?? 0) - 1;
      const done = extend();
      for (const child of index.children[position] ?? []) waitingOn[child] = (waitingOn[child] ?? 0) + 1;
      current.pop();
      placed[position] = false;
      if (done) return true;
    }
    return false;
  };
  extend();
  return orders;
}

/**
 * A directed cycle among `nodes`, or undefined. Edges are `[from, to]` (from must finish first);
 * edges naming nodes outside `nodes` are ignored. The cycle is listed in edge direction, starting at
 * its node that comes first in `nodes`, without repeating it at the end: `['a', 'b', 'c']` means
 * a → b → c → a. Deterministic: nodes and edges are visited in the given order.
 */
export function findCycle(
  nodes: readonly string[],
  edges: readonly (readonly [from: string, to: string])[],
): string[] | undefined {
  const positionOf = new Map<string, number>();
  nodes.forEach((node, position) => {
    if (!positionOf.has(node)) positionOf.set(node, position);
  });
  const successors: number[][] = nodes.map(() => []);
  for (const [from, to] of edges) {
    const source = positionOf.get(from);
    const target = positionOf.get(to);
    if (source !== undefined && target !== undefined) successors[source]?.push(target);
  }

  const NEW = 0;
  const ON_PATH = 1;
  const DONE = 2;
  const state = new Array<number>(nodes.length).fill(NEW);
  // Iterative depth-first search: long dependency chains must not overflow the call stack.
  for (let start = 0; start < nodes.length; start++) {
    if (state[start] !== NEW) continue;
    const path: { node: number; next: number }[] = [{ node: start, next: 0 }];
    state[start] = ON_PATH;
    while (path.length > 0) {
      const frame = path[path.length - 1];
      if (!frame) break;
      const targets = successors[frame.node] ?? [];
      if (frame.next >= targets.length) {
        state[frame.node] = DONE;
        path.pop();
        continue;
      }
      const target = targets[frame.next++] ?? 0;
      if (state[target] === ON_PATH) {
        const cycle = path.slice(path.findIndex((entry) => entry.node === target)).map((entry) => entry.node);
        const first = cycle.indexOf(Math.min(...cycle));
        return [...cycle.slice(first), ...cycle.slice(0, first)].map((position) => nodes[position] ?? '');
      }
      if (state[target] === NEW) {
        state[target] = ON_PATH;
        path.push({ node: target, next: 0 });
      }
    }
  }
  return undefined;
}

function cycleError(index: DependencyIndex): WeftError {
  const edges = index.parents.flatMap((parents, child) =>
    parents.map((parent): [string, string] => [index.ids[parent] ?? '', index.ids[child] ?? '']),
  );
  const cycle = findCycle(index.ids, edges) ?? [];
  return new WeftError('PLAN_INVALID', `cycle: ${[...cycle, cycle[0]].join(' -> ')}`);
}

function insertSorted(sorted: number[], value: number): void {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] ?? 0) < value) low = middle + 1;
    else high = middle;
  }
  sorted.splice(low, 0, value);
}

/**
 * Every cycle that shares no node with an earlier one. Removing a found cycle's nodes and searching again reports
 * independent cycles without listing the many variants of one tangle.
 */
export function independentCycles(nodes: readonly string[], edges: readonly (readonly [string, string])[]): string[][] {
  const cycles: string[][] = [];
  let remaining = nodes;
  for (;;) {
    const cycle = findCycle(remaining, edges);
    if (!cycle) return cycles;
    cycles.push(cycle);
    const inCycle = new Set(cycle);
    remaining = remaining.filter((id) => !inCycle.has(id));
  }
}
