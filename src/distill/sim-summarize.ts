/**
 * The sim's summarize stage (distill-sim.ts): emits the reference workflow through the graph tools, a few calls per
 * reply, then `finish`; answers ES-P&E's planning call with the reference's plan (a JSON list of its nodes).
 *
 * Deterministic and resumable: the calls it will make are worked out from the reference, the options' seed and
 * the call's tag key alone (`emittedCalls`), and it knows where it is by counting the tool calls already in the
 * conversation. Each graph call carries a mistake with probability `mistake` (drawn per position), one of:
 * - `edge`: an edge leads to another node than the reference's;
 * - `binding`: an expression reads `inputs.x` where the reference reads `vars.x` (or the other way round);
 * - `branch`: a condition's edge is left out (a missing branch);
 * - `mixed`: a business tool of the task is called first (the stage refuses it and counts a mixed call).
 * It reads tool results only to see whether `finish` was refused: it fixes nothing (a sim is not clever) and calls
 * `finish` again until the step limit, so mistakes give invalid or wrong workflows, as intended.
 *
 * In a single-stage baseline (business tools offered too) sim-single-stage.ts first makes the reference's business
 * calls, then this builds the graph the same way and answers the reference's output.
 */
import type { ChatCall, ChatMessage, ToolCallRequest } from '../llm/chat-model.js';
import { bernoulli, pick, randomFrom } from '../llm/seeded-random.js';
import type { SimOptions } from '../llm/sim-options.js';
import { nextToolCallNumber, toolCallId } from '../llm/tool-call-ids.js';
import type { DistillSimReply } from './distill-sim-reply.js';
import { businessToolNamesOf, distillPhaseOf } from './distill-prompt.js';
import type { ExecutableWorkflow, WorkflowEdge } from './workflow.js';

/** Graph calls per reply (a `finish` always goes alone, last). */
export const SIM_CALLS_PER_REPLY = 3;

export type SimMistake = 'edge' | 'binding' | 'branch' | 'mixed';

export interface SimGraphCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** The mistake this call carries (or, for `branch`, the call after the dropped one). */
  readonly mistake?: SimMistake;
}

export function simSummarizeReply(
  call: ChatCall,
  reference: ExecutableWorkflow,
  options: SimOptions,
  /** Single-stage: the business calls made before building (not part of the graph calls), and the answer after. */
  single: { readonly executed: number; readonly answer: string } = { executed: 0, answer: '' },
): DistillSimReply {
  const phase = distillPhaseOf(call.system);
  if (phase === 'plan') return { text: JSON.stringify(referencePlan(reference)) };
  const offered = call.toolChoice === 'none' ? [] : (call.tools ?? []);
  if (!offered.some((tool) => tool.name === 'finish')) {
    return { text: 'sim distill: no graph tools were offered, so no workflow was built' };
  }
  const business = businessToolNamesOf(call.system);
  const script = emittedCalls(reference, options, call.tag?.key, business);
  const made = nextToolCallNumber(call.messages) - 1 - single.executed;
  const first = nextToolCallNumber(call.messages);
  const request = (calls: readonly SimGraphCall[]): DistillSimReply => ({
    text: '',
    toolCalls: calls.map(
      (graphCall, index): ToolCallRequest => ({
        id: toolCallId(first + index),
        name: graphCall.name,
        args: graphCall.args,
      }),
    ),
  });
  if (made < script.length) {
    const chunk: SimGraphCall[] = [];
    for (const next of script.slice(made, made + SIM_CALLS_PER_REPLY)) {
      if (next.name === 'finish' && chunk.length > 0) break;
      chunk.push(next);
      if (next.name === 'finish') break;
    }
    return request(chunk);
  }
  if (lastFinishAccepted(call.messages)) {
    return { text: single.answer || `sim distill: the workflow ${reference.name} is built (simulated)` };
  }
  // Refused (or never answered): the sim fixes nothing and asks again; the stage's step limit ends it.
  return request([{ name: 'finish', args: {} }]);
}

/** The reference's plan as ES-P&E asks for it: one entry per node, with its outgoing edges. */
export function referencePlan(reference: ExecutableWorkflow): unknown[] {
  return reference.nodes.map((node) => ({
    id: node.id,
    kind: node.kind,
    does: describeNode(node),
    next: reference.edges
      .filter((edge) => edge.from === node.id)
      .map((edge) => ({
        to: edge.to,
        ...(edge.when !== undefined ? { when: edge.when } : {}),
        ...(edge.default ? { default: true } : {}),
      })),
  }));
}

