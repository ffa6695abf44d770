/**
 * The workflow under construction in distillation's summarize stage, and the operations a
 * model builds it with: one per node kind, edges, removals to fix a mistake, and `finish`. Pure apart from the
 * JSONata compile of the check: every operation validates its own arguments, changes a copy, and reports the graph
 * so far (compact lines), `checkWorkflow`'s problems and what is still missing, so the model can go on. graph-tools.ts
 * offers the operations as tools; docs/design.md ("Distillation") documents each name.
 *
 * While building, edges may name nodes that do not exist yet (a model adds edges as it goes); they are listed as
 * missing. `finish` accepts only a graph that reads back as a workflow file without errors (`weft exec` can run it).
 */
import { closestWord } from '../text/edit-distance.js';
import { clip } from '../text/clip.js';
import { checkWorkflow } from './check-workflow.js';
import { parseExecutableWorkflow } from './read-workflow-file.js';
import type { ExecutableWorkflow, WorkflowEdge, WorkflowNode, WorkflowProblem } from './workflow.js';

/** The operations, in the order a model usually needs them. Names fit TOOL_NAME_PATTERN. */
export const GRAPH_OPERATIONS = [
  'add_start',
  'add_tool_node',
  'add_condition',
  'add_set',
  'add_foreach',
  'add_edge',
  'add_end',
  'remove_node',
  'remove_edge',
  'finish',
] as const;
export type GraphOperation = (typeof GRAPH_OPERATIONS)[number];

export function isGraphOperation(name: string): name is GraphOperation {
  return (GRAPH_OPERATIONS as readonly string[]).includes(name);
}

// The same rules as the workflow file's (read-workflow-file.ts), so a finished graph always reads back.
const ID = /^[A-Za-z0-9_.-]{1,64}$/;
const VARIABLE = /^[A-Za-z_$][\w$]{0,63}$/;
/** Whether `name` may name an input or a variable: `__proto__` would be dropped from the workflow file unnoticed. */
const isVariableName = (name: string) => VARIABLE.test(name) && name !== '__proto__';
/** Lines of the graph, problems and missing parts shown per report: the rest is counted, not listed. */
const MAX_LINES = 200;
const MAX_LINE_CHARS = 300;
const MAX_LISTED = 40;
/** Arguments of one operation: deeper or larger ones are refused before anything walks them (a runaway model). */
export const MAX_ARGUMENT_DEPTH = 32;
export const MAX_ARGUMENT_CHARS = 64_000;

/** The graph as built so far: a workflow whose edges may still name nodes that do not exist. */
export interface GraphDraft {
  readonly name: string;
  readonly inputs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly nodes: readonly WorkflowNode[];
  readonly edges: readonly WorkflowEdge[];
}

/** What one operation did, and the state of the graph after it. */
export interface GraphReport {
  /** The operation was applied (false: refused, the graph is unchanged). */
  readonly ok: boolean;
  readonly message: string;
  /** `finish` was accepted: the graph is the result. */
  readonly finished: boolean;
  /** The graph so far, one line per node and edge. */
  readonly graph: readonly string[];
  /** `checkWorkflow`'s findings, as `error|warning [node] path: message`. */
  readonly problems: readonly string[];
  /** What the graph still needs before `finish` can accept it. */
  readonly missing: readonly string[];
}

export type OperationOutcome =
  | { readonly ok: true; readonly draft: GraphDraft; readonly message: string }
  | { readonly ok: false; readonly message: string };

export interface GraphBuilderOptions {
  /** The workflow's name. */
  readonly name: string;
  /** The business tools a tool node may call. */
  readonly toolNames: readonly string[];
}

export interface GraphBuilder {
  /** Applies one operation (its arguments as the model sent them) and reports. Never throws on a model's mistake. */
  apply(operation: string, args: unknown): Promise<GraphReport>;
  /** The graph so far (whole once finished). */
  readonly workflow: ExecutableWorkflow;
  readonly finished: boolean;
}

