/**
 * The graph builder's operations as tools: what the summarize stage offers a model, and all it
 * offers. They run through `runToolLoop` like any tool: a refused operation is an error result the model reads
 * (with what is still missing), an accepted one returns the graph so far. The names are documented in
 * docs/design.md ("Distillation").
 */
import { WeftError } from '../errors.js';
import { clip } from '../text/clip.js';
import type { JsonValue, Tool, ToolSchema } from '../tools/tool.js';
import type { ToolLoopCall, ToolLoopOutcome } from '../tools/tool-loop.js';
import {
  type GraphBuilder,
  type GraphOperation,
  type GraphReport,
  GRAPH_OPERATIONS,
  isGraphOperation,
} from './graph-builder.js';

const id = { type: 'string', description: 'a node id: 1 to 64 letters, digits, _ . or -' };
const value = { description: 'a JSON value, or a JSONata expression "{% … %}" over inputs and vars' };
const variable = { type: 'string', description: 'a variable name (read later as vars.<name>)' };
const when = {
  type: ['boolean', 'string', 'number', 'null'],
  description: "on a condition's edge: the value of its expression that takes this edge",
};

const SPECS: Readonly<Record<GraphOperation, { description: string; schema: ToolSchema }>> = {
  add_start: {
    description:
      'Adds the start node and declares the workflow\'s inputs (name → JSON Schema, e.g. {"n": {"type": "integer"}}), read as inputs.<name>. Exactly one.',
    schema: object({ inputs: { type: 'object', additionalProperties: { type: ['object', 'string'] } }, id }, []),
  },
  add_tool_node: {
    description:
      'Adds a node that calls a business tool with args (values or "{% … %}" expressions); out names the variable that receives the result.',
    schema: object({ id, tool: { type: 'string' }, args: { type: 'object' }, out: variable }, ['id', 'tool']),
  },
  add_condition: {
    description:
      'Adds a condition node: expr is a JSONata expression ("{% vars.x > 3 %}"); its edges carry when: true/false (or values, with a default edge).',
    schema: object({ id, expr: { type: 'string' } }, ['id', 'expr']),
  },
  add_set: {
    description: 'Adds a node that assigns variables: values maps each name to a value or "{% … %}" expression.',
    schema: object({ id, values: { type: 'object' } }, ['id', 'values']),
  },
  add_foreach: {
    description:
      'Adds a loop over a list: items is an expression; the sub-path from body runs once per item (in vars.<as>, default item) and leads back to this node; result (per item) is collected into vars.<out>; its other edge is taken after the loop.',
    schema: object({ id, items: { type: 'string' }, body: id, as: variable, result: value, out: variable }, [
      'id',
      'items',
      'body',
    ]),
  },
  add_edge: {
    description:
      "Connects two nodes (they may be added later). A condition's edges need when (true/false or a value) or default: true; other nodes have one edge out.",
    schema: object({ from: id, to: id, when, default: { type: 'boolean' } }, ['from', 'to']),
  },
  add_end: {
    description: "Adds an end node; output (a value or expression) is the workflow's result. Default id: end.",
    schema: object({ id, output: value }, []),
  },
  remove_node: {
    description: 'Removes a node and every edge into or out of it (to fix a mistake).',
    schema: object({ id }, ['id']),
  },
  remove_edge: {
    description: 'Removes the edges from → to (only the one with this when, if given).',
    schema: object({ from: id, to: id, when }, ['from', 'to']),
  },
  finish: {
    description:
      'Ends the building: accepted only when the graph has no errors (otherwise the problems come back and you go on).',
    schema: object({}, []),
  },
};

function object(properties: Record<string, unknown>, required: readonly string[]): ToolSchema {
  return { type: 'object', properties, required };
}

/** The ten graph tools, each applying its operation to `builder`. */
export function graphTools(builder: GraphBuilder): Tool[] {
  return GRAPH_OPERATIONS.map(
    (name): Tool => ({
      name,
      description: SPECS[name].description,
      inputSchema: SPECS[name].schema,
      source: 'graph tools (weft distill)',
      // Reports stay compact (graph-builder.ts caps them); this leaves room for a large graph's lines.
      maxResultBytes: 100_000,
      async call(args: JsonValue): Promise<JsonValue> {
        const report = await builder.apply(name, args);
        if (!report.ok) throw new WeftError('TOOL', refusalText(report));
        return reportValue(report);
      },
    }),
  );
}

/**
 * The tool loop's `replay` hook for the graph tools: applies a graph call at once, as the loop hands the calls of a
 * reply over (in the order the model made them). Through `callTool` they would run concurrently, and its awaits
 * (a schema compiled on first use) could apply them out of order — an edge before the node it needs to check,
 * nodes listed in another order than the model gave. The builder checks the arguments itself. Other calls: undefined.
 */
export function applyGraphCall(builder: GraphBuilder): (call: ToolLoopCall) => Promise<ToolLoopOutcome> | undefined {
  return (call) => {
    if (!call.tool || !isGraphOperation(call.name)) return undefined;
    const started = performance.now();
    // `apply` changes the draft before its first await: the order of these calls is the order of the changes.
    return builder.apply(call.name, call.args).then(
      (report): ToolLoopOutcome =>
        report.ok
          ? { ok: true, result: reportValue(report), durationMs: performance.now() - started }
          : {
              ok: false,
              code: 'TOOL',
              error: clip(`${call.name}: ${refusalText(report)}`, 3_000),
              durationMs: performance.now() - started,
            },
    );
  };
}

/** An accepted operation's result, as the model reads it. */
export function reportValue(report: GraphReport): JsonValue {
  return {
    message: report.message,
    ...(report.finished ? { finished: true } : {}),
    graph: [...report.graph],
    problems: [...report.problems],
    missing: [...report.missing],
  };
}

/** A refusal: the reason first (callTool keeps 2,000 characters of an error), then the errors and what is missing. */
function refusalText(report: GraphReport): string {
  const errors = report.problems.filter((line) => line.startsWith('error'));
  const parts = [`${report.message}. The graph is unchanged (${report.graph.length} lines, ${errors.length} errors)`];
  if (errors.length > 0) parts.push(`errors: ${errors.slice(0, 6).join('; ')}`);
  if (report.missing.length > 0) parts.push(`missing: ${report.missing.slice(0, 6).join('; ')}`);
  return parts.join('\n');
}
