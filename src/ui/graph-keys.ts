/**
 * Keys of our own for a graph library that stores nodes in plain objects keyed by name (dagre's graphlib): a node
 * named `__proto__` there writes to Object.prototype of the whole process. Each distinct id gets `n0`, `n1`, … in
 * order of first appearance; map back with the same Map.
 */
export function graphKeys(ids: readonly string[]): Map<string, string> {
  const keys = new Map<string, string>();
  for (const id of ids) if (!keys.has(id)) keys.set(id, `n${keys.size}`);
  return keys;
}