export function createGraphBuilder(options: GraphBuilderOptions): GraphBuilder {
  let draft: GraphDraft = { name: options.name, nodes: [], edges: [] };
  let finished: ExecutableWorkflow | undefined;
  const check = { toolNames: options.toolNames };
  return {
    get workflow() {
      return finished ?? draftWorkflow(draft);
    },
    get finished() {
      return finished !== undefined;
    },
    async apply(operation, args) {
      const oversized = oversizedArguments(args);
      if (oversized)
        return report(
          draft,
          check,
          { ok: false, message: `${clip(operation, 64)}: ${oversized}` },
          finished !== undefined,
        );
      if (finished)
        return report(draft, check, { ok: false, message: 'the workflow is finished: nothing more can change' }, true);
      if (operation === 'finish') {
        // Snapshot now: calls of the same reply may change the draft while the check runs.
        const snapshot = draft;
        const extra = unknownKeys('finish', args, []);
        if (extra) return report(snapshot, check, { ok: false, message: extra }, false);
        const parsed = await parseExecutableWorkflow(JSON.stringify(draftWorkflow(snapshot)), undefined, check);
        if (!parsed.workflow || snapshot !== draft) {
          const errors = parsed.problems.filter((problem) => problem.severity === 'error').length;
          const message =
            snapshot !== draft
              ? 'finish: the graph changed while it was checked; call finish again'
              : `finish refused: the graph has ${errors} error${errors === 1 ? '' : 's'} (see problems and missing); fix them and call finish again`;
          return report(draft, check, { ok: false, message }, false);
        }
        finished = parsed.workflow;
        const shown = await report(draft, check, { ok: true, message: '' }, true);
        return {
          ...shown,
          message: `finished: the workflow is valid (${snapshot.nodes.length} nodes, ${snapshot.edges.length} edges)`,
        };
      }
      const outcome = applyGraphOperation(draft, operation, args, options.toolNames);
      if (outcome.ok) draft = outcome.draft;
      return report(draft, check, outcome, false);
    },
  };
}

/** Why arguments are too deep or too large, or undefined. Iterative: a 100,000-level value must not overflow. */
export function oversizedArguments(args: unknown): string | undefined {
  const stack: [unknown, number][] = [[args, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_ARGUMENT_DEPTH) return `the arguments are nested deeper than ${MAX_ARGUMENT_DEPTH} levels`;
    for (const item of Object.values(value)) stack.push([item, depth + 1]);
  }
  const size = JSON.stringify(args ?? null).length;
  return size > MAX_ARGUMENT_CHARS
    ? `the arguments are ${size.toLocaleString('en-US')} characters of JSON, more than ${MAX_ARGUMENT_CHARS.toLocaleString('en-US')}`
    : undefined;
}

/** The draft as a workflow (no `inputs` key when none were given). */
export function draftWorkflow(draft: GraphDraft): ExecutableWorkflow {
  return {
    name: draft.name,
    ...(draft.inputs ? { inputs: draft.inputs } : {}),
    nodes: draft.nodes,
    edges: draft.edges,
  };
}

async function report(
  draft: GraphDraft,
  check: { readonly toolNames: readonly string[] },
  outcome: { readonly ok: boolean; readonly message: string },
  finished: boolean,
): Promise<GraphReport> {
  const problems = await checkWorkflow(draftWorkflow(draft), check);
  return {
    ok: outcome.ok,
    message: outcome.message,
    finished,
    graph: capped(graphLines(draft)),
    problems: capped(problems.map(problemLine), MAX_LISTED),
    missing: capped(missingParts(draft), MAX_LISTED),
  };
}

function capped(lines: readonly string[], limit = MAX_LINES): string[] {
  const shown = lines.slice(0, limit).map((line) => clip(line, MAX_LINE_CHARS));
  if (lines.length > limit) shown.push(`… ${lines.length - limit} more`);
  return shown;
}

function problemLine(problem: WorkflowProblem): string {
  const node = problem.node ? ` [${problem.node}]` : '';
  return `${problem.severity}${node}${problem.path ? ` ${problem.path}` : ''}: ${problem.message}`;
}

