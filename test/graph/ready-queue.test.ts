import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readyTasks } from '../../src/graph/index.js';
import { completeNode, isReady, linkNodes, type ReadyNode } from '../../src/graph/ready-queue.js';
import type { SubtaskStatus } from '../../src/graph/workflow.js';

/** A random DAG (each subtask depends only on earlier ones) with random starting statuses. */
const dag = fc.integer({ min: 1, max: 12 }).chain((size) =>
  fc.tuple(
    fc.tuple(
      ...Array.from({ length: size }, (_, index) =>
        fc.subarray(Array.from({ length: index }, (_, parent) => `n${parent}`)),
      ),
    ),
    fc.array(fc.constantFrom<SubtaskStatus>('not started', 'not started', 'completed', 'failed', 'in progress'), {
      minLength: size,
      maxLength: size,
    }),
    fc.array(fc.nat(), { maxLength: 30 }),
  ),
);

describe('the ready queue', () => {
  it('holds exactly what readyTasks lists, as subtasks start and complete in any order', () => {
    fc.assert(
      fc.property(dag, ([parents, statuses, picks]) => {
        const order = parents.map((_, index) => `n${index}`);
        const nodes = new Map<string, ReadyNode>(
          order.map((id, index) => [
            id,
            {
              id,
              status: statuses[index]!,
              dependsOn: [...parents[index]!],
              parents: [],
              children: [],
              pendingParents: 0,
            },
          ]),
        );
        const plan = () => ({
          subtasks: order.map((id) => ({
            id,
            objective: id,
            agent: 'w',
            attempts: 0,
            dependsOn: nodes.get(id)!.dependsOn,
            status: nodes.get(id)!.status,
          })),
        });
        const ready = new Set(linkNodes(order, nodes));
        expect([...ready]).toStrictEqual(readyTasks(plan()));
        for (const pick of picks) {
          // Start one ready subtask, or complete one that runs.
          const running = order.filter((id) => nodes.get(id)!.status === 'in progress');
          const choices = [...ready, ...running];
          if (choices.length === 0) break;
          const id = choices[pick % choices.length]!;
          const node = nodes.get(id)!;
          if (ready.delete(id)) node.status = 'in progress';
          else {
            const now: string[] = [];
            completeNode(node, now);
            for (const child of now) ready.add(child);
          }
          expect(order.filter((each) => ready.has(each))).toStrictEqual(readyTasks(plan()));
          const listed = readyTasks(plan());
          expect(order.filter((each) => isReady(nodes.get(each)!))).toStrictEqual(listed);
        }
      }),
      { numRuns: 300 },
    );
  });
});
