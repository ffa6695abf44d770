/**
 * Runs an executable workflow on one input with no model: from `start`, node by node along the edges, until an
 * `end`. Tools run through `callTool` (validation, timeout, retries of idempotent tools). A tool error, a JSONata
 * error or the visit cap (`maxVisits`, default DEFAULT_MAX_VISITS) ends the run with a WeftError that names the
 * node and field.
 * Per workflow object, its maps and schema are built once (a batch runs one workflow over many cases).
 */
import { WeftError } from '../errors.js';
import { integerOption } from '../runtime/integer-option.js';
import { callTool } from '../tools/call-tool.js';
import type { JsonValue, Tool } from '../tools/tool.js';
import { validateToolArgs } from '../tools/validate-args.js';
import { DEFAULT_EXPRESSION_TIME_LIMIT_MS, evaluateExpression, evaluateValue } from './evaluate-value.js';
import {
  DEFAULT_MAX_VISITS,
  type ExecutableWorkflow,
  expressionOf,
  type WorkflowEdge,
  type WorkflowNode,
} from './workflow.js';

export interface RunWorkflowOptions {
  readonly tools?: readonly Tool[];
  readonly input: Readonly<Record<string, unknown>>;
  /**
   * Node visits the run may make (default DEFAULT_MAX_VISITS): a deadline counted in steps, so that a loop that
   * never ends stops; a long but finite loop needs a higher cap (`weft exec --max-visits`).
   */
  readonly maxVisits?: number;
  /** How long one JSONata expression may run (default DEFAULT_EXPRESSION_TIME_LIMIT_MS): the only deadline inside one. */
  readonly expressionTimeLimitMs?: number;
  readonly signal?: AbortSignal;
  /** The run or chat session the workflow's tool calls are made for (a workflow tool passes its own call's on). */
  readonly toolScope?: string;
  /** Told of each node visit before the node runs (a workflow tool names where its deadline stopped it). */
  readonly onVisit?: (node: string) => void;
  /**
   * Told where (`node add (args)`) before each value is evaluated there: an isolated run's worker notes it, so that
   * a case stopped inside an expression is named by node and field.
   */
  readonly onEvaluate?: (where: string) => void;
}

export interface WorkflowToolCall {
  readonly node: string;
  readonly tool: string;
  readonly args: unknown;
  readonly result: unknown;
}

export interface WorkflowRunResult {
  readonly output: unknown;
  /** Node visits, the start and end included. */
  readonly steps: number;
  readonly toolCalls: readonly WorkflowToolCall[];
  /** Always 0: a workflow runs without a model. */
  readonly llmCalls: 0;
}

/** What a case needs of its workflow, built once per workflow object, not once per case. */
interface Prepared {
  readonly nodes: ReadonlyMap<string, WorkflowNode>;
  readonly outgoing: ReadonlyMap<string, readonly WorkflowEdge[]>;
  readonly start: WorkflowNode | undefined;
  /** One schema object, so ajv compiles it once (it caches by object). */
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  /** A condition's expression without its `{% %}` (which it may be written with or without). */
  readonly conditions: ReadonlyMap<string, string>;
  /** `node add (args)`: the names errors give, made once. */
  readonly places: Map<string, string>;
}

const preparedWorkflows = new WeakMap<ExecutableWorkflow, Prepared>();
const toolMaps = new WeakMap<readonly Tool[], ReadonlyMap<string, Tool>>();

function prepare(workflow: ExecutableWorkflow): Prepared {
  let prepared = preparedWorkflows.get(workflow);
  if (prepared) return prepared;
  const outgoing = new Map<string, WorkflowEdge[]>();
  for (const edge of workflow.edges) {
    const list = outgoing.get(edge.from);
    if (list) list.push(edge);
    else outgoing.set(edge.from, [edge]);
  }
  const conditions = new Map<string, string>();
  for (const node of workflow.nodes)
    if (node.kind === 'condition') conditions.set(node.id, expressionOf(node.expr) ?? node.expr);
  prepared = {
    nodes: new Map(workflow.nodes.map((node) => [node.id, node])),
    outgoing,
    start: workflow.nodes.find((node) => node.kind === 'start'),
    ...(workflow.inputs
      ? {
          inputSchema: { type: 'object', properties: workflow.inputs, required: Object.keys(workflow.inputs) },
        }
      : {}),
    conditions,
    places: new Map(),
  };
  preparedWorkflows.set(workflow, prepared);
  return prepared;
}