/** The graph in compact lines: `id (kind …) details`, then `from -> to` edges with their labels. */
export function graphLines(draft: GraphDraft): string[] {
  const lines: string[] = [];
  const json = (value: unknown) => JSON.stringify(value) ?? 'null';
  const fields = (values: Readonly<Record<string, unknown>>) =>
    Object.entries(values)
      .map(([key, value]) => `${key}=${json(value)}`)
      .join(', ');
  for (const node of draft.nodes) {
    switch (node.kind) {
      case 'start': {
        const inputs = Object.entries(draft.inputs ?? {}).map(([name, schema]) => `${name}: ${json(schema)}`);
        lines.push(`${node.id} (start) inputs: ${inputs.join(', ') || 'none'}`);
        break;
      }
      case 'end':
        lines.push(`${node.id} (end) output=${json(node.output ?? null)}`);
        break;
      case 'tool':
        lines.push(
          `${node.id} (tool ${node.tool}) ${fields(node.args ?? {})}${node.out ? ` -> vars.${node.out}` : ''}`,
        );
        break;
      case 'condition':
        lines.push(`${node.id} (condition) ${node.expr}`);
        break;
      case 'set':
        lines.push(`${node.id} (set) ${fields(node.values)}`);
        break;
      case 'forEach':
        lines.push(
          `${node.id} (forEach) items=${node.items}, as vars.${node.as ?? 'item'}, body ${node.body}` +
            `${node.result !== undefined ? `, result=${json(node.result)}` : ''}${node.out ? ` -> vars.${node.out}` : ''}`,
        );
        break;
    }
  }
  for (const edge of draft.edges) lines.push(edgeLine(edge));
  return lines;
}

function edgeLine(edge: WorkflowEdge): string {
  const labels = [
    ...(edge.when !== undefined ? [JSON.stringify(edge.when)] : []),
    ...(edge.default === true ? ['default'] : []),
  ];
  return labels.length > 0 ? `${edge.from} -[${labels.join(', ')}]-> ${edge.to}` : `${edge.from} -> ${edge.to}`;
}

/** What the graph still needs: a start, an end, the nodes edges name, edges out of nodes, both branches, paths. */
export function missingParts(draft: GraphDraft): string[] {
  const missing: string[] = [];
  const byId = new Map(draft.nodes.map((node) => [node.id, node]));
  const start = draft.nodes.find((node) => node.kind === 'start');
  if (!start) missing.push('a start node (add_start)');
  if (!draft.nodes.some((node) => node.kind === 'end')) missing.push('an end node (add_end)');
  const seen = new Set<string>();
  for (const edge of draft.edges) {
    for (const id of [edge.from, edge.to]) {
      if (!byId.has(id) && !seen.has(id)) {
        seen.add(id);
        missing.push(`node "${id}" (an edge names it: ${edgeLine(edge)})`);
      }
    }
  }
  const out = (id: string) => draft.edges.filter((edge) => edge.from === id);
  for (const node of draft.nodes) {
    const edges = out(node.id);
    if (node.kind === 'condition') {
      if (edges.some((edge) => edge.default === true)) continue;
      const values = edges.map((edge) => edge.when);
      if (values.every((value) => typeof value === 'boolean')) {
        for (const branch of [true, false]) {
          if (!values.includes(branch))
            missing.push(`the ${branch} branch of condition "${node.id}" (add_edge with when: ${branch})`);
        }
      } else missing.push(`a default edge out of condition "${node.id}" (it branches on values)`);
    } else if (node.kind === 'forEach') {
      if (!byId.has(node.body)) missing.push(`node "${node.body}", the body of forEach "${node.id}"`);
      if (!edges.some((edge) => edge.to !== node.body))
        missing.push(`the edge out of forEach "${node.id}" after its loop`);
    } else if (node.kind !== 'end' && edges.length === 0) {
      missing.push(`an edge out of "${node.id}"`);
    }
  }
  if (start) {
    const reached = new Set<string>();
    const stack = [start.id];
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (reached.has(id)) continue;
      reached.add(id);
      const node = byId.get(id);
      if (node?.kind === 'forEach') stack.push(node.body);
      for (const edge of out(id)) stack.push(edge.to);
    }
    for (const node of draft.nodes) if (!reached.has(node.id)) missing.push(`a path from the start to "${node.id}"`);
  }
  return missing;
}

/** Arguments of each operation: required and optional keys (anything else is refused with a did-you-mean). */
const KEYS: Readonly<Record<Exclude<GraphOperation, 'finish'>, readonly string[]>> = {
  add_start: ['inputs', 'id'],
  add_tool_node: ['id', 'tool', 'args', 'out'],
  add_condition: ['id', 'expr'],
  add_set: ['id', 'values'],
  add_foreach: ['id', 'items', 'body', 'as', 'result', 'out'],
  add_edge: ['from', 'to', 'when', 'default'],
  add_end: ['id', 'output'],
  remove_node: ['id'],
  remove_edge: ['from', 'to', 'when'],
};

