import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { formatWorkflowText } from '../../src/eval/format-workflow-text.js';
import { parseWorkflowText } from '../../src/eval/parse-workflow-text.js';
import type { WorkflowText } from '../../src/eval/workflow-text.js';
import {
  WORKFLOW_TEXT_AGENT,
  workflowTextToWorkflow,
  workflowToWorkflowText,
} from '../../src/eval/workflow-text-graph.js';
import { topologicalOrder } from '../../src/graph/topological-order.js';
import type { Workflow } from '../../src/graph/workflow.js';
import { randomDag, workflowOf } from '../graph/workflow-fixtures.js';
import { goldSets, loadGoldAnswers } from './gold-path.js';

/** Each subtask as `id: objective <- sorted dependencies`, in subtask order. */
type SubtaskShape = { readonly id: string; readonly objective: string; readonly dependsOn: readonly string[] };
const shape = (workflow: { readonly subtasks: readonly SubtaskShape[] }) =>
  workflow.subtasks.map(
    (subtask) => `${subtask.id}: ${subtask.objective} <- ${[...subtask.dependsOn].sort().join(',')}`,
  );

/** The workflow's subtasks in `order`, renamed "1".."n" by it: what a conversion that renumbers must give. */
function renamed(workflow: Workflow, order: readonly string[]) {
  const number = new Map(order.map((id, index) => [id, String(index + 1)]));
  const byId = new Map(workflow.subtasks.map((subtask) => [subtask.id, subtask]));
  return {
    subtasks: order.map((id) => {
      const subtask = byId.get(id);
      return {
        id: number.get(id) ?? '',
        objective: subtask?.objective ?? '',
        dependsOn: (subtask?.dependsOn ?? []).map((parent) => number.get(parent) ?? ''),
      };
    }),
  };
}

describe('workflowTextToWorkflow', () => {
  it('makes node k subtask "k" with its text as objective, and node edges dependencies; START/END edges are implied', () => {
    const workflow = workflowTextToWorkflow(
      {
        nodes: ['a', 'b', 'c', 'd'],
        edges: [
          ['START', 1],
          [1, 2],
          [1, 3],
          [3, 4],
          [2, 4],
          [1, 2],
          [4, 'END'],
        ],
      },
      'Make tea',
    );
    expect(workflow.task).toBe('Make tea');
    expect(
      workflow.subtasks.map(({ id, objective, dependsOn, agent }) => ({ id, objective, dependsOn, agent })),
    ).toEqual([
      { id: '1', objective: 'a', dependsOn: [], agent: WORKFLOW_TEXT_AGENT },
      { id: '2', objective: 'b', dependsOn: ['1'], agent: WORKFLOW_TEXT_AGENT },
      { id: '3', objective: 'c', dependsOn: ['1'], agent: WORKFLOW_TEXT_AGENT },
      { id: '4', objective: 'd', dependsOn: ['3', '2'], agent: WORKFLOW_TEXT_AGENT },
    ]);
    expect(workflow.roles.map((role) => role.name)).toEqual([WORKFLOW_TEXT_AGENT]);
  });

  it('names a default task', () => {
    expect(workflowTextToWorkflow({ nodes: ['a'], edges: [] }).task).toBe('WorfBench workflow');
  });

  it('refuses what is not a workflow: unknown nodes, cycles, empty texts, no nodes', () => {
    const failure = (text: WorkflowText) => {
      try {
        workflowTextToWorkflow(text);
      } catch (error) {
        return error instanceof WeftError ? `${error.code}: ${error.message}` : String(error);
      }
      return 'no error';
    };
    expect(failure({ nodes: ['a'], edges: [[1, 2]] })).toBe(
      'PLAN_INVALID: edge (1,2) names node 2, but the workflow has 1 nodes',
    );
    expect(failure({ nodes: ['a'], edges: [['START', 0]] })).toBe(
      'PLAN_INVALID: edge (START,0) names node 0, but the workflow has 1 nodes',
    );
    expect(
      failure({
        nodes: ['a', 'b'],
        edges: [
          [1, 2],
          [2, 1],
        ],
      }),
    ).toMatch(/^PLAN_INVALID/);
    expect(failure({ nodes: ['a', ' '], edges: [] })).toMatch(/^PLAN_INVALID/);
    expect(failure({ nodes: [], edges: [] })).toMatch(/^PLAN_INVALID/);
  });
});

