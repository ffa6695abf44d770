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
  /**
   * The nodes of `dependsOn` and those that depend on this one, filled by linkNodes: references, not ids, so
   * that a completion or a start touches its neighbours without a lookup in a map of the whole plan.
   */
  parents: this[];
  children: this[];
  /** Dependencies not completed yet. */
  pendingParents: number;
}

export function isReady(node: ReadyNode): boolean {
  return node.status === 'not started' && node.pendingParents === 0;
}

/**
 * Fills `parents`, `children` and `pendingParents` for a freshly loaded plan (whose nodes have empty `children`);
 * returns the ready ids in plan order.
 */
export function linkNodes<N extends ReadyNode>(order: readonly string[], nodes: ReadonlyMap<string, N>): string[] {
  const ready: string[] = [];
  for (const id of order) {
    const node = nodes.get(id)!;
    const parents: N[] = [];
    let pending = 0;
    for (const parentId of node.dependsOn) {
      const parent = nodes.get(parentId)!;
      parents.push(parent);
      parent.children.push(node);
      if (parent.status !== 'completed') pending += 1;
    }
    node.parents = parents;
    node.pendingParents = pending;
  }
  for (const id of order) if (isReady(nodes.get(id)!)) ready.push(id);
  return ready;
}

/** Marks `node` completed and appends each child that became ready to `ready`, in plan order. */
export function completeNode(node: ReadyNode, ready: string[]): void {
  node.status = 'completed';
  for (const child of node.children) {
    child.pendingParents -= 1;
    if (child.status === 'not started' && child.pendingParents === 0) ready.push(child.id);
  }
}
