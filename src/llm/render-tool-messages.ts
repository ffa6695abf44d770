/**
 * Tool calls and results as plain text, for models that read the conversation as text: the prompted fallback
 * (prompted-tools.ts) sends them so, and the scripted model matches `when` against them. The format is part of
 * docs/contracts.md ("Prompted tool calls").
 */
import type { ChatMessage } from './chat-model.js';

/**
 * The conversation with tool calls and results as text: an assistant's calls become the JSON objects it would have
 * written, and consecutive results become one user message. `required` (set when tools are offered) adds a reminder
 * of the format after results that end the conversation.
 */
export function renderToolMessages(messages: readonly ChatMessage[], required: boolean | undefined): ChatMessage[] {
  const rendered: ChatMessage[] = [];
  let results: string[] | undefined;
  const flush = (): void => {
    if (results) rendered.push({ role: 'user', content: results.join('\n\n') });
    results = undefined;
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      results ??= [];
      const label = message.isError ? 'Error from tool' : 'Result of tool';
      results.push(`${label} ${message.name} (${message.toolCallId}):\n${message.content}`);
      continue;
    }
    flush();
    if (message.role === 'assistant' && message.toolCalls?.length) {
      const calls = message.toolCalls.map((toolCall) => JSON.stringify({ tool: toolCall.name, args: toolCall.args }));
      rendered.push({
        role: 'assistant',
        content: [message.content, ...calls].filter((part) => part !== '').join('\n'),
      });
    } else if (message.role === 'assistant') {
      rendered.push({ role: 'assistant', content: message.content });
    } else {
      rendered.push(message);
    }
  }
  if (results && required !== undefined) {
    results.push(
      required
        ? 'Reply with one JSON object: {"tool": ..., "args": ...}.'
        : 'Reply with one JSON object: {"tool": ..., "args": ...} for another tool, or {"answer": ...}.',
    );
  }
  flush();
  return rendered;
}
