import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { escapeDotLabel, escapeMermaidLabel, graphNodeId } from '../../src/graph/export-graph.js';
import {
  criticalPath,
  levels,
  parallelism,
  parseWorkflow,
  readyTasks,
  toWorkflowJson,
  topologicalOrder,
  topologicalOrders,
  workflowFromJson,
} from '../../src/graph/index.js';
import { longestPathNodeCount, randomDag, respectsEdges, type RandomDag } from './workflow-fixtures.js';

/** Every permutation of the ids that respects the edges: the reference for small graphs. */
function allValidOrders(dag: RandomDag): string[][] {
  const results: string[][] = [];
  const permute = (prefix: string[], rest: string[]): void => {
    if (rest.length === 0) {
      if (respectsEdges(prefix, dag)) results.push(prefix);
      return;
    }
    rest.forEach((id, index) => permute([...prefix, id], [...rest.slice(0, index), ...rest.slice(index + 1)]));
  };
  permute([], [...dag.generationOrder]);
  return results;
}

describe('graph laws on random DAGs', () => {
  it('every topological order respects every edge', () => {
    fc.assert(
      fc.property(randomDag(), (dag) => {
        expect(respectsEdges(topologicalOrder(dag.workflow), dag)).toBe(true);
        for (const order of topologicalOrders(dag.workflow, 20)) expect(respectsEdges(order, dag)).toBe(true);
      }),
    );
  });

  it('topologicalOrders returns distinct valid orders: all of them up to the limit, the Kahn order first', () => {
    fc.assert(
      fc.property(randomDag({ maxNodes: 6 }), fc.integer({ min: 1, max: 30 }), (dag, limit) => {
        const orders = topologicalOrders(dag.workflow, limit);
        const keys = orders.map((order) => order.join('\u0000'));
        expect(new Set(keys).size).toBe(orders.length);
        expect(orders.length).toBe(Math.min(limit, allValidOrders(dag).length));
        expect(orders[0]).toStrictEqual(topologicalOrder(dag.workflow));
      }),
    );
  });

  it('the Kahn order takes the earliest ready subtask in the input', () => {
    fc.assert(
      fc.property(randomDag(), (dag) => {
        const inputPosition = new Map(dag.workflow.subtasks.map((subtask, index) => [subtask.id, index]));
        const done = new Set<string>();
        for (const id of topologicalOrder(dag.workflow)) {
          const ready = dag.workflow.subtasks.filter(
            (subtask) => !done.has(subtask.id) && subtask.dependsOn.every((dependency) => done.has(dependency)),
          );
          expect(inputPosition.get(id)).toBe(
            Math.min(...ready.map((subtask) => inputPosition.get(subtask.id) ?? Infinity)),
          );
          done.add(id);
        }
      }),
    );
  });

  it('the number of levels equals the node count of the longest path', () => {
    fc.assert(
      fc.property(randomDag(), (dag) => {
        expect(levels(dag.workflow).length).toBe(longestPathNodeCount(dag));
      }),
    );
  });

  it('levels partition the subtasks (Σ|S_t| = |V|), edges go up a level, and each subtask sits just above a parent', () => {
    fc.assert(
      fc.property(randomDag(), (dag) => {
        const layers = levels(dag.workflow);
        expect(layers.reduce((sum, layer) => sum + layer.length, 0)).toBe(dag.workflow.subtasks.length);
        expect(new Set(layers.flat()).size).toBe(dag.workflow.subtasks.length);
        const levelOf = new Map(layers.flatMap((layer, index) => layer.map((id) => [id, index + 1] as const)));
        for (const [from, to] of dag.edges) expect(levelOf.get(from) ?? 0).toBeLessThan(levelOf.get(to) ?? 0);
        for (const subtask of dag.workflow.subtasks) {
          const level = levelOf.get(subtask.id) ?? 0;
          if (subtask.dependsOn.length === 0) expect(level).toBe(1);
          else expect(Math.max(...subtask.dependsOn.map((dependency) => levelOf.get(dependency) ?? 0))).toBe(level - 1);
        }
      }),
    );
  });

  it('adding a dependency between two existing subtasks never raises P_avg', () => {
    fc.assert(
      fc.property(randomDag({ maxNodes: 10 }), fc.nat(), fc.nat(), (dag, first, second) => {
        const count = dag.generationOrder.length;
        const [low, high] = [first % count, second % count].sort((a, b) => a - b) as [number, number];
        fc.pre(low !== high);
        // Low to high generation index keeps the graph acyclic.
        const from = dag.generationOrder[low] ?? '';
        const to = dag.generationOrder[high] ?? '';
        const json = toWorkflowJson(dag.workflow);
        const target = json.subtasks.find((subtask) => subtask.id === to);
        fc.pre(target !== undefined && !target.dependsOn.includes(from));
        target?.dependsOn.push(from);
        expect(parallelism(workflowFromJson(json))).toBeLessThanOrEqual(parallelism(dag.workflow) + 1e-12);
      }),
    );
  });

  it('JSON and YAML round trips are the identity', () => {
    fc.assert(
      fc.property(randomDag({ varied: true }), (dag) => {
        const json = toWorkflowJson(dag.workflow);
        for (const text of [JSON.stringify(json), JSON.stringify(json, null, 2), stringify(json)]) {
          const result = parseWorkflow(text);
          expect(result.ok).toBe(true);
          if (result.ok) expect(result.workflow).toStrictEqual(dag.workflow);
        }
        expect(workflowFromJson(json)).toStrictEqual(dag.workflow);
      }),
    );
  });

  it('the critical path is a dependency chain, at least the longest duration and at most their sum', () => {
    fc.assert(
      fc.property(
        randomDag().chain((dag) =>
          fc.record({
            dag: fc.constant(dag),
            durations: fc.array(fc.nat(1000), {
              minLength: dag.generationOrder.length,
              maxLength: dag.generationOrder.length,
            }),
          }),
        ),
        ({ dag, durations }) => {
          const durationOf = new Map(dag.generationOrder.map((id, index) => [id, durations[index] ?? 0]));
          const result = criticalPath(dag.workflow, (id) => durationOf.get(id) ?? 0);
          const all = [...durationOf.values()];
          expect(result.length).toBeGreaterThanOrEqual(Math.max(...all));
          expect(result.length).toBeLessThanOrEqual(all.reduce((sum, duration) => sum + duration, 0));
          expect(result.path.reduce((sum, id) => sum + (durationOf.get(id) ?? 0), 0)).toBe(result.length);
          const edgeKeys = new Set(dag.edges.map(([from, to]) => `${from}\u0000${to}`));
          result.path
            .slice(1)
            .forEach((id, index) => expect(edgeKeys.has(`${result.path[index]}\u0000${id}`)).toBe(true));
          // With unit durations the critical path is the longest chain.
          expect(criticalPath(dag.workflow, () => 1).length).toBe(longestPathNodeCount(dag));
        },
      ),
    );
  });

  it('on a fresh workflow the ready subtasks are exactly the sources', () => {
    fc.assert(
      fc.property(randomDag(), (dag) => {
        const targets = new Set(dag.edges.map(([, to]) => to));
        const sources = dag.workflow.subtasks.map((subtask) => subtask.id).filter((id) => !targets.has(id));
        expect(readyTasks(dag.workflow)).toStrictEqual(sources);
      }),
    );
  });
});

