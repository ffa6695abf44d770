/**
 * Ids for tool calls a model made without giving one (the prompted fallback, scripted and sim models, servers that
 * omit them): `call_<n>`, numbered on from the calls already in the conversation, so they stay unique within it
 * and the same conversation always gets the same ids (a resumed run replays identically).
 */
import type { ChatMessage } from './chat-model.js';

/** The number the next unnamed call of this conversation gets: one more than the calls made so far. */
export function nextToolCallNumber(messages: readonly ChatMessage[]): number {
  let count = 0;
  for (const message of messages) if (message.role === 'assistant') count += message.toolCalls?.length ?? 0;
  return count + 1;
}

export function toolCallId(number: number): string {
  return `call_${number}`;
}