describe('workflowToWorkflowText', () => {
  it('lists the subtasks in topological order, numbered 1..n, with START and END edges for sources and sinks', () => {
    // Listed out of order: "make" depends on "buy", which comes after it.
    const workflow = workflowOf({ make: ['buy', 'boil'], buy: [], boil: [], serve: ['make'], note: [] });
    expect(topologicalOrder(workflow)).toEqual(['buy', 'boil', 'make', 'serve', 'note']);
    expect(workflowToWorkflowText(workflow)).toEqual({
      nodes: ['do buy', 'do boil', 'do make', 'do serve', 'do note'],
      edges: [
        ['START', 1],
        ['START', 2],
        ['START', 5],
        [1, 3],
        [2, 3],
        [3, 4],
        [4, 'END'],
        [5, 'END'],
      ],
    });
  });

  it('formats as the gold form', () => {
    expect(formatWorkflowText(workflowToWorkflowText(workflowOf({ x: [], y: ['x'] })))).toBe(
      'Node:\n1: do x\n2: do y\nEdge: (START,1) (1,2) (2,END)',
    );
  });
});

describe('round trips', () => {
  const objective = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter((text) => text.trim() !== '');
  const dagWithObjectives = randomDag({ maxNodes: 10 }).chain((dag) =>
    fc
      .array(objective, { minLength: dag.workflow.subtasks.length, maxLength: dag.workflow.subtasks.length })
      .map((objectives) => ({
        ...dag,
        workflow: {
          ...dag.workflow,
          subtasks: dag.workflow.subtasks.map((subtask, index) => ({ ...subtask, objective: objectives[index] ?? '' })),
        },
      })),
  );

  it('graph → text → graph keeps every objective and dependency, ids renumbered in topological order', () => {
    fc.assert(
      fc.property(dagWithObjectives, ({ workflow }) => {
        const back = workflowTextToWorkflow(workflowToWorkflowText(workflow));
        expect(shape(back)).toEqual(shape(renamed(workflow, topologicalOrder(workflow))));
      }),
      { numRuns: 300 },
    );
  });

  it('graph → text → graph is the identity on subtasks already numbered 1..n in topological order', () => {
    fc.assert(
      fc.property(dagWithObjectives, ({ workflow }) => {
        const numbered = workflowTextToWorkflow(workflowToWorkflowText(workflow));
        expect(shape(workflowTextToWorkflow(workflowToWorkflowText(numbered)))).toEqual(shape(numbered));
      }),
      { numRuns: 200 },
    );
  });

  it('graph → formatted text → parsed text → graph keeps single-line objectives and dependencies', () => {
    fc.assert(
      fc.property(randomDag({ maxNodes: 10 }), ({ workflow }) => {
        const parsed = parseWorkflowText(formatWorkflowText(workflowToWorkflowText(workflow)));
        if (!parsed.ok) expect.fail(JSON.stringify(parsed.issues));
        expect(shape(workflowTextToWorkflow(parsed.workflow))).toEqual(
          shape(renamed(workflow, topologicalOrder(workflow))),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('text → graph → text is exact for canonical text, and normalises START/END edges otherwise', () => {
    // Canonical: what workflowToWorkflowText writes.
    fc.assert(
      fc.property(randomDag({ maxNodes: 10 }), ({ workflow }) => {
        const text = workflowToWorkflowText(workflow);
        expect(workflowToWorkflowText(workflowTextToWorkflow(text))).toEqual(text);
      }),
      { numRuns: 200 },
    );
    // A START edge into a node that has a parent is dropped; a sink without an END edge gets one.
    expect(
      workflowToWorkflowText(
        workflowTextToWorkflow({
          nodes: ['a', 'b', 'c'],
          edges: [
            ['START', 1],
            ['START', 2],
            [1, 2],
            [2, 'END'],
          ],
        }),
      ),
    ).toEqual({
      nodes: ['a', 'b', 'c'],
      edges: [
        ['START', 1],
        ['START', 3],
        [1, 2],
        [2, 'END'],
        [3, 'END'],
      ],
    });
    // The edge order is canonical: START edges, node edges by (from, to), END edges.
    expect(
      workflowToWorkflowText(
        workflowTextToWorkflow({
          nodes: ['a', 'b', 'c'],
          edges: [
            ['START', 1],
            [1, 3],
            [1, 'END'],
            [1, 2],
            [2, 'END'],
            [3, 'END'],
          ],
        }),
      ).edges,
    ).toEqual([
      ['START', 1],
      [1, 2],
      [1, 3],
      [2, 'END'],
      [3, 'END'],
    ]);
  });
});

describe.each(goldSets())('the WorfBench gold graphs ($name)', (set) => {
  const gold = loadGoldAnswers(set.dir).flatMap((record) => {
    const result = parseWorkflowText(record.answer);
    return result.ok ? [{ id: record.id, text: result.workflow }] : [];
  });
  const edgeSet = (text: WorkflowText) => text.edges.map(([from, to]) => `${from}>${to}`).sort();

  it('all convert to valid graphs', () => {
    expect(gold).toHaveLength(set.records);
    expect(gold.filter(({ text }) => workflowTextToWorkflow(text).subtasks.length !== text.nodes.length)).toEqual([]);
  });

  it('have the node chain as their smallest-number-first topological order, except two whose chain is not an order at all', () => {
    const differing = gold.filter(
      ({ text }) =>
        topologicalOrder(workflowTextToWorkflow(text)).join(' ') !== text.nodes.map((_, index) => index + 1).join(' '),
    );
    expect(differing.map(({ id }) => id)).toEqual(['intercodesql_192', 'intercodesql_308']);
    // Both have an edge pointing backwards in the chain: 4→2 and 2→1.
    for (const { text } of differing) {
      expect(text.edges.some(([from, to]) => typeof from === 'number' && typeof to === 'number' && from > to)).toBe(
        true,
      );
    }
    expect(differing.map(({ text }) => topologicalOrder(workflowTextToWorkflow(text)))).toEqual([
      ['1', '4', '2', '3'],
      ['2', '1', '3'],
    ]);
  });

  it('come back unchanged through the graph model, up to edge order, except where their START/END edges are not canonical', () => {
    const changed = gold.filter(({ text }) => {
      const back = workflowToWorkflowText(workflowTextToWorkflow(text));
      return (
        JSON.stringify(back.nodes) !== JSON.stringify(text.nodes) ||
        JSON.stringify(edgeSet(back)) !== JSON.stringify(edgeSet(text))
      );
    });
    const exact = gold.filter(
      ({ text }) => JSON.stringify(workflowToWorkflowText(workflowTextToWorkflow(text))) === JSON.stringify(text),
    );
    console.log(
      `gold texts changed by text → graph → text (${changed.length}): ${changed.map(({ id }) => id).join(' ')}`,
    );
    expect(exact).toHaveLength(set.full ? 1675 : 98);
    expect(changed).toHaveLength(set.full ? 37 : 8);
    // Apart from the two renumbered records, only START/END edges change: the node edges and texts are kept.
    for (const { id, text } of changed) {
      if (id === 'intercodesql_192' || id === 'intercodesql_308') continue;
      const back = workflowToWorkflowText(workflowTextToWorkflow(text));
      const nodeEdges = (edges: string[]) => edges.filter((edge) => !/START|END/.test(edge));
      expect(back.nodes).toEqual(text.nodes);
      expect(nodeEdges(edgeSet(back))).toEqual(nodeEdges(edgeSet(text)));
    }
  });
});
