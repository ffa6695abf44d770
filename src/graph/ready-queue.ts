import type { SubtaskStatus } from './workflow.js';

/**
 * The incremental form of `readyTasks` (ready-tasks.ts), for the executor: each node counts its unfinished
 * parents, so accepting a subtask costs O(children) instead of a pass over the plan. A node is ready exactly when
 * `readyTasks` would list it: not started, with every dependency completed (test/graph/ready-queue.test.ts and the
 * executor's property test hold it to that).
 */
export interface ReadyNode {
  readonly id: string;
  status: SubtaskStatus;
  dependsOn: string[];
  children: string[];
  /** Dependencies not completed yet. */
  pendingParents: number;
}

export function isReady(node: ReadyNode): boolean {
  return node.status === 'not started' && node.pendingParents === 0;
}

/** Fills `children` and `pendingParents` for a freshly loaded plan; returns the ready ids in plan order. */
export function linkNodes(order: readonly string[], nodes: ReadonlyMap<string, ReadyNode>): string[] {
  for (const id of order) {
    const node = nodes.get(id)!;
    for (const parent of node.dependsOn) nodes.get(parent)!.children.push(id);
    node.pendingParents = node.dependsOn.filter((parent) => nodes.get(parent)!.status !== 'completed').length;
  }
  return order.filter((id) => isReady(nodes.get(id)!));
}

/** Marks `node` completed and appends each child that became ready to `ready`, in plan order. */
export function completeNode(node: ReadyNode, nodes: ReadonlyMap<string, ReadyNode>, ready: string[]): void {
  node.status = 'completed';
  for (const childId of node.children) {
    const child = nodes.get(childId)!;
    child.pendingParents -= 1;
    if (child.status === 'not started' && child.pendingParents === 0) ready.push(childId);
  }
}
