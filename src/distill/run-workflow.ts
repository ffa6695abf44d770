/**
 * Runs an executable workflow on one input with no model (issue 14): from `start`, node by node along the edges,
 * until an `end`. Tools run through `callTool` (validation, timeout, retries of idempotent tools). A tool error,
 * a JSONata error or the visit cap ends the run with a WeftError that names the node and field.
 * Status: the interpreter of issue 14 — the batch runner, `weft exec`, the checker and distillation are not built yet.
 */
import { WeftError } from '../errors.js';
import { callTool } from '../tools/call-tool.js';
import type { JsonValue, Tool } from '../tools/tool.js';
import { validateToolArgs } from '../tools/validate-args.js';
import { evaluateValue } from './evaluate-value.js';
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
  readonly maxVisits?: number;
  readonly signal?: AbortSignal;
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

export async function runWorkflow(
  workflow: ExecutableWorkflow,
  options: RunWorkflowOptions,
): Promise<WorkflowRunResult> {
  const nodes = new Map(workflow.nodes.map((node) => [node.id, node]));
  const outgoing = new Map<string, WorkflowEdge[]>();
  for (const edge of workflow.edges) outgoing.set(edge.from, [...(outgoing.get(edge.from) ?? []), edge]);
  const tools = new Map((options.tools ?? []).map((tool) => [tool.name, tool]));
  const maxVisits = options.maxVisits ?? DEFAULT_MAX_VISITS;
  const vars: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const inputs = options.input;
  const toolCalls: WorkflowToolCall[] = [];
  let steps = 0;
  if (workflow.inputs) {
    // The input is checked against `inputs` (each a JSON Schema) before anything runs.
    const schema = { type: 'object', properties: workflow.inputs, required: Object.keys(workflow.inputs) };
    try {
      await validateToolArgs({ name: 'input', inputSchema: schema }, inputs as JsonValue);
    } catch (error) {
      throw new WeftError('BAD_INPUT', (error as Error).message, { location: { field: 'input' }, cause: error });
    }
  }
  const start = workflow.nodes.find((node) => node.kind === 'start');
  if (!start) throw new WeftError('WORKFLOW', 'the workflow has no start node', { location: { field: 'nodes' } });

  const scope = () => ({ inputs, vars: { ...vars } });
  const at = (node: WorkflowNode, field?: string) => `node ${node.id}${field ? ` (${field})` : ''}`;

  /** Runs from `from` until an end (returns its output) or until the path reaches `stopAt` (returns undefined). */
  const walk = async (from: string, stopAt?: string): Promise<{ ended: boolean; output?: unknown }> => {
    let current: string | undefined = from;
    while (current !== undefined) {
      if (current === stopAt) return { ended: false };
      if (options.signal?.aborted) throw new WeftError('ABORTED', 'the workflow run was cancelled');
      const node = nodes.get(current);
      if (!node)
        throw new WeftError('WORKFLOW', `an edge leads to unknown node ${current}`, { location: { field: 'edges' } });
      steps++;
      if (steps > maxVisits) {
        throw new WeftError('WORKFLOW', `${at(node)}: more than ${maxVisits} node visits; a loop does not end`, {
          location: { field: `nodes.${node.id}` },
        });
      }
      const edges = outgoing.get(node.id) ?? [];
      switch (node.kind) {
        case 'end':
          return {
            ended: true,
            output: node.output === undefined ? null : await evaluateValue(node.output, scope(), at(node, 'output')),
          };
        case 'start':
          break;
        case 'set': {
          const values = (await evaluateValue(node.values, scope(), at(node, 'values'))) as Record<string, unknown>;
          Object.assign(vars, values);
          break;
        }
        case 'tool': {
          const tool = tools.get(node.tool);
          if (!tool)
            throw new WeftError('WORKFLOW', `${at(node, 'tool')}: no tool named ${node.tool}`, {
              location: { field: `nodes.${node.id}.tool` },
            });
          const args = await evaluateValue(node.args ?? {}, scope(), at(node, 'args'));
          const outcome = await callTool(tool, args as JsonValue, options.signal ? { signal: options.signal } : {});
          if (!outcome.ok) {
            throw new WeftError('WORKFLOW', `${at(node)}: tool ${node.tool} failed: ${outcome.error.message}`, {
              location: { field: `nodes.${node.id}` },
              cause: outcome.error,
            });
          }
          toolCalls.push({ node: node.id, tool: node.tool, args, result: outcome.result });
          if (node.out) vars[node.out] = outcome.result;
          break;
        }
        case 'condition': {
          // `expr` may be written with or without the `{% %}` around it.
          const value = await evaluateValue(`{% ${expressionOf(node.expr) ?? node.expr} %}`, scope(), at(node, 'expr'));
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
          const items = await evaluateValue(node.items, scope(), at(node, 'items'));
          const list = items === undefined ? [] : Array.isArray(items) ? items : [items];
          const name = node.as ?? 'item';
          const collected: unknown[] = [];
          for (const item of list) {
            vars[name] = item;
            const inner = await walk(node.body, node.id);
            if (inner.ended) return inner;
            collected.push(
              node.result === undefined ? vars[name] : await evaluateValue(node.result, scope(), at(node, 'result')),
            );
          }
          if (node.out) vars[node.out] = collected;
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
