import { topologicalOrders } from '../graph/topological-order.js';
import type { Subtask } from '../graph/workflow.js';
import type { WorkflowText } from './workflow-text.js';

/**
 * The gold orders f1_chain is measured against (docs/algorithms.md#f1_chain): up to `limit` topological orders of the
 * gold graph, smallest node number first, as 0-based node indices. The first is the smallest-number-first order,
 * which is the gold chain whenever the chain is a topological order. When it is not (3 of the 2,146 WorfBench
 * records list a node before its parent), the chain as written is added too: it is the paper's gold node chain,
 * and scoring the gold against itself must give 1.
 */
export function referenceOrders(gold: WorkflowText, limit: number): number[][] {
  const orders = topologicalOrders({ subtasks: asSubtasks(gold) }, limit).map((order) =>
    order.map((id) => Number(id) - 1),
  );
  const chain = gold.nodes.map((_, index) => index);
  if (!orders.some((order) => order.every((node, position) => node === chain[position]))) orders.push(chain);
  return orders;
}

/** How many topological orders the gold graph has, counting up to `cap` (the benchmarks' distribution). */
export function countTopologicalOrders(workflow: WorkflowText, cap: number): number {
  return topologicalOrders({ subtasks: asSubtasks(workflow) }, cap).length;
}

function asSubtasks(workflow: WorkflowText): Subtask[] {
  const parents = workflow.nodes.map((): string[] => []);
  for (const [from, to] of workflow.edges) {
    if (typeof from === 'number' && typeof to === 'number') parents[to - 1]?.push(String(from));
  }
  return workflow.nodes.map((objective, index) => ({
    id: String(index + 1),
    objective,
    agent: 'worker',
    dependsOn: parents[index] ?? [],
    status: 'not started',
    attempts: 0,
  }));
}
