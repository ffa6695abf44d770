/**
 * The sim in a single-stage baseline (distill-sim.ts, purpose `distill`, phase `single`): first it solves the
 * instance the way the reference workflow would — each reply re-runs the reference on the `<task-input>` block's
 * input, the business calls already in the conversation returning their recorded results in order, and the first
 * call beyond them becomes the reply's tool call — then it builds the graph (sim-summarize.ts, with its mistakes)
 * and answers the reference's output as JSON. Deterministic: the same conversation always gets the same reply.
 * A recorded call that differs from the reference's, a tool error, or a failing run ends the solving part; the
 * sim then builds anyway and answers that it could not solve the instance.
 */
import type { ChatCall, ChatMessage } from '../llm/chat-model.js';
import { readDialogBlock } from '../llm/dialog-prompt-tags.js';
import type { SimOptions } from '../llm/sim-options.js';
import { nextToolCallNumber, toolCallId } from '../llm/tool-call-ids.js';
import type { JsonValue, Tool } from '../tools/tool.js';
import type { DistillSimReply } from './distill-sim-reply.js';
import { DISTILL_TAGS } from './distill-prompt.js';
import { isGraphOperation } from './graph-builder.js';
import { runWorkflow } from './run-workflow.js';
import { simSummarizeReply } from './sim-summarize.js';
import type { ExecutableWorkflow } from './workflow.js';

/** Raised by a stand-in tool: the reference wants this call, which the conversation has not made yet. */
class NextCall extends Error {
  constructor(
    readonly tool: string,
    readonly args: JsonValue,
  ) {
    super(`next call: ${tool}`);
  }
}

interface Recorded {
  readonly name: string;
  readonly content: string;
  readonly isError: boolean;
}

export async function simSingleStageReply(
  call: ChatCall,
  reference: ExecutableWorkflow,
  options: SimOptions,
): Promise<DistillSimReply> {
  // P&E's planning call offers no tools: the plan is the reference's tool calls, then the graph.
  if ((call.tools ?? []).length === 0) {
    const steps = reference.nodes.flatMap((node) =>
      node.kind === 'tool' ? [`call ${node.tool} with ${JSON.stringify(node.args ?? {})}`] : [],
    );
    return { text: JSON.stringify([...steps, `build the workflow ${reference.name} with the graph tools`]) };
  }
  const recorded = businessCalls(call.messages);
  const building = call.messages.some(
    (message) => message.role === 'assistant' && (message.toolCalls ?? []).some((c) => isGraphOperation(c.name)),
  );
  const step = await stepReference(reference, readDialogBlock(call.system ?? '', DISTILL_TAGS.input), recorded);
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
  return simSummarizeReply(call, reference, options, { executed: step.consumed, answer });
}

type Step =
  | { readonly kind: 'call'; readonly tool: string; readonly args: JsonValue; readonly consumed: number }
  | { readonly kind: 'done'; readonly output: unknown; readonly consumed: number }
  | { readonly kind: 'failed'; readonly reason: string; readonly consumed: number };

/** Re-runs the reference with the recorded results: where it stops is the next call, or its output. */
async function stepReference(
  reference: ExecutableWorkflow,
  input: unknown,
  recorded: readonly Recorded[],
): Promise<Step> {
  let cursor = 0;
  const names = new Set(reference.nodes.flatMap((node) => (node.kind === 'tool' ? [node.tool] : [])));
  const tools: Tool[] = [...names].map((name) => ({
    name,
    description: 'the sim stand-in for a business tool',
    inputSchema: { type: 'object' },
    source: 'sim',
    async call(args: JsonValue): Promise<JsonValue> {
      const made = recorded[cursor];
      if (!made) throw new NextCall(name, args);
      cursor++;
      if (made.name !== name) throw new Error(`the conversation called ${made.name} where the reference calls ${name}`);
      if (made.isError) throw new Error(`${name} failed: ${made.content.slice(0, 200)}`);
      return parsed(made.content);
    },
  }));
  const object = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
  try {
    const run = await runWorkflow(reference, { tools, input: object as Record<string, unknown> });
    return { kind: 'done', output: run.output, consumed: cursor };
  } catch (error) {
    for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
      if (cause instanceof NextCall) return { kind: 'call', tool: cause.tool, args: cause.args, consumed: cursor };
    }
    return { kind: 'failed', reason: (error as Error).message, consumed: cursor };
  }
}

/** The business (non-graph) calls of the conversation that have a result, in order. */
function businessCalls(messages: readonly ChatMessage[]): Recorded[] {
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const message of messages) {
    if (message.role === 'tool')
      results.set(message.toolCallId, { content: message.content, isError: message.isError === true });
  }
  const recorded: Recorded[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const made of message.toolCalls ?? []) {
      const result = results.get(made.id);
      if (result && !isGraphOperation(made.name)) recorded.push({ name: made.name, ...result });
    }
  }
  return recorded;
}

function parsed(content: string): JsonValue {
  try {
    return JSON.parse(content) as JsonValue;
  } catch {
    return content;
  }
}
