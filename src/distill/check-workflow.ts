/**
 * Structural checks of an executable workflow: what `weft workflow check` reports, all at once.
 * Pure apart from compiling JSONata expressions (syntax errors are problems too). Located by document path and node
 * id; a file reader adds line and column. Variables: a `vars.x` an expression reads must be assigned on every path
 * that reaches it (an error when no path assigns it, a warning when only some do).
 */
import { compileExpression } from './evaluate-value.js';
import {
  type ExecutableWorkflow,
  expressionOf,
  NODE_KINDS,
  type WorkflowNode,
  type WorkflowProblem,
} from './workflow.js';

/** Node × variable pairs the variable check handles (a workflow past it gets a warning instead). */
export const MAX_VARIABLE_CHECK_WORK = 2_000_000;

export interface CheckWorkflowOptions {
  /** Tool names that exist; without it, tools are not checked. */
  readonly toolNames?: readonly string[];
}

export async function checkWorkflow(
  workflow: ExecutableWorkflow,
  options: CheckWorkflowOptions = {},
): Promise<WorkflowProblem[]> {
  const problems: WorkflowProblem[] = [];
  const error = (message: string, path?: string, node?: string) =>
    problems.push({ severity: 'error', message, ...(path ? { path } : {}), ...(node ? { node } : {}) });
  const warn = (message: string, path?: string, node?: string) =>
    problems.push({ severity: 'warning', message, ...(path ? { path } : {}), ...(node ? { node } : {}) });

  const byId = new Map<string, WorkflowNode>();
  workflow.nodes.forEach((node, index) => {
    if (!(NODE_KINDS as readonly string[]).includes(node.kind))
      error(`unknown node kind "${String(node.kind)}"`, `nodes[${index}].kind`, node.id);
    if (byId.has(node.id)) error(`duplicate node id "${node.id}"`, `nodes[${index}].id`, node.id);
    else byId.set(node.id, node);
  });
  const starts = workflow.nodes.filter((node) => node.kind === 'start');
  if (starts.length !== 1) error(`a workflow has exactly one start node, this one has ${starts.length}`, 'nodes');
  if (!workflow.nodes.some((node) => node.kind === 'end')) error('a workflow needs at least one end node', 'nodes');

  const out = new Map<string, number[]>();
  const into = new Map<string, string[]>();
  workflow.edges.forEach((edge, index) => {
    if (!byId.has(edge.from)) error(`edge from unknown node "${edge.from}"`, `edges[${index}].from`);
    if (!byId.has(edge.to)) error(`edge to unknown node "${edge.to}"`, `edges[${index}].to`);
    out.set(edge.from, [...(out.get(edge.from) ?? []), index]);
    into.set(edge.to, [...(into.get(edge.to) ?? []), edge.from]);
  });

  for (const [index, node] of workflow.nodes.entries()) {
    const edges = (out.get(node.id) ?? []).map((i) => workflow.edges[i]!);
    const path = `nodes[${index}]`;
    if (node.kind === 'end' && edges.length > 0) error(`end node "${node.id}" has outgoing edges`, path, node.id);
    if (node.kind === 'start' && (into.get(node.id) ?? []).length > 0)
      error('the start node has incoming edges', path, node.id);
    if (node.kind === 'condition') {
      const values = edges.filter((edge) => edge.when !== undefined).map((edge) => edge.when);
      const hasDefault = edges.some((edge) => edge.default === true);
      if (new Set(values).size !== values.length)
        error(`condition "${node.id}" has two edges for one value`, path, node.id);
      const boolean = values.every((value) => typeof value === 'boolean');
      if (!hasDefault && boolean && !(values.includes(true) && values.includes(false))) {
        error(`condition "${node.id}" needs an edge for both true and false (or a default edge)`, path, node.id);
      }
      if (!hasDefault && !boolean)
        error(`condition "${node.id}" branches on values: it needs a default edge`, path, node.id);
    } else if (node.kind === 'forEach') {
      if (!byId.has(node.body))
        error(`forEach "${node.id}" has an unknown body node "${node.body}"`, `${path}.body`, node.id);
      if (edges.filter((edge) => edge.to !== node.body).length !== 1) {
        error(`forEach "${node.id}" needs exactly one edge besides the one into its body`, path, node.id);
      }
    } else if (node.kind !== 'end' && edges.length !== 1) {
      error(`${node.kind} node "${node.id}" needs exactly one outgoing edge, has ${edges.length}`, path, node.id);
    }
    if (node.kind === 'tool' && options.toolNames && !options.toolNames.includes(node.tool)) {
      error(`unknown tool "${node.tool}"`, `${path}.tool`, node.id);
    }
    for (const [field, value] of expressionsOf(node)) {
      try {
        await compileExpression(value, `node ${node.id} (${field})`);
      } catch (caught) {
        error((caught as Error).message, `${path}.${field}`, node.id);
      }
    }
  }

  // Reachability from the start, and to an end.
  const successors = (id: string): string[] => {
    const node = byId.get(id);
    const next = (out.get(id) ?? []).map((i) => workflow.edges[i]!.to);
    return node?.kind === 'forEach' ? [...next, node.body] : next;
  };
  const reached = new Set<string>();
  const stack = starts.map((node) => node.id);
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (reached.has(id) || !byId.has(id)) continue;
    reached.add(id);
    stack.push(...successors(id));
  }
  // Which nodes can reach an end: a walk backwards from the ends (linear, whatever the order of the nodes).
  const predecessors = new Map<string, string[]>();
  for (const node of workflow.nodes) {
    for (const next of successors(node.id)) predecessors.set(next, [...(predecessors.get(next) ?? []), node.id]);
  }
  const reachesEnd = new Set<string>();
  const back = workflow.nodes.filter((node) => node.kind === 'end').map((node) => node.id);
  while (back.length > 0) {
    const id = back.pop()!;
    if (reachesEnd.has(id)) continue;
    reachesEnd.add(id);
    back.push(...(predecessors.get(id) ?? []));
  }
  for (const [index, node] of workflow.nodes.entries()) {
    if (!reached.has(node.id)) error(`node "${node.id}" cannot be reached from the start`, `nodes[${index}]`, node.id);
    else if (!reachesEnd.has(node.id)) error(`node "${node.id}" cannot reach an end`, `nodes[${index}]`, node.id);
  }

  // A cycle must go through a condition (or be a forEach body), or it never ends.
  const loopFree = workflow.nodes.filter((node) => node.kind !== 'condition' && node.kind !== 'forEach');
  const loopFreeIds = new Set(loopFree.map((node) => node.id));
  const inCycle = cycleMembers([...loopFreeIds], (id) => successors(id).filter((next) => loopFreeIds.has(next)));
  for (const id of inCycle)
    error(
      `node "${id}" is on a cycle without a condition: it would never end`,
      `nodes[${workflow.nodes.findIndex((node) => node.id === id)}]`,
      id,
    );

  checkVariables(workflow, byId, successors, starts[0]?.id, warn, error);
  return problems;
}