class Refusal extends Error {}

/**
 * One operation on a draft (not `finish`): the new draft, or why it was refused. Pure and synchronous, so calls of
 * one reply apply in the order they were made.
 */
export function applyGraphOperation(
  draft: GraphDraft,
  operation: string,
  rawArgs: unknown,
  toolNames: readonly string[],
): OperationOutcome {
  if (!isGraphOperation(operation) || operation === 'finish') {
    const guess = closestWord(operation, [...GRAPH_OPERATIONS]);
    return {
      ok: false,
      message: `no graph operation "${clip(operation, 80)}"${guess ? `; did you mean ${guess}?` : ''}`,
    };
  }
  const extra = unknownKeys(operation, rawArgs, KEYS[operation]);
  if (extra) return { ok: false, message: extra };
  const args = rawArgs as Record<string, unknown>;
  try {
    return { ok: true, ...operate(draft, operation, args, toolNames) };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, message: `${operation}: ${error.message}` };
    throw error;
  }
}

function unknownKeys(operation: string, args: unknown, keys: readonly string[]): string | undefined {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return `${operation}: the arguments must be a JSON object`;
  }
  for (const key of Object.keys(args)) {
    if (keys.includes(key)) continue;
    const guess = closestWord(
      key,
      keys.map((k) => k.toLowerCase()),
    );
    return `${operation}: no argument "${clip(key, 60)}"${guess ? `; did you mean "${guess}"?` : ''} (its arguments: ${keys.join(', ') || 'none'})`;
  }
  return undefined;
}

function operate(
  draft: GraphDraft,
  operation: Exclude<GraphOperation, 'finish'>,
  args: Record<string, unknown>,
  toolNames: readonly string[],
): { draft: GraphDraft; message: string } {
  const hints: string[] = [];
  const addNode = (node: WorkflowNode) => {
    const existing = draft.nodes.find((other) => other.id === node.id);
    if (existing)
      throw new Refusal(
        `a node "${node.id}" exists already (${existing.kind}); remove_node it first or choose another id`,
      );
    hints.push(...literalHints(node));
    const message = [`added ${node.kind} node "${node.id}"`, ...hints].join('; ');
    return { draft: { ...draft, nodes: [...draft.nodes, node] }, message };
  };
  switch (operation) {
    case 'add_start': {
      const id = optionalId(args, 'id') ?? 'start';
      const existing = draft.nodes.find((node) => node.kind === 'start');
      if (existing) throw new Refusal(`there is a start node already ("${existing.id}"); remove_node it first`);
      const inputs = inputSchemas(args['inputs']);
      const added = addNode({ id, kind: 'start' });
      return { draft: { ...added.draft, ...(inputs ? { inputs } : {}) }, message: added.message };
    }
    case 'add_tool_node': {
      const tool = requiredString(args, 'tool');
      if (!toolNames.includes(tool)) {
        const lower = new Map(toolNames.map((name) => [name.toLowerCase(), name]));
        const guess = closestWord(tool, [...lower.keys()]);
        throw new Refusal(
          `unknown tool "${clip(tool, 80)}"${guess ? `; did you mean "${lower.get(guess)}"?` : ''} (the tools: ${clip(toolNames.join(', '), 600) || 'none'})`,
        );
      }
      const nodeArgs = optionalRecord(args, 'args');
      const out = optionalVariable(args, 'out');
      return addNode({
        id: requiredId(args, 'id'),
        kind: 'tool',
        tool,
        ...(nodeArgs ? { args: nodeArgs } : {}),
        ...(out ? { out } : {}),
      });
    }
    case 'add_condition':
      return addNode({ id: requiredId(args, 'id'), kind: 'condition', expr: requiredString(args, 'expr') });
    case 'add_set': {
      const values = optionalRecord(args, 'values');
      if (!values || Object.keys(values).length === 0)
        throw new Refusal('"values" must be an object of variable: value');
      for (const name of Object.keys(values)) {
        if (!isVariableName(name))
          throw new Refusal(`"values" key "${clip(name, 60)}" is not a variable name (an identifier)`);
      }
      return addNode({ id: requiredId(args, 'id'), kind: 'set', values });
    }
    case 'add_foreach': {
      const as = optionalVariable(args, 'as');
      const out = optionalVariable(args, 'out');
      return addNode({
        id: requiredId(args, 'id'),
        kind: 'forEach',
        items: requiredString(args, 'items'),
        body: requiredId(args, 'body'),
        ...(as ? { as } : {}),
        ...(args['result'] !== undefined ? { result: args['result'] } : {}),
        ...(out ? { out } : {}),
      });
    }
    case 'add_end': {
      const hasEnd = draft.nodes.some((node) => node.id === 'end');
      const id = optionalId(args, 'id') ?? (hasEnd ? undefined : 'end');
      if (id === undefined) throw new Refusal('"id" is required: a node "end" exists already');
      return addNode({ id, kind: 'end', ...(args['output'] !== undefined ? { output: args['output'] } : {}) });
    }
    case 'add_edge':
      return addEdge(draft, args);
    case 'remove_node': {
      const id = requiredString(args, 'id');
      if (!draft.nodes.some((node) => node.id === id)) throw new Refusal(notANode(draft, id));
      const edges = draft.edges.filter((edge) => edge.from !== id && edge.to !== id);
      return {
        draft: { ...draft, nodes: draft.nodes.filter((node) => node.id !== id), edges },
        message: `removed node "${id}" and its ${draft.edges.length - edges.length} edge(s)`,
      };
    }
    case 'remove_edge': {
      const from = requiredString(args, 'from');
      const to = requiredString(args, 'to');
      const when = args['when'];
      const matches = (edge: WorkflowEdge) =>
        edge.from === from && edge.to === to && (when === undefined || edge.when === normalWhen(when));
      const edges = draft.edges.filter((edge) => !matches(edge));
      if (edges.length === draft.edges.length) {
        const from_ = draft.edges.filter((edge) => edge.from === from).map(edgeLine);
        throw new Refusal(
          `no edge ${from} -> ${to}${when !== undefined ? ` with when ${JSON.stringify(when)}` : ''} (edges from "${from}": ${from_.join('; ') || 'none'})`,
        );
      }
      return { draft: { ...draft, edges }, message: `removed ${draft.edges.length - edges.length} edge(s)` };
    }
  }
}

