/**
 * Runs an executable workflow on one input with no model: from `start`, node by node along the edges, until an
 * `end`. Tools run through `callTool` (validation, timeout, retries of idempotent tools). A tool error, a JSONata
 * error or the visit cap (`maxVisits`, default DEFAULT_MAX_VISITS) ends the run with a WeftError that names the
 * node and field.
 * Per workflow object, its maps and schema are built once (a batch runs one workflow over many cases).
 */
import { WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { callTool } from '../tools/call-tool.js';
import type { JsonValue, Tool } from '../tools/tool.js';
import { checkToolArgs } from '../tools/validate-args.js';
import {
  DEFAULT_EXPRESSION_TIME_LIMIT_MS,
  type DirectValue,
  directExpression,
  directValue,
  evaluateExpression,
  evaluateValue,
  type Scope,
} from './evaluate-value.js';
import { NOT_FAST } from './fast-expression.js';
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

/**
 * A node ready to run: its edges, the names errors give it, and the value it evaluates at each visit (a set's values,
 * a tool's args, a condition's expression, an end's output, a loop's items) with its direct evaluation.
 */
interface Step {
  readonly node: WorkflowNode;
  readonly edges: readonly WorkflowEdge[];
  /** `node add`. */
  readonly place: string;
  /** A condition's expression without its `{% %}` (which it may be written with or without), or the node's value. */
  readonly value: unknown;
  /** Whether `value` is the text of one expression (a condition's) rather than a value. */
  readonly expression: boolean;
  /** `node add (args)`. */
  readonly valuePlace: string;
  /** A forEach's `result`, and where errors name it. */
  readonly result: unknown;
  readonly resultPlace: string;
}

/** A step's values evaluated directly (evaluate-value.ts directValue), or null where JSONata must evaluate them. */
interface DirectStep {
  readonly value: DirectValue | null;
  readonly result: DirectValue | null;
}

/** What a case needs of its workflow, built once per workflow object, not once per case. */
interface Prepared {
  readonly steps: ReadonlyMap<string, Step>;
  readonly start: WorkflowNode | undefined;
  /** One schema object, so ajv compiles it once (it caches by object). */
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  /** The steps' direct evaluations, built before the first case (JSONata compiles each expression once). */
  directs?: Promise<ReadonlyMap<string, DirectStep>>;
}

const preparedWorkflows = new WeakMap<ExecutableWorkflow, Prepared>();
const toolMaps = new WeakMap<readonly Tool[], ReadonlyMap<string, Tool>>();
/** A tool node without `args` is called with `{}`: one object, so its evaluation plan is made once. */
const NO_ARGS: Readonly<Record<string, never>> = Object.freeze({});

function prepare(workflow: ExecutableWorkflow): Prepared {
  let prepared = preparedWorkflows.get(workflow);
  if (prepared) return prepared;
  const outgoing = new Map<string, WorkflowEdge[]>();
  for (const edge of workflow.edges) {
    const list = outgoing.get(edge.from);
    if (list) list.push(edge);
    else outgoing.set(edge.from, [edge]);
  }
  const steps = new Map<string, Step>();
  for (const node of workflow.nodes) {
    const field = FIELD[node.kind];
    steps.set(node.id, {
      node,
      edges: outgoing.get(node.id) ?? [],
      place: `node ${node.id}`,
      value: visitValue(node),
      expression: node.kind === 'condition',
      valuePlace: `node ${node.id} (${field})`,
      result: node.kind === 'forEach' ? node.result : undefined,
      resultPlace: `node ${node.id} (result)`,
    });
  }
  prepared = {
    steps,
    start: workflow.nodes.find((node) => node.kind === 'start'),
    ...(workflow.inputs
      ? {
          inputSchema: { type: 'object', properties: workflow.inputs, required: Object.keys(workflow.inputs) },
        }
      : {}),
  };
  preparedWorkflows.set(workflow, prepared);
  return prepared;
}

/** The field a node evaluates at each visit, as errors name it. */
const FIELD: Readonly<Record<WorkflowNode['kind'], string>> = {
  start: 'value',
  end: 'output',
  set: 'values',
  tool: 'args',
  condition: 'expr',
  forEach: 'items',
};

function visitValue(node: WorkflowNode): unknown {
  switch (node.kind) {
    case 'end':
      return node.output;
    case 'set':
      return node.values;
    case 'tool':
      return node.args ?? NO_ARGS;
    case 'condition':
      return expressionOf(node.expr) ?? node.expr;
    case 'forEach':
      return node.items;
    default:
      return undefined;
  }
}

async function directSteps(steps: ReadonlyMap<string, Step>): Promise<ReadonlyMap<string, DirectStep>> {
  const direct = async (value: unknown, expression: boolean): Promise<DirectValue | null> => {
    if (value === undefined) return null;
    try {
      return (await (expression ? directExpression(value as string) : directValue(value))) ?? null;
    } catch {
      // JSONata evaluates it, and says what is wrong, where the run meets it.
      return null;
    }
  };
  const directs = new Map<string, DirectStep>();
  for (const [id, step] of steps)
    directs.set(id, { value: await direct(step.value, step.expression), result: await direct(step.result, false) });
  return directs;
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
 * Node visits between two yields to the event loop. Expressions evaluate directly or through promises that are
 * already resolved, so a loop of set and condition nodes would otherwise never let a timer fire: a deadline, or the
 * abort it signals, would wait for the visit cap.
 */
const VISITS_PER_YIELD = 100;
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function runWorkflow(
  workflow: ExecutableWorkflow,
  options: RunWorkflowOptions,
): Promise<WorkflowRunResult> {
  const prepared = prepare(workflow);
  const { steps: stepsById, start, inputSchema } = prepared;
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
      const compiling = checkToolArgs({ name: 'input', inputSchema }, inputs as JsonValue);
      if (compiling) await compiling;
    } catch (error) {
      throw new WeftError('BAD_INPUT', (error as Error).message, { location: { field: 'input' }, cause: error });
    }
  }
  if (!start) throw new WeftError('WORKFLOW', 'the workflow has no start node', { location: { field: 'nodes' } });
  prepared.directs ??= directSteps(stepsById);
  const directs = await prepared.directs;

  // Direct evaluations read the variables as they are: they only read, and what they answer is never the variables'
  // own object (fast-expression.ts leaves that to JSONata).
  const live: Scope = { inputs, vars };
  // JSONata sees a snapshot of the variables (a value like `{% vars %}` stored back into vars makes no cycle),
  // made again only after a variable changed: most evaluations in a row see the same variables.
  let snapshot: Scope | undefined;
  const scope = () => (snapshot ??= { inputs, vars: { ...vars } });
  const assign = (name: string, value: unknown) => {
    vars[name] = value;
    snapshot = undefined;
  };
  const onEvaluate = options.onEvaluate;
  const callOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.toolScope !== undefined ? { scope: options.toolScope } : {}),
  };
  /**
   * A value of a step: its answer when the direct evaluator gives one (no promise, no JSONata), else a promise of
   * JSONata's. Told to onEvaluate first, as every evaluation is.
   */
  const evaluate = (direct: DirectValue | null, value: unknown, place: string, expression: boolean): unknown => {
    onEvaluate?.(place);
    if (direct !== null) {
      const answer = direct(live);
      if (answer !== NOT_FAST) return answer;
    }
    return expression
      ? evaluateExpression(value as string, scope(), place, timeLimit)
      : evaluateValue(value, scope(), place, timeLimit);
  };

  /** Runs from `from` until an end (returns its output) or until the path reaches `stopAt` (returns undefined). */
  const walk = async (from: string, stopAt?: string): Promise<{ ended: boolean; output?: unknown }> => {
    let current: string | undefined = from;
    while (current !== undefined) {
      if (current === stopAt) return { ended: false };
      if (steps % VISITS_PER_YIELD === VISITS_PER_YIELD - 1) await yieldToEventLoop();
      if (options.signal?.aborted) throw new WeftError('ABORTED', 'the workflow run was cancelled');
      const step = stepsById.get(current);
      if (!step)
        throw new WeftError('WORKFLOW', `an edge leads to unknown node ${current}`, { location: { field: 'edges' } });
      const { node, edges } = step;
      const direct = directs.get(node.id) as DirectStep;
      steps++;
      options.onVisit?.(node.id);
      if (steps > maxVisits) {
        throw new WeftError('WORKFLOW', visitCapMessage(node.id, maxVisits), {
          location: { field: `nodes.${node.id}` },
        });
      }
      switch (node.kind) {
        case 'end': {
          if (step.value === undefined) return { ended: true, output: null };
          let output = evaluate(direct.value, step.value, step.valuePlace, false);
          if (output instanceof Promise) output = await output;
          return { ended: true, output };
        }
        case 'start':
          break;
        case 'set': {
          let values = evaluate(direct.value, step.value, step.valuePlace, false);
          if (values instanceof Promise) values = await values;
          Object.assign(vars, values as Record<string, unknown>);
          snapshot = undefined;
          break;
        }
        case 'tool': {
          const tool = tools.get(node.tool);
          if (!tool) {
            onEvaluate?.(`${step.place} (tool)`);
            throw new WeftError('WORKFLOW', `${step.place} (tool): no tool named ${node.tool}`, {
              location: { field: `nodes.${node.id}.tool` },
            });
          }
          let args = evaluate(direct.value, step.value, step.valuePlace, false);
          if (args instanceof Promise) args = await args;
          const outcome = await callTool(tool, args as JsonValue, callOptions);
          if (!outcome.ok) {
            throw new WeftError('WORKFLOW', `${step.place}: tool ${node.tool} failed: ${outcome.error.message}`, {
              location: { field: `nodes.${node.id}` },
              cause: outcome.error,
            });
          }
          toolCalls.push({ node: node.id, tool: node.tool, args, result: outcome.result });
          if (node.out) assign(node.out, outcome.result);
          break;
        }
        case 'condition': {
          let value = evaluate(direct.value, step.value, step.valuePlace, true);
          if (value instanceof Promise) value = await value;
          let chosen: WorkflowEdge | undefined;
          for (const edge of edges)
            if (edge.when !== undefined && edge.when === value) {
              chosen = edge;
              break;
            }
          chosen ??= edges.find((edge) => edge.default === true);
          if (!chosen) {
            onEvaluate?.(step.valuePlace);
            throw new WeftError(
              'WORKFLOW',
              `${step.valuePlace}: no edge for the value ${JSON.stringify(value)?.slice(0, 200)}`,
              {
                location: { field: `nodes.${node.id}.expr` },
              },
            );
          }
          current = chosen.to;
          continue;
        }
        case 'forEach': {
          let items = evaluate(direct.value, step.value, step.valuePlace, false);
          if (items instanceof Promise) items = await items;
          const list = items === undefined ? [] : Array.isArray(items) ? items : [items];
          const name = node.as ?? 'item';
          const collected: unknown[] = [];
          for (const item of list) {
            assign(name, item);
            const inner = await walk(node.body, node.id);
            if (inner.ended) return inner;
            if (node.result === undefined) collected.push(vars[name]);
            else {
              let result = evaluate(direct.result, step.result, step.resultPlace, false);
              if (result instanceof Promise) result = await result;
              collected.push(result);
            }
          }
          if (node.out) assign(node.out, collected);
          const next = edges.find((edge) => edge.to !== node.body);
          current = next?.to;
          if (current === undefined)
            throw new WeftError('WORKFLOW', `${step.place}: no edge after the loop`, {
              location: { field: `nodes.${node.id}` },
            });
          continue;
        }
      }
      const next = edges[0];
      if (!next)
        throw new WeftError('WORKFLOW', `${step.place}: no outgoing edge`, {
          location: { field: `nodes.${node.id}` },
        });
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
