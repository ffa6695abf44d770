/**
 * How the sim follows a reference workflow through a conversation (the execute stage, sim-solve.ts, and the
 * single-stage baselines, sim-single-stage.ts): re-run the reference with `runWorkflow`, each tool returning, in
 * order, the result already in the conversation; the first call beyond them is the next move, and a run that
 * reaches its end gives the answer. Deterministic: the same conversation always gives the same step.
 */
import type { ChatMessage } from '../llm/chat-model.js';
import type { JsonValue, Tool } from '../tools/tool.js';
import { runWorkflow } from './run-workflow.js';
import type { ExecutableWorkflow } from './workflow.js';

/** A tool call of the conversation with its result. */
export interface RecordedCall {
  readonly name: string;
  readonly content: string;
  readonly isError: boolean;
}

/** The tool calls of the conversation that have a result, in the order they were made; `include` filters by name. */
export function recordedCalls(
  messages: readonly ChatMessage[],
  include: (name: string) => boolean = () => true,
): RecordedCall[] {
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const message of messages) {
    if (message.role === 'tool')
      results.set(message.toolCallId, { content: message.content, isError: message.isError === true });
  }
  const recorded: RecordedCall[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const made of message.toolCalls ?? []) {
      const result = results.get(made.id);
      if (result && include(made.name)) recorded.push({ name: made.name, ...result });
    }
  }
  return recorded;
}

export type ReferenceStep =
  /** The reference's next call, which the conversation has not made yet. */
  | { readonly kind: 'call'; readonly tool: string; readonly args: JsonValue; readonly consumed: number }
  /** The reference reached its end with this output. */
  | { readonly kind: 'done'; readonly output: unknown; readonly consumed: number }
  /** A recorded call failed or differs from the reference's, or the reference itself failed. */
  | { readonly kind: 'failed'; readonly reason: string; readonly consumed: number };

/** Raised by a stand-in tool: the reference wants this call, which the conversation has not made yet. */
class NextCall extends Error {
  constructor(
    readonly tool: string,
    readonly args: JsonValue,
  ) {
    super(`next call: ${tool}`);
  }
}

/** Where the reference stands after the recorded calls: its next call, its output, or why it cannot go on. */
export async function stepReference(
  reference: ExecutableWorkflow,
  input: unknown,
  recorded: readonly RecordedCall[],
): Promise<ReferenceStep> {
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
      if (made.isError) throw new Error(`the tool ${name} failed: ${made.content.slice(0, 200)}`);
      return resultValue(made.content);
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

/** A tool message's content as the value the tool returned: JSON text parsed, any other text as the string. */
function resultValue(content: string): JsonValue {
  try {
    return JSON.parse(content) as JsonValue;
  } catch {
    return content;
  }
}