function describeNode(node: ExecutableWorkflow['nodes'][number]): string {
  switch (node.kind) {
    case 'tool':
      return `call ${node.tool} with ${JSON.stringify(node.args ?? {})}${node.out ? ` into vars.${node.out}` : ''}`;
    case 'condition':
      return `branch on ${node.expr}`;
    case 'set':
      return `set ${JSON.stringify(node.values)}`;
    case 'forEach':
      return `for each of ${node.items}, run ${node.body}`;
    case 'end':
      return `return ${JSON.stringify(node.output ?? null)}`;
    default:
      return 'start';
  }
}

/** The reference as graph calls, in order: nodes, then edges, then `finish`. */
export function referenceCalls(reference: ExecutableWorkflow): SimGraphCall[] {
  const calls: SimGraphCall[] = [];
  for (const node of reference.nodes) {
    const { kind, ...fields } = node as Record<string, unknown> & { kind: string };
    switch (kind) {
      case 'start':
        calls.push({ name: 'add_start', args: { id: node.id, inputs: reference.inputs ?? {} } });
        break;
      case 'end':
        calls.push({ name: 'add_end', args: fields });
        break;
      case 'tool':
        calls.push({ name: 'add_tool_node', args: fields });
        break;
      case 'condition':
        calls.push({ name: 'add_condition', args: fields });
        break;
      case 'set':
        calls.push({ name: 'add_set', args: fields });
        break;
      case 'forEach':
        calls.push({ name: 'add_foreach', args: fields });
        break;
    }
  }
  for (const edge of reference.edges) calls.push({ name: 'add_edge', args: { ...edge } });
  calls.push({ name: 'finish', args: {} });
  return calls;
}

/** The calls the sim makes for this reference, seed and key: the reference's, each with P(mistake) of a mistake. */
export function emittedCalls(
  reference: ExecutableWorkflow,
  options: Pick<SimOptions, 'seed' | 'mistake'>,
  key: string | undefined,
  business: readonly string[],
): SimGraphCall[] {
  const conditions = new Set(reference.nodes.filter((node) => node.kind === 'condition').map((node) => node.id));
  const ids = reference.nodes.map((node) => node.id);
  const emitted: SimGraphCall[] = [];
  referenceCalls(reference).forEach((graphCall, position) => {
    const stream = (name: string) => randomFrom(options.seed, 'distill-mistake', key, position, name);
    if (graphCall.name === 'finish' || !bernoulli(stream('happens'), options.mistake)) {
      emitted.push(graphCall);
      return;
    }
    const edge = graphCall.name === 'add_edge' ? (graphCall.args as unknown as WorkflowEdge) : undefined;
    const swapped = swapBinding(graphCall.args);
    const kinds: SimMistake[] = [
      ...(edge && ids.some((id) => id !== edge.to && id !== edge.from) ? (['edge'] as const) : []),
      ...(swapped ? (['binding'] as const) : []),
      ...(edge && conditions.has(edge.from) ? (['branch'] as const) : []),
      ...(business.length > 0 ? (['mixed'] as const) : []),
    ];
    if (kinds.length === 0) {
      emitted.push(graphCall);
      return;
    }
    const kind = pick(stream('kind'), kinds);
    if (kind === 'edge' && edge) {
      const others = ids.filter((id) => id !== edge.to && id !== edge.from);
      emitted.push({ ...graphCall, args: { ...graphCall.args, to: pick(stream('to'), others) }, mistake: 'edge' });
    } else if (kind === 'binding' && swapped) {
      emitted.push({ ...graphCall, args: swapped, mistake: 'binding' });
    } else if (kind === 'mixed') {
      emitted.push({ name: pick(stream('tool'), business), args: {}, mistake: 'mixed' }, graphCall);
    }
    // `branch`: the condition's edge is not emitted at all.
  });
  return emitted;
}

/** The arguments with the first `vars.x` read as `inputs.x` (or `inputs.x` as `vars.x`); undefined when none. */
function swapBinding(args: Record<string, unknown>): Record<string, unknown> | undefined {
  let done = false;
  const visit = (value: unknown): unknown => {
    if (done) return value;
    if (typeof value === 'string' && /\{%/.test(value)) {
      const match = /\b(vars|inputs)\.([A-Za-z_$][\w$]*)/.exec(value);
      if (match) {
        done = true;
        const other = match[1] === 'vars' ? 'inputs' : 'vars';
        return `${value.slice(0, match.index)}${other}.${match[2]}${value.slice(match.index + match[0].length)}`;
      }
      return value;
    }
    if (Array.isArray(value)) return value.map(visit);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v)]));
    }
    return value;
  };
  // `id` and other plain fields hold no expression; `expr` of a condition may be written without {% %}.
  const result: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(args)) {
    result[field] =
      field === 'expr' && typeof value === 'string' && !/\{%/.test(value) ? visit(`{% ${value} %}`) : visit(value);
  }
  return done ? result : undefined;
}

function lastFinishAccepted(messages: readonly ChatMessage[]): boolean {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'tool' && message.name === 'finish') return message.isError !== true;
  }
  return false;
}
