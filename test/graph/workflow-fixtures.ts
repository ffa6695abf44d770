import fc from 'fast-check';
import { workflowFromJson, type SubtaskStatus, type Workflow } from '../../src/graph/index.js';

/**
 * A workflow from `{ id: [dependencies] }`, subtasks in key order, through the real parser so that
 * fixtures are always valid workflows.
 */
export function workflowOf(dependencies: Record<string, string[]>, task = 'test task'): Workflow {
  return workflowFromJson({
    task,
    subtasks: Object.entries(dependencies).map(([id, dependsOn]) => ({
      id,
      objective: `do ${id}`,
      agent: 'worker',
      dependsOn,
    })),
  });
}

/** A random DAG with its edges kept separately (as ids), so tests can check results against them. */
export interface RandomDag {
  readonly workflow: Workflow;
  /** Ids in generation order: every edge goes from a lower to a higher generation index. */
  readonly generationOrder: readonly string[];
  readonly edges: readonly (readonly [from: string, to: string])[];
}

const idArbitrary = fc.stringMatching(/^[a-z][a-z0-9-]{0,5}$/);
const statusArbitrary = fc.constantFrom<SubtaskStatus>('not started', 'in progress', 'completed', 'failed');

/**
 * Node count, then edges only from lower to higher generation index (so the graph is acyclic), then
 * random ids and a random input order, so input order says nothing about the topology.
 */
export function randomDag(options: { maxNodes?: number; varied?: boolean } = {}): fc.Arbitrary<RandomDag> {
  const maxNodes = options.maxNodes ?? 9;
  return fc.integer({ min: 1, max: maxNodes }).chain((count) => {
    const pairs: [number, number][] = [];
    for (let to = 0; to < count; to++) for (let from = 0; from < to; from++) pairs.push([from, to]);
    return fc
      .record({
        ids: fc.uniqueArray(idArbitrary, { minLength: count, maxLength: count }),
        chosen: fc.subarray(pairs),
        inputOrder: fc.shuffledSubarray([...Array(count).keys()], { minLength: count, maxLength: count }),
        details: fc.array(
          fc.record({
            status: statusArbitrary,
            attempts: fc.nat(5),
            output: fc.option(fc.string(), { nil: undefined }),
          }),
          { minLength: count, maxLength: count },
        ),
      })
      .map(({ ids, chosen, inputOrder, details }) => {
        const idAt = (index: number): string => ids[index] ?? '';
        const subtasks = inputOrder.map((index) => ({
          id: idAt(index),
          objective: `objective of ${idAt(index)}`,
          agent: `agent-${index % 3}`,
          dependsOn: chosen.filter(([, to]) => to === index).map(([from]) => idAt(from)),
          ...(options.varied ? details[index] : {}),
        }));
        return {
          workflow: workflowFromJson({ task: 'random task', subtasks }),
          generationOrder: ids,
          edges: chosen.map(([from, to]) => [idAt(from), idAt(to)] as const),
        };
      });
  });
}

/** Nodes on the longest path, computed over generation order (independent of the library). */
export function longestPathNodeCount(dag: RandomDag): number {
  const longest = new Map<string, number>();
  for (const id of dag.generationOrder) {
    const parents = dag.edges.filter(([, to]) => to === id).map(([from]) => longest.get(from) ?? 0);
    longest.set(id, 1 + Math.max(0, ...parents));
  }
  return Math.max(0, ...longest.values());
}

/** True when `order` lists every node once and puts every edge's source first. */
export function respectsEdges(order: readonly string[], dag: RandomDag): boolean {
  const position = new Map(order.map((id, index) => [id, index]));
  return (
    order.length === dag.generationOrder.length &&
    position.size === order.length &&
    dag.edges.every(([from, to]) => (position.get(from) ?? Infinity) < (position.get(to) ?? -Infinity))
  );
}