describe('export laws', () => {
  const text = fc.string({ unit: 'binary', maxLength: 40 });
  // What a reader gets back: one kind of line break, control characters as spaces.
  const normalised = (value: string): string =>
    value.replace(/\r\n|\r/g, '\n').replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, ' ');

  it('graph node ids are valid for Mermaid and DOT, and distinct ids stay distinct', () => {
    fc.assert(
      fc.property(fc.uniqueArray(text, { minLength: 2, maxLength: 8 }), (ids) => {
        const nodeIds = ids.map(graphNodeId);
        for (const nodeId of nodeIds) expect(nodeId).toMatch(/^n_[A-Za-z0-9_]*$/);
        expect(new Set(nodeIds).size).toBe(ids.length);
      }),
    );
  });

  it('Mermaid labels hold no syntax characters and decode back to the text', () => {
    fc.assert(
      fc.property(text, (value) => {
        const escaped = escapeMermaidLabel(value);
        const withoutBreaks = escaped.split('<br/>');
        for (const part of withoutBreaks) expect(part).not.toMatch(/["[\]{}()|<>`\\&\n\r]/);
        const decoded = withoutBreaks
          .map((part) => part.replace(/#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))))
          .join('\n');
        expect(decoded).toBe(normalised(value));
      }),
    );
  });

  it('DOT labels decode back to the text', () => {
    fc.assert(
      fc.property(text, (value) => {
        const escaped = escapeDotLabel(value);
        expect(escaped).toMatch(/^(?:[^"\\\n\r]|\\.)*$/);
        expect(escaped.replace(/\\(.)/g, (_, character: string) => (character === 'n' ? '\n' : character))).toBe(
          normalised(value),
        );
      }),
    );
  });
});
