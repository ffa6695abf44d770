/**
 * The sim's execute stage (distill-sim.ts): follows the reference workflow on the call's input, one reply at a time.
 *
 * Each reply re-runs the reference with the interpreter (run-workflow.ts) on the input of the prompt's
 * `<task-input>` block, where each tool call returns, in order, the results already in the conversation (the
 * assistant's tool calls and their tool messages); the first call beyond them is stopped and becomes the reply's
 * tool call, with the arguments the interpreter computed. When the workflow reaches its end, the reply is its
 * output as JSON. A tool error in the conversation, a conversation that called other tools than the reference
 * would, or a workflow that fails, gives a reply saying it could not finish (no JSON: the trace is unsuccessful).
 * plan-execute's planning call gets the reference's tool nodes and conditions, in the order a walk from the start
 * meets them, as the plan. With `solvefail=P`, each reply gives up the instance instead with probability P, drawn
 * from the seed, the call's key and attempt (the rollout: `weft distill eval --rollouts`), the input and the
 * number of calls made so far, so rollouts of one input differ and a rollout that gave up stays given up.
 * Deterministic: the same conversation always gets the same reply.
 */
import type { ChatCall } from '../llm/chat-model.js';
import { bernoulli, randomFrom } from '../llm/seeded-random.js';
import type { SimOptions } from '../llm/sim-options.js';
import { nextToolCallNumber, toolCallId } from '../llm/tool-call-ids.js';
import { clip } from '../text/clip.js';
import type { DistillSimReply } from './distill-sim-reply.js';
import { recordedCalls, stepReference } from './replay-reference.js';
import { isPlanningCall, readTaskInput } from './solve-prompts.js';
import { expressionOf, type ExecutableWorkflow, type WorkflowNode } from './workflow.js';

export async function simSolveReply(
  call: ChatCall,
  reference: ExecutableWorkflow,
  options: SimOptions,
): Promise<DistillSimReply> {
  const input = readTaskInput(call);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { text: 'sim solve: the prompt has no <task-input> block with the inputs, so there is nothing to follow' };
  }
  if (isPlanningCall(call)) return { text: JSON.stringify(planOf(reference)) };

  const recorded = recordedCalls(call.messages);
  // No brackets from an error's JSON: the reply must not parse as an answer, so the trace is unsuccessful.
  const unbracketed = (text: string) => flat(text.replace(/[[\]{}]/g, ' '));
  const failedCall = recorded.find((entry) => entry.isError);
  if (failedCall)
    return { text: `I could not finish: the tool ${failedCall.name} failed: ${unbracketed(failedCall.content)}` };
  if (options.solvefail > 0) {
    const draw = randomFrom(options.seed, 'solvefail', call.tag?.key, call.tag?.attempt, JSON.stringify(input));
    // One draw per position in the conversation: the same conversation gets the same verdict.
    for (let position = 0; position < recorded.length; position++) draw();
    if (bernoulli(draw, options.solvefail))
      return { text: `I could not finish: I lost track after ${recorded.length} tool calls (simulated, solvefail)` };
  }
  const step = await stepReference(reference, input, recorded);
  if (step.kind === 'failed') return { text: `I could not finish: ${unbracketed(step.reason)}` };
  if (step.kind === 'done') return { text: JSON.stringify(step.output ?? null) };
  const next = { name: step.tool, args: step.args };
  const offered = call.toolChoice !== 'none' && (call.tools ?? []).some((tool) => tool.name === next.name);
  if (!offered) {
    return { text: `I could not finish: the next step needs the tool ${next.name}, which this call does not offer.` };
  }
  return {
    text: '',
    toolCalls: [{ id: toolCallId(nextToolCallNumber(call.messages)), name: next.name, args: next.args }],
  };
}

/** The reference's tool nodes, conditions and loops as plan steps, in the order a walk from the start meets them. */
function planOf(reference: ExecutableWorkflow): string[] {
  const byId = new Map(reference.nodes.map((node) => [node.id, node]));
  const start = reference.nodes.find((node) => node.kind === 'start');
  const seen = new Set<string>();
  const queue: string[] = start ? [start.id] : [];
  const steps: string[] = [];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = byId.get(id);
    if (!node) continue;
    const step = describeStep(node);
    if (step !== undefined) steps.push(step);
    if (node.kind === 'forEach') queue.push(node.body);
    for (const edge of reference.edges) if (edge.from === id) queue.push(edge.to);
  }
  return steps.length > 0 ? steps : ['Work out the answer from the inputs'];
}

function describeStep(node: WorkflowNode): string | undefined {
  switch (node.kind) {
    case 'tool':
      return `Call ${node.tool} with ${JSON.stringify(node.args ?? {})}${node.out ? ` and keep the result as ${node.out}` : ''}`;
    case 'condition':
      return `Check ${expressionOf(node.expr) ?? node.expr} and go on accordingly`;
    case 'forEach':
      return `For each item of ${expressionOf(node.items) ?? node.items}, do the steps of the loop`;
    default:
      return undefined;
  }
}

/** One line of at most 200 characters. */
function flat(text: string): string {
  return clip(text.replace(/\s+/g, ' ').trim(), 200);
}