function addEdge(draft: GraphDraft, args: Record<string, unknown>): { draft: GraphDraft; message: string } {
  const from = requiredId(args, 'from');
  const to = requiredId(args, 'to');
  const rawWhen = args['when'];
  if (rawWhen !== undefined && !(rawWhen === null || ['boolean', 'string', 'number'].includes(typeof rawWhen))) {
    throw new Refusal('"when" must be true, false, a string, a number or null');
  }
  const when = rawWhen === undefined ? undefined : normalWhen(rawWhen);
  const isDefault = args['default'];
  if (isDefault !== undefined && typeof isDefault !== 'boolean') throw new Refusal('"default" must be true or false');
  const source = draft.nodes.find((node) => node.id === from);
  const outgoing = draft.edges.filter((edge) => edge.from === from);
  const labelled = when !== undefined || isDefault === true;
  if (source && source.kind !== 'condition' && labelled) {
    throw new Refusal(`only a condition's edges carry "when" or "default"; "${from}" is a ${source.kind} node`);
  }
  if (source?.kind === 'condition' && !labelled) {
    throw new Refusal(`an edge out of condition "${from}" needs "when" (the value that takes it) or "default": true`);
  }
  if (source?.kind === 'end') throw new Refusal(`"${from}" is an end node: nothing follows it`);
  if (source && (source.kind === 'start' || source.kind === 'tool' || source.kind === 'set') && outgoing.length > 0) {
    throw new Refusal(
      `${source.kind} node "${from}" has its edge already (${edgeLine(outgoing[0]!)}); remove_edge it first`,
    );
  }
  if (source?.kind === 'forEach' && to !== source.body && outgoing.some((edge) => edge.to !== source.body)) {
    throw new Refusal(`forEach "${from}" has its edge after the loop already; remove_edge it first`);
  }
  if (source?.kind === 'condition') {
    const clash = outgoing.find(
      (edge) => (when !== undefined && edge.when === when) || (isDefault === true && edge.default === true),
    );
    if (clash)
      throw new Refusal(`condition "${from}" has that branch already (${edgeLine(clash)}); remove_edge it first`);
  }
  if (
    draft.edges.some((edge) => edge.from === from && edge.to === to && edge.when === when && edge.default === isDefault)
  ) {
    throw new Refusal(`the edge ${from} -> ${to} exists already`);
  }
  const edge: WorkflowEdge = {
    from,
    to,
    ...(when !== undefined ? { when } : {}),
    ...(isDefault !== undefined ? { default: isDefault } : {}),
  };
  const notes = [`added edge ${edgeLine(edge)}`];
  if (typeof rawWhen === 'string' && typeof when === 'boolean') notes.push(`"when": "${rawWhen}" was read as ${when}`);
  for (const id of new Set([from, to]))
    if (!draft.nodes.some((node) => node.id === id)) notes.push(`no node "${id}" yet`);
  return { draft: { ...draft, edges: [...draft.edges, edge] }, message: notes.join('; ') };
}

