/**
 * One turn of a simulated user: a model (purpose `simulate-user`, key = the simulated session's id)
 * plays a profile — its `<profile>` block in the system prompt — and, on a turn chosen for an out-of-workflow move,
 * reads the `<oow>` block with that move's instruction. It sees the conversation with the roles flipped: the bot's
 * replies are the `user` messages of its call and its own earlier messages are `assistant` ones. It ends the
 * session by answering `[END]`.
 */
import { WeftError } from '../errors.js';
import type { ChatMessage, ChatModel, ChatResult } from '../llm/chat-model.js';
import { DIALOG_END_MARKER, DIALOG_TAGS, dialogBlock, type DialogOowSpec } from './dialog-prompt-tags.js';
import { oowInstruction } from './oow.js';
import type { OowTaxonomy } from './oow-taxonomy.js';
import { profileSpec, type UserProfile } from './profiles.js';
import type { OowTag } from './session-events.js';

export const END_MARKER = DIALOG_END_MARKER;

/** The conversation so far, from the user's side. */
export interface SimulatedExchange {
  readonly role: 'user' | 'bot';
  readonly text: string;
}

export interface SimulatedUserTurnOptions {
  readonly profile: UserProfile;
  readonly history: readonly SimulatedExchange[];
  /** This turn is an out-of-workflow move of this kind. */
  readonly oow?: OowTag;
  /** Where the move's instruction comes from (default: the built-in taxonomy). */
  readonly taxonomy?: OowTaxonomy;
  /** The simulated session's id. */
  readonly key: string;
  readonly signal?: AbortSignal;
}

export interface SimulatedUserTurn {
  /** The message for the bot ('' when the user ended without one). */
  readonly text: string;
  /** The user said [END]: the session is over and `text` is not sent. */
  readonly ended: boolean;
  readonly result: ChatResult;
}

/** Shown as the bot's side before the conversation starts: providers need a user message to answer. */
const OPENING = '(The assistant is ready. Write your first message.)';

const role = (invents: boolean): string =>
  [
    'You play a customer who contacts a company’s service assistant. Stay in character: the profile below says who',
    'you are, what you know (details) and what you want (needs). Give a detail only when the assistant asks for it',
    invents
      ? 'or when it is natural to; when it asks for one your profile does not give, make up a plausible value that fits your needs, and keep to it.'
      : 'or when it is natural to; never invent details that are not in your profile — say you do not know instead.',
    'Talk the way your style and pattern say. Write only your next message to the assistant, as plain text: no',
    'role labels, no quotes, no explanation.',
    `When your needs are met, or you decide to give up or stop, answer exactly ${END_MARKER} and nothing else.`,
  ].join('\n');

export function simulatedUserSystemPrompt(profile: UserProfile, oow?: OowTag, taxonomy?: OowTaxonomy): string {
  const spec = profileSpec(profile);
  const parts = [role(spec.inventsDetails === true), '', 'Your profile:', dialogBlock(DIALOG_TAGS.profile, spec)];
  if (oow) {
    const spec: DialogOowSpec = {
      category: oow.category,
      ...(oow.subtype === undefined ? {} : { subtype: oow.subtype }),
      instruction: oowInstruction(oow, taxonomy),
    };
    parts.push(
      '',
      'For this message only, leave the expected flow of the conversation as described here:',
      dialogBlock(DIALOG_TAGS.oow, spec),
      spec.instruction,
    );
  }
  return parts.join('\n');
}

/** The conversation with roles flipped: the bot speaks as `user` to the user model. */
export function simulatedUserMessages(history: readonly SimulatedExchange[]): ChatMessage[] {
  const messages: ChatMessage[] = history.map((exchange) =>
    exchange.role === 'bot' ? { role: 'user', content: exchange.text } : { role: 'assistant', content: exchange.text },
  );
  if (messages[0]?.role !== 'user') messages.unshift({ role: 'user', content: OPENING });
  return messages;
}

export async function simulateUserTurn(
  model: ChatModel,
  options: SimulatedUserTurnOptions,
): Promise<SimulatedUserTurn> {
  const result = await model.generate(
    {
      system: simulatedUserSystemPrompt(options.profile, options.oow, options.taxonomy),
      messages: simulatedUserMessages(options.history),
      tag: { purpose: 'simulate-user', key: options.key },
    },
    options.signal,
  );
  const raw = result.text;
  if (raw.includes(END_MARKER)) return { text: raw.replaceAll(END_MARKER, '').trim(), ended: true, result };
  const text = raw.trim();
  if (text === '')
    throw new WeftError(
      'PARSE',
      `the user model (${model.id}) answered an empty message instead of one or ${END_MARKER}`,
    );
  return { text, ended: false, result };
}