function toolMap(tools: readonly Tool[]): ReadonlyMap<string, Tool> {
  let map = toolMaps.get(tools);
  if (!map) {
    map = new Map(tools.map((tool) => [tool.name, tool]));
    toolMaps.set(tools, map);
  }
  return map;
}

const NO_TOOLS: readonly Tool[] = [];

/**
 * Node visits between two yields to the event loop. Expressions evaluate through promises that are already
 * resolved, so a loop of set and condition nodes would otherwise never let a timer fire: a deadline, or the abort
 * it signals, would wait for the visit cap.
 */
const VISITS_PER_YIELD = 100;
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function runWorkflow(
  workflow: ExecutableWorkflow,
  options: RunWorkflowOptions,
): Promise<WorkflowRunResult> {
  const { nodes, outgoing, start, inputSchema, conditions, places } = prepare(workflow);
  const tools = toolMap(options.tools ?? NO_TOOLS);
  const maxVisits = options.maxVisits ?? DEFAULT_MAX_VISITS;
  integerOption(maxVisits, 'maxVisits', { min: 1 });
  const timeLimit = options.expressionTimeLimitMs ?? DEFAULT_EXPRESSION_TIME_LIMIT_MS;
  const vars: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const inputs = options.input;
  const toolCalls: WorkflowToolCall[] = [];
  let steps = 0;
  if (inputSchema) {
    // The input is checked against `inputs` (each a JSON Schema) before anything runs.
    try {
      await validateToolArgs({ name: 'input', inputSchema }, inputs as JsonValue);
    } catch (error) {
      throw new WeftError('BAD_INPUT', (error as Error).message, { location: { field: 'input' }, cause: error });
    }
  }
  if (!start) throw new WeftError('WORKFLOW', 'the workflow has no start node', { location: { field: 'nodes' } });

  // Expressions see a snapshot of the variables (a value like `{% vars %}` stored back into vars makes no cycle),
  // made again only after a variable changed: most evaluations in a row see the same variables.
  let snapshot: { inputs: unknown; vars: Record<string, unknown> } | undefined;
  const scope = () => (snapshot ??= { inputs, vars: { ...vars } });
  const assign = (name: string, value: unknown) => {
    vars[name] = value;
    snapshot = undefined;
  };
  const onEvaluate = options.onEvaluate;
  const at = (node: WorkflowNode, field?: string) => {
    const key = field ? `${node.id}\u0000${field}` : node.id;
    let place = places.get(key);
    if (place === undefined) {
      place = `node ${node.id}${field ? ` (${field})` : ''}`;
      places.set(key, place);
    }
    // Called with a field just before that field is evaluated (and again only in errors after it).
    if (field && onEvaluate) onEvaluate(place);
    return place;
  };

  /** Runs from `from` until an end (returns its output) or until the path reaches `stopAt` (returns undefined). */
  const walk = async (from: string, stopAt?: string): Promise<{ ended: boolean; output?: unknown }> => {
    let current: string | undefined = from;
    while (current !== undefined) {
      if (current === stopAt) return { ended: false };
      if (steps % VISITS_PER_YIELD === VISITS_PER_YIELD - 1) await yieldToEventLoop();
      if (options.signal?.aborted) throw new WeftError('ABORTED', 'the workflow run was cancelled');
      const node = nodes.get(current);
      if (!node)
        throw new WeftError('WORKFLOW', `an edge leads to unknown node ${current}`, { location: { field: 'edges' } });
      steps++;
      options.onVisit?.(node.id);
      if (steps > maxVisits) {
        throw new WeftError('WORKFLOW', visitCapMessage(node.id, maxVisits), {
          location: { field: `nodes.${node.id}` },
        });
      }
      const edges = outgoing.get(node.id) ?? [];
      switch (node.kind) {
        case 'end':
          return {
            ended: true,
            output:
              node.output === undefined
                ? null
                : await evaluateValue(node.output, scope(), at(node, 'output'), timeLimit),
          };
        case 'start':
          break;
        case 'set': {
          const values = (await evaluateValue(node.values, scope(), at(node, 'values'), timeLimit)) as Record<
            string,
            unknown
          >;
          Object.assign(vars, values);
          snapshot = undefined;
          break;
        }
        case 'tool': {
          const tool = tools.get(node.tool);
          if (!tool)
            throw new WeftError('WORKFLOW', `${at(node, 'tool')}: no tool named ${node.tool}`, {
              location: { field: `nodes.${node.id}.tool` },
            });
          const args = await evaluateValue(node.args ?? {}, scope(), at(node, 'args'), timeLimit);
          const outcome = await callTool(tool, args as JsonValue, {
            ...(options.signal ? { signal: options.signal } : {}),
            ...(options.toolScope !== undefined ? { scope: options.toolScope } : {}),
          });
          if (!outcome.ok) {
            throw new WeftError('WORKFLOW', `${at(node)}: tool ${node.tool} failed: ${outcome.error.message}`, {
              location: { field: `nodes.${node.id}` },
              cause: outcome.error,
            });
          }
          toolCalls.push({ node: node.id, tool: node.tool, args, result: outcome.result });
          if (node.out) assign(node.out, outcome.result);
          break;
        }
        case 'condition': {
          const value = await evaluateExpression(
            conditions.get(node.id) ?? node.expr,
            scope(),
            at(node, 'expr'),
            timeLimit,
          );
          const chosen =
            edges.find((edge) => edge.when !== undefined && edge.when === value) ??
            edges.find((edge) => edge.default === true);
          if (!chosen) {
            throw new WeftError(
              'WORKFLOW',
              `${at(node, 'expr')}: no edge for the value ${JSON.stringify(value)?.slice(0, 200)}`,
              {
                location: { field: `nodes.${node.id}.expr` },
              },
            );
          }
          current = chosen.to;
          continue;
        }
        case 'forEach': {
          const items = await evaluateValue(node.items, scope(), at(node, 'items'), timeLimit);
          const list = items === undefined ? [] : Array.isArray(items) ? items : [items];
          const name = node.as ?? 'item';
          const collected: unknown[] = [];
          for (const item of list) {
            assign(name, item);
            const inner = await walk(node.body, node.id);
            if (inner.ended) return inner;
            collected.push(
              node.result === undefined
                ? vars[name]
                : await evaluateValue(node.result, scope(), at(node, 'result'), timeLimit),
            );
          }
          if (node.out) assign(node.out, collected);
          const next = edges.find((edge) => edge.to !== node.body);
          current = next?.to;
          if (current === undefined)
            throw new WeftError('WORKFLOW', `${at(node)}: no edge after the loop`, {
              location: { field: `nodes.${node.id}` },
            });
          continue;
        }
      }
      const next = edges[0];
      if (!next)
        throw new WeftError('WORKFLOW', `${at(node)}: no outgoing edge`, { location: { field: `nodes.${node.id}` } });
      current = next.to;
    }
    return { ended: false };
  };

  const result = await walk(start.id);
  if (!result.ended) throw new WeftError('WORKFLOW', 'the run reached no end node', { location: { field: 'edges' } });
  return { output: result.output, steps, toolCalls, llmCalls: 0 };
}

/** What a run stopped by the visit cap says: the cap, the node, and that the loop may well be finite. */
export function visitCapMessage(node: string, maxVisits: number): string {
  return `node ${node}: stopped at the visit cap of ${maxVisits} node visits (maxVisits) on reaching this node; a loop here may never end, or it is a long finite loop: raise the cap (--max-visits N on the command line, maxVisits in a tools file or the library)`;
}
