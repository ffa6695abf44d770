/**
 * Between WorfBench's workflow text (numbered nodes, edges with START and END) and Weft's graph model (subtasks
 * with `dependsOn`), so that Weft's planner can be scored and gold workflows can be run or drawn.
 *
 * The graph model has no START and END: a subtask with no dependencies starts at once, and the workflow ends when
 * every subtask has. So START/END edges are not kept; going back to text they are implied, (START,s) for every
 * source s and (t,END) for every sink t. Consequences:
 * - graph → text → graph preserves every objective and dependency exactly (ids become "1".."n" in
 *   `topologicalOrder`, i.e. the same ids when the subtasks already are 1..n in that order);
 * - text → graph → text is exact only for a text that already is in that canonical form: the chain is the
 *   smallest-number-first topological order, START edges go exactly to the sources and END edges leave exactly
 *   the sinks, and the edges are listed START edges first, then node edges by (from, to), then END edges.
 *   Otherwise the START/END edges are normalised (e.g. a gold text that omits (3,END) for a sink gets it back, and
 *   one that writes (START,2) for a node that also depends on 1 loses it) and the nodes are renumbered.
 */
import { WeftError } from '../errors.js';
import { workflowFromJson } from '../graph/parse-workflow.js';
import { topologicalOrder } from '../graph/topological-order.js';
import type { Workflow } from '../graph/workflow.js';
import type { EdgeSource, EdgeTarget, WorkflowText } from './workflow-text.js';

/** The one role every converted subtask gets; WorfBench workflows name no agents. */
export const WORKFLOW_TEXT_AGENT = 'worker';
const DEFAULT_TASK = 'WorfBench workflow';

/**
 * Node k becomes subtask "k" with the node text as its objective; an edge (a,b) between nodes makes "b" depend
 * on "a". Throws PLAN_INVALID for an invalid workflow: an edge naming a node that does not exist, or (from
 * `workflowFromJson`, with its issues) an empty node text, a self-loop, a cycle, no nodes.
 */
export function workflowTextToWorkflow(workflow: WorkflowText, task: string = DEFAULT_TASK): Workflow {
  const count = workflow.nodes.length;
  const dependsOn: string[][] = workflow.nodes.map(() => []);
  for (const [from, to] of workflow.edges) {
    for (const end of [from, to]) {
      if (typeof end === 'number' && !(Number.isInteger(end) && end >= 1 && end <= count)) {
        throw new WeftError(
          'PLAN_INVALID',
          `edge (${from},${to}) names node ${end}, but the workflow has ${count} nodes`,
        );
      }
    }
    if (typeof from !== 'number' || typeof to !== 'number') continue;
    const parents = dependsOn[to - 1];
    if (parents && !parents.includes(String(from))) parents.push(String(from));
  }
  return workflowFromJson({
    task,
    subtasks: workflow.nodes.map((objective, index) => ({
      id: String(index + 1),
      objective,
      agent: WORKFLOW_TEXT_AGENT,
      dependsOn: dependsOn[index] ?? [],
    })),
  });
}

/**
 * The workflow as text: nodes in `topologicalOrder` (the earliest listed ready subtask first), numbered 1..n,
 * with (START,s) for every source, node edges, and (t,END) for every sink, in that order.
 */
export function workflowToWorkflowText(workflow: Pick<Workflow, 'subtasks'>): WorkflowText {
  const order = topologicalOrder(workflow);
  const numberOf = new Map(order.map((id, index) => [id, index + 1]));
  const byId = new Map(workflow.subtasks.map((subtask) => [subtask.id, subtask]));
  const subtasks = order.map((id) => byId.get(id)).filter((subtask) => subtask !== undefined);
  const hasChildren = new Set<number>();
  const nodeEdges: [number, number][] = [];
  subtasks.forEach((subtask, index) => {
    for (const parent of new Set(subtask.dependsOn)) {
      const from = numberOf.get(parent) ?? 0;
      nodeEdges.push([from, index + 1]);
      hasChildren.add(from);
    }
  });
  nodeEdges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const edges: (readonly [EdgeSource, EdgeTarget])[] = [];
  subtasks.forEach((subtask, index) => {
    if (subtask.dependsOn.length === 0) edges.push(['START', index + 1]);
  });
  edges.push(...nodeEdges);
  subtasks.forEach((_, index) => {
    if (!hasChildren.has(index + 1)) edges.push([index + 1, 'END']);
  });
  return { nodes: subtasks.map((subtask) => subtask.objective), edges };
}
