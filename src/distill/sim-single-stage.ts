/**
 * The sim in a single-stage baseline (distill-sim.ts, purpose `distill`, phase `single`): first it solves the
 * instance the way the reference workflow would — each reply re-runs the reference on the `<task-input>` block's
 * input, the business calls already in the conversation returning their recorded results in order, and the first
 * call beyond them becomes the reply's tool call — then it builds the graph (sim-summarize.ts, with its mistakes)
 * and answers the reference's output as JSON. Deterministic: the same conversation always gets the same reply.
 * A recorded call that differs from the reference's, a tool error, or a failing run ends the solving part; the
 * sim then builds anyway and answers that it could not solve the instance.
 */
import type { ChatCall } from '../llm/chat-model.js';
import { readJsonBlock } from '../text/json-block.js';
import type { SimOptions } from '../llm/sim-options.js';
import { nextToolCallNumber, toolCallId } from '../llm/tool-call-ids.js';
import type { DistillSimReply } from './distill-sim-reply.js';
import { DISTILL_TAGS } from './distill-prompt.js';
import { isGraphOperation } from './graph-builder.js';
import { recordedCalls, stepReference } from './replay-reference.js';
import { simSummarizeReply } from './sim-summarize.js';
import type { ExecutableWorkflow } from './workflow.js';

export async function simSingleStageReply(
  call: ChatCall,
  reference: ExecutableWorkflow,
  options: SimOptions,
): Promise<DistillSimReply> {
  const planning = (call.tools ?? []).length === 0 && !call.messages.some((message) => message.role === 'assistant');
  // P&E's planning call offers no tools: the plan is the reference's tool calls, then the graph.
  if (planning) {
    const steps = reference.nodes.flatMap((node) =>
      node.kind === 'tool' ? [`call ${node.tool} with ${JSON.stringify(node.args ?? {})}`] : [],
    );
    return { text: JSON.stringify([...steps, `build the workflow ${reference.name} with the graph tools`]) };
  }
  const recorded = recordedCalls(call.messages, (name) => !isGraphOperation(name));
  const building = call.messages.some(
    (message) => message.role === 'assistant' && (message.toolCalls ?? []).some((c) => isGraphOperation(c.name)),
  );
  const step = await stepReference(reference, readJsonBlock(call.system ?? '', DISTILL_TAGS.input), recorded);
  if (!building && step.kind === 'call' && (call.tools ?? []).some((tool) => tool.name === step.tool)) {
    return {
      text: '',
      toolCalls: [{ id: toolCallId(nextToolCallNumber(call.messages)), name: step.tool, args: step.args }],
    };
  }
  const answer =
    step.kind === 'done'
      ? JSON.stringify(step.output)
      : `sim: could not solve the instance as the reference does (${step.kind === 'call' ? `no call of ${step.tool} was made` : step.reason})`;
  // A re-prompt for an answer that could not be read (no tools offered, after the conversation): the same again.
  if ((call.tools ?? []).length === 0) return { text: answer };
  return simSummarizeReply(call, reference, options, { executed: step.consumed, answer });
}
