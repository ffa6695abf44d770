/**
 * One decision of the bot: given the procedure, the conversation so far and the controllers' guidance,
 * the model proposes either an API call or a reply to the user. The engine (conversation.ts) calls it once per
 * attempt; turn-level evaluation (`weft dialog eval`) calls it on each prefix of a reference session.
 * Native tool calls where the model has them; models without go through the prompted fallback, which createModel
 * adds (llm/prompted-tools.ts).
 */
import type { ChatCall, ChatMessage, ChatModel, Usage } from '../llm/chat-model.js';
import type { JsonValue, Tool } from '../tools/tool.js';
import { toolDeclaration } from '../tools/tool-loop.js';
import { botSystemPrompt } from './bot-prompt.js';
import { splitThought } from './split-thought.js';
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
  /** Hears the model's text as it arrives (for display; see reply-stream.ts for what of it a user sees). */
  readonly onStream?: ChatCall['onStream'];
}

export interface ProposedDecision {
  readonly action: ProposedAction;
  readonly thought?: string;
  readonly usage: Usage;
  /** The provider's model name as it answered. */
  readonly model: string;
}

export async function proposeAction(
  pdl: Pdl,
  history: readonly ChatMessage[],
  options: ProposeActionOptions,
): Promise<ProposedDecision> {
  const tools = options.tools.map(toolDeclaration);
  const result = await options.model.generate(
    {
      system: botSystemPrompt(pdl, options.guidance),
      messages: history,
      ...(tools.length > 0 ? { tools, toolChoice: 'auto' as const } : {}),
      tag: {
        purpose: 'converse',
        ...(options.key === undefined
          ? {}
          : { key: options.turn === undefined ? options.key : `${options.key}#${options.turn}` }),
        ...(options.attempt === undefined ? {} : { attempt: options.attempt }),
      },
      ...(options.onStream ? { onStream: options.onStream } : {}),
    },
    options.signal,
  );
  const [call] = result.toolCalls ?? [];
  if (call) {
    const thought = result.text.trim();
    return {
      // One action at a time: further calls in the same reply are dropped (the prompt asks for one).
      action: { kind: 'tool', callId: call.id, name: call.name, args: call.args as JsonValue },
      ...(thought ? { thought } : {}),
      usage: result.usage,
      model: result.model,
    };
  }
  const { thought, response } = splitThought(result.text);
  return {
    action: { kind: 'reply', text: response },
    ...(thought ? { thought } : {}),
    usage: result.usage,
    model: result.model,
  };
}
