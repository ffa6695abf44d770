/**
 * One decision of the bot (SPEC §4.2): given the procedure, the conversation so far and the controllers' guidance,
 * the model proposes either an API call or a reply to the user. The engine (conversation.ts) calls it once per
 * attempt; turn-level evaluation (`weft dialog eval`) calls it on each prefix of a reference session.
 * Native tool calls where the model has them; models without go through the prompted fallback, which createModel
 * adds (llm/prompted-tools.ts).
 */
import type { ChatMessage, ChatModel, Usage } from '../llm/chat-model.js';
import type { Tool } from '../tools/tool.js';
import type { ProposedAction } from './controller.js';
import type { Pdl } from './pdl.js';

export interface ProposeActionOptions {
  readonly model: ChatModel;
  /** The APIs as tools, in PDL order. */
  readonly tools: readonly Tool[];
  /** Pre-decision controllers' guidance, added to the prompt. */
  readonly guidance: readonly string[];
  /** For seeded models: the session (or reference) id and the turn, so decisions are reproducible. */
  readonly key?: string;
  readonly turn?: number;
  readonly attempt?: number;
  readonly signal?: AbortSignal;
}

export interface ProposedDecision {
  readonly action: ProposedAction;
  readonly thought?: string;
  readonly usage: Usage;
  /** The provider's model name as it answered. */
  readonly model: string;
}

export async function proposeAction(
  _pdl: Pdl,
  _history: readonly ChatMessage[],
  _options: ProposeActionOptions,
): Promise<ProposedDecision> {
  throw new Error('proposeAction: not built yet');
}