function expressionsOf(node: WorkflowNode): [string, string][] {
  const found: [string, string][] = [];
  const visit = (value: unknown, field: string) => {
    const expression = expressionOf(value);
    if (expression !== undefined) found.push([field, expression]);
    else if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${field}[${index}]`));
    else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) visit(item, `${field}.${key}`);
    }
  };
  if (node.kind === 'condition') found.push(['expr', expressionOf(node.expr) ?? node.expr]);
  if (node.kind === 'tool') visit(node.args ?? {}, 'args');
  if (node.kind === 'set') visit(node.values, 'values');
  if (node.kind === 'end') visit(node.output, 'output');
  if (node.kind === 'forEach') {
    visit(node.items, 'items');
    visit(node.result, 'result');
  }
  return found;
}

function assignedBy(node: WorkflowNode): string[] {
  if (node.kind === 'set') return Object.keys(node.values);
  if (node.kind === 'tool') return node.out ? [node.out] : [];
  if (node.kind === 'forEach') return [node.as ?? 'item', ...(node.out ? [node.out] : [])];
  return [];
}

/** Definitely and possibly assigned variables at each node's entry (a forward data-flow fixpoint). */
function checkVariables(
  workflow: ExecutableWorkflow,
  byId: Map<string, WorkflowNode>,
  successors: (id: string) => string[],
  start: string | undefined,
  warn: (message: string, path?: string, node?: string) => void,
  error: (message: string, path?: string, node?: string) => void,
): void {
  if (start === undefined) return;
  const all = new Set(workflow.nodes.flatMap(assignedBy));
  // The analysis keeps a set of names per node: past this many node × name pairs it is skipped, not run for minutes.
  if (workflow.nodes.length * all.size > MAX_VARIABLE_CHECK_WORK) {
    warn(
      `variables not checked: ${workflow.nodes.length} nodes × ${all.size} variables is more than this check handles`,
      'nodes',
    );
    return;
  }
  const definitely = new Map<string, Set<string>>([[start, new Set()]]);
  const possibly = new Map<string, Set<string>>([[start, new Set()]]);
  for (let changed = true, rounds = 0; changed && rounds < 10_000; rounds++) {
    changed = false;
    for (const node of workflow.nodes) {
      const inDef = definitely.get(node.id);
      if (!inDef) continue;
      const outDef = new Set([...inDef, ...assignedBy(node)]);
      const outPos = new Set([...(possibly.get(node.id) ?? []), ...assignedBy(node)]);
      for (const next of successors(node.id)) {
        if (!byId.has(next)) continue;
        const current = definitely.get(next);
        const merged = current ? new Set([...current].filter((name) => outDef.has(name))) : outDef;
        if (!current || merged.size !== current.size) {
          definitely.set(next, merged);
          changed = true;
        }
        const pos = possibly.get(next) ?? new Set<string>();
        const before = pos.size;
        for (const name of outPos) pos.add(name);
        possibly.set(next, pos);
        if (pos.size !== before) changed = true;
      }
    }
  }
  for (const [index, node] of workflow.nodes.entries()) {
    const inDef = definitely.get(node.id);
    if (!inDef) continue;
    const own = new Set(node.kind === 'forEach' ? [node.as ?? 'item'] : []);
    for (const [field, expression] of expressionsOf(node)) {
      for (const match of expression.matchAll(/\bvars\.([A-Za-z_$][\w$]*)/g)) {
        const name = match[1] as string;
        if (inDef.has(name) || own.has(name) || (node.kind === 'forEach' && field === 'result')) continue;
        if (!all.has(name)) error(`vars.${name} is never assigned`, `nodes[${index}].${field}`, node.id);
        else if (possibly.get(node.id)?.has(name))
          warn(
            `vars.${name} is assigned on some paths to "${node.id}" but not all`,
            `nodes[${index}].${field}`,
            node.id,
          );
        else error(`vars.${name} is read before any path assigns it`, `nodes[${index}].${field}`, node.id);
      }
    }
  }
}

/** Nodes on a cycle (a strongly connected component of two or more, or a self-loop): iterative Tarjan, no recursion. */
function cycleMembers(ids: readonly string[], next: (id: string) => string[]): Set<string> {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const members = new Set<string>();
  for (const root of ids) {
    if (index.has(root)) continue;
    const work: { id: string; edges: string[]; at: number }[] = [];
    const enter = (id: string) => {
      index.set(id, counter);
      low.set(id, counter);
      counter++;
      stack.push(id);
      onStack.add(id);
      work.push({ id, edges: next(id), at: 0 });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.at < frame.edges.length) {
        const to = frame.edges[frame.at++]!;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(frame.id, Math.min(low.get(frame.id)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(frame.id)!));
      if (low.get(frame.id) === index.get(frame.id)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.id);
        if (component.length > 1 || frame.edges.includes(frame.id)) for (const m of component) members.add(m);
      }
    }
  }
  return members;
}
