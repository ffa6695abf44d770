/**
 * Token counts for models that have no tokenizer (scripted, sim) and for budgets checked before a call.
 * The rule of thumb — four characters a token, rounded up — is what the scripted and sim models report.
 */
import type { ChatCall, Usage } from './chat-model.js';

export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The prompt as one text: the system prompt and every message, joined by newlines. */
export function promptText(call: ChatCall): string {
  const parts = call.system === undefined ? [] : [call.system];
  for (const message of call.messages) parts.push(message.content);
  return parts.join('\n');
}

/** Estimated usage of a call that answered `reply`. */
export function estimateUsage(call: ChatCall, reply: string): Usage {
  return { inputTokens: estimateTokens(promptText(call)), outputTokens: estimateTokens(reply) };
}

/** The sum of several usages. */
export function addUsage(...usages: readonly Usage[]): Usage {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const usage of usages) {
    inputTokens += usage.inputTokens;
    outputTokens += usage.outputTokens;
  }
  return { inputTokens, outputTokens };
}