/** `"true"`/`"false"` are the booleans a model meant (a condition's branches are boolean far more often). */
function normalWhen(value: unknown): WorkflowEdge['when'] {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value as WorkflowEdge['when'];
}

/** Hints for strings that look like expressions written without `{% %}` (they would be literal text). */
function literalHints(node: WorkflowNode): string[] {
  const hints: string[] = [];
  const visit = (value: unknown, field: string) => {
    if (typeof value === 'string') {
      if (/^\s*(inputs|vars)\.[A-Za-z_$][\w$.[\]]*\s*$/.test(value)) {
        hints.push(
          `note: ${field} is the literal text "${clip(value, 60)}"; write "{% ${value.trim()} %}" for its value`,
        );
      }
    } else if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${field}[${index}]`));
    else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) visit(item, `${field}.${key}`);
    }
  };
  if (node.kind === 'tool') visit(node.args ?? {}, 'args');
  if (node.kind === 'set') visit(node.values, 'values');
  if (node.kind === 'end') visit(node.output, 'output');
  return hints.slice(0, 5);
}

function notANode(draft: GraphDraft, id: string): string {
  const guess = closestWord(
    id,
    draft.nodes.map((node) => node.id.toLowerCase()),
  );
  const shown = draft.nodes.map((node) => node.id).join(', ');
  return `no node "${clip(id, 64)}"${guess ? `; did you mean "${draft.nodes.find((n) => n.id.toLowerCase() === guess)?.id}"?` : ''} (nodes: ${clip(shown, 600) || 'none'})`;
}

/** `inputs`: `{name: JSON Schema}`, or `{name: "integer"}` for `{type: "integer"}`. */
function inputSchemas(value: unknown): Record<string, Record<string, unknown>> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new Refusal('"inputs" must be an object: input name → JSON Schema (e.g. {"n": {"type": "integer"}})');
  }
  const inputs: Record<string, Record<string, unknown>> = {};
  for (const [name, schema] of Object.entries(value)) {
    if (!isVariableName(name)) throw new Refusal(`input name "${clip(name, 60)}" is not an identifier`);
    if (typeof schema === 'string') inputs[name] = { type: schema };
    else if (schema !== null && typeof schema === 'object' && !Array.isArray(schema)) {
      inputs[name] = schema as Record<string, unknown>;
    } else throw new Refusal(`inputs.${name} must be a JSON Schema object (e.g. {"type": "string"})`);
  }
  return Object.keys(inputs).length > 0 ? inputs : undefined;
}

function requiredString(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new Refusal(`"${key}" is required (a non-empty string), got ${describe(value)}`);
  }
  return value;
}

function requiredId(args: Record<string, unknown>, key: string): string {
  const value = requiredString(args, key);
  if (!ID.test(value))
    throw new Refusal(`"${key}" must be an id of 1 to 64 letters, digits, _ . or -, got ${describe(value)}`);
  return value;
}

function optionalId(args: Record<string, unknown>, key: string): string | undefined {
  return args[key] === undefined ? undefined : requiredId(args, key);
}

function optionalVariable(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  if (value === undefined) return undefined;
  // `vars.x` where the name `x` was meant.
  const name = typeof value === 'string' ? value.replace(/^vars\./, '') : value;
  if (typeof name !== 'string' || !isVariableName(name)) {
    throw new Refusal(`"${key}" must be a variable name (an identifier), got ${describe(value)}`);
  }
  return name;
}

function optionalRecord(args: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = args[key];
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Refusal(`"${key}" must be a JSON object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  return clip(JSON.stringify(value) ?? String(value), 80);
}
