/**
 * Tool calling for models without native tools (a local GGUF, small OpenAI-compatible servers): the tools and the
 * answer format go into the system prompt, the model answers ONE JSON object in its text, and that object is parsed
 * with the structured-output pipeline (extract → jsonrepair → validate → re-prompt, docs/algorithms.md).
 *
 * The format (docs/contracts.md, "Prompted tool calls"):
 *
 *     {"tool": "<tool name>", "args": { ...the tool's arguments... }}     to call a tool
 *     {"answer": "<the reply>"}                                        to answer (not with toolChoice `required`)
 *
 * `name` for `tool` and `arguments`/`parameters`/`input` for `args` are accepted too (what models trained on other
 * formats write). The reply validates when the tool exists and its arguments are an object; whether they fit the
 * tool's schema is the tool layer's check, which the model then sees as the tool's error. A call gets the id
 * `call_<n>` (n counts the calls already in the conversation). Earlier calls and results are shown to the model as
 * text in the same format, so the conversation stays plain user/assistant turns any chat template can render.
 * With `call.json` the answer's JSON schema goes to the model (node-llama-cpp turns it into a grammar, one branch
 * per tool with that tool's argument schema); servers without a grammar ignore it.
 */
import { z } from 'zod';
import type { ChatCall, ChatModel, ToolCallRequest, ToolDeclaration } from './chat-model.js';
import { DEFAULT_MAX_REPAIRS, generateStructured } from './structured-output.js';
import { renderToolMessages } from './render-tool-messages.js';
import { nextToolCallNumber, toolCallId } from './tool-call-ids.js';
import { wrapModel } from './wrap-model.js';

export interface PromptedToolsOptions {
  /** Re-prompts after a reply that is not a valid tool call or answer (default 2, so at most 3 calls). */
  readonly maxRepairs?: number;
}

/** What one reply meant. */
export type PromptedReply =
  | { readonly kind: 'tool'; readonly name: string; readonly args: Record<string, unknown> }
  | { readonly kind: 'answer'; readonly text: string };

/**
 * The model, answering `call.tools` through its text. Calls without tools pass through (earlier tool calls and
 * results in the conversation are still turned into text, which the model can read).
 */
export function withPromptedTools(model: ChatModel, options: PromptedToolsOptions = {}): ChatModel {
  const maxRepairs = options.maxRepairs ?? DEFAULT_MAX_REPAIRS;
  return wrapModel(model, {
    toolCalling: 'prompted',
    async wrapGenerate({ call, signal, next }) {
      const tools = call.toolChoice === 'none' ? [] : (call.tools ?? []);
      const { tools: _tools, toolChoice: _choice, ...rest } = call;
      const hasToolMessages = call.messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && m.toolCalls));
      if (tools.length === 0 && !hasToolMessages) return next(rest, signal);

      const required = call.toolChoice === 'required';
      const inner: ChatCall = {
        ...rest,
        messages: renderToolMessages(call.messages, tools.length > 0 ? required : undefined),
      };
      if (tools.length === 0) return next(inner, signal);

      // The reply is a JSON object, not text for a reader: nothing of it is streamed (onStream is left out), and a
      // listener learns the answer from the result.
      const { onStream: _onStream, ...quiet } = inner;
      const structured = await generateStructured(
        model,
        {
          ...quiet,
          system: [call.system, toolsPrompt(tools, required)]
            .filter((part) => part !== undefined && part !== '')
            .join('\n\n'),
          json: { schema: promptedReplySchema(tools, required), name: 'tool_call_or_answer' },
        },
        promptedReplyValidator(tools, required),
        { maxRepairs, ...(signal ? { signal } : {}) },
      );
      const reply = structured.value;
      const base = { usage: structured.usage, model: structured.result.model };
      if (reply.kind === 'answer') return { text: reply.text, ...base };
      const toolCall: ToolCallRequest = {
        id: toolCallId(nextToolCallNumber(call.messages)),
        name: reply.name,
        args: reply.args,
      };
      return { text: '', toolCalls: [toolCall], ...base };
    },
  });
}

/** The system prompt's part that offers the tools and fixes the answer format. */
export function toolsPrompt(tools: readonly ToolDeclaration[], required: boolean): string {
  const lines = [
    'You can call tools. To call one, reply with only this JSON object:',
    '{"tool": "<tool name>", "args": {<the arguments, as the tool\'s schema says>}}',
    "The tool's result comes back in the next message.",
    required
      ? 'You must call a tool now.'
      : 'When you can answer without another tool, reply with only: {"answer": "<your answer>"}',
    'Reply with exactly one JSON object and nothing else.',
    '',
    'Tools:',
  ];
  for (const tool of tools) {
    lines.push(`- ${tool.name}: ${tool.description.trim() || '(no description)'}`);
    lines.push(`  args schema: ${JSON.stringify(tool.inputSchema)}`);
  }
  return lines.join('\n');
}

/** The JSON schema of a valid reply: one branch per tool (with its argument schema), and the answer's. */
export function promptedReplySchema(tools: readonly ToolDeclaration[], required: boolean): Record<string, unknown> {
  const branches: Record<string, unknown>[] = tools.map((tool) => ({
    type: 'object',
    properties: { tool: { const: tool.name }, args: tool.inputSchema },
    required: ['tool', 'args'],
  }));
  if (!required) {
    branches.push({ type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] });
  }
  return { oneOf: branches };
}

/** Checks one JSON value of a reply; the message of a failure is what the re-prompt shows the model. */
export function promptedReplyValidator(tools: readonly ToolDeclaration[], required: boolean): z.ZodType<PromptedReply> {
  const names = tools.map((tool) => tool.name);
  return z.unknown().transform((value, context): PromptedReply => {
    const fail = (message: string): never => {
      context.addIssue({ code: 'custom', message });
      return z.NEVER as never;
    };
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail(
        `expected one JSON object, {"tool": "<name>", "args": {...}}${required ? '' : ' or {"answer": "..."}'}`,
      );
    }
    const record = value as Record<string, unknown>;
    const name = record['tool'] ?? record['name'];
    if (name === undefined) {
      if ('answer' in record) {
        if (required)
          return fail(
            `a tool must be called now: reply {"tool": "<name>", "args": {...}} (tools: ${names.join(', ')})`,
          );
        const answer = record['answer'];
        return { kind: 'answer', text: typeof answer === 'string' ? answer : JSON.stringify(answer) };
      }
      return fail(`expected a "tool" key naming one of ${names.join(', ')}${required ? '' : ', or an "answer" key'}`);
    }
    if (typeof name !== 'string') return fail(`"tool" must be a tool's name (one of ${names.join(', ')})`);
    if (!names.includes(name)) return fail(`there is no tool "${name}"; the tools are ${names.join(', ')}`);
    let args = record['args'] ?? record['arguments'] ?? record['parameters'] ?? record['input'] ?? {};
    if (typeof args === 'string') args = parseObject(args) ?? args;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return fail(`"args" must be a JSON object with the arguments of ${name}`);
    }
    return { kind: 'tool', name, args: args as Record<string, unknown> };
  });
}

/** Arguments a model wrote as JSON text inside the JSON (`"args": "{\"id\": 1}"`). */
function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
