/**
 * The sim model as a simulated user (purpose `simulate-user`), playing the `<profile>` of its system
 * prompt. Its call's `user` messages are the bot's; its own earlier messages are the `assistant` ones.
 *
 * - Before it has said anything: its first need (`needs[0]`) in a sentence.
 * - When the bot's last message closes the conversation (no question mark and no request, sim-details.ts) or says it
 *   cannot help: `[END]`, alone or after a thank-you.
 * - With an `<oow>` block (the turn chosen for an out-of-workflow move): that move instead of an answer —
 *   intent_switching: a detail given with a changed value, or a cancellation; procedure_jumping: asking to skip
 *   ahead or to go back; irrelevant_answering: a question on another topic, or a rhetorical one. The subtype picks
 *   the move when it names one (`cancel…`, `skip…`, `back…`, `rhetorical…`, …), else it is drawn.
 * - Otherwise it answers: the profile's details whose names (or the names with `_` as a space) the bot's message
 *   mentions, as `name: value` pairs; all of them when it mentions none. A value it changed in an earlier
 *   message stays changed.
 */
import type { ChatMessage } from '../llm/chat-model.js';
import { DIALOG_END_MARKER, type DialogOowSpec, type DialogProfileSpec } from './dialog-prompt-tags.js';
import { pick, type RandomSource } from '../llm/seeded-random.js';
import { asksForSomething, formatDetail, mentions, readDetailPairs, saysCannotHelp } from './sim-details.js';

export interface SimUserStreams {
  /** Which wording or variant (end, topic, move when the subtype names none). */
  readonly choice: RandomSource;
  /** Which detail an intent switch changes. */
  readonly detail: RandomSource;
}

const TOPIC_SHIFTS = [
  'By the way, what are your opening hours?',
  'Unrelated, but do you also sell gift cards?',
  'Oh, is it going to rain over there tomorrow?',
] as const;

const RHETORICAL = [
  'Why does everything have to be so complicated these days?',
  'Who even reads all these terms anyway?',
  "Isn't it funny how these things always happen on a Monday?",
] as const;

export function simUserReply(
  profile: DialogProfileSpec,
  oow: DialogOowSpec | undefined,
  messages: readonly ChatMessage[],
  streams: SimUserStreams,
): string {
  const spoken = messages.some((message) => message.role === 'assistant');
  if (!spoken) return firstMessage(profile.needs[0]);
  const botMessage = findLastUser(messages);
  if (!asksForSomething(botMessage) || saysCannotHelp(botMessage)) {
    return pick(streams.choice, [DIALOG_END_MARKER, `Thank you, that is all. ${DIALOG_END_MARKER}`]);
  }
  const details = currentDetails(profile, messages);
  if (oow) return oowMove(oow, details, streams);
  const names = Object.keys(details);
  const asked = names.filter((name) => mentions(botMessage, name));
  // A profile that lets its user make details up (the FlowAgent authors') answers the names the bot asks for that
  // it lacks, each with a value made from the name and kept for the rest of the session.
  const invented = profile.inventsDetails ? inventedDetails(botMessage, details, messages, streams.detail) : {};
  const given = asked.length > 0 || Object.keys(invented).length > 0 ? asked : names;
  if (given.length === 0 && Object.keys(invented).length === 0) return 'I do not have any details to give.';
  return `Sure. ${[
    ...given.map((name) => formatDetail(name, details[name])),
    ...Object.entries(invented).map(([name, value]) => formatDetail(name, value)),
  ].join(', ')}`;
}

/** The snake_case names a bot's message asks for that the profile lacks, with made-up values (earlier ones kept). */
function inventedDetails(
  botMessage: string,
  details: Record<string, unknown>,
  messages: readonly ChatMessage[],
  random: RandomSource,
): Record<string, string> {
  const known = new Set(Object.keys(details).map((name) => name.toLowerCase()));
  const asked = [...new Set(botMessage.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g) ?? [])].filter(
    (name) => !known.has(name),
  );
  const said = new Map<string, string>();
  for (const message of messages)
    if (message.role === 'assistant')
      for (const [name, value] of readDetailPairs(message.content)) said.set(name.toLowerCase(), value);
  return Object.fromEntries(
    asked.slice(0, 20).map((name) => {
      const initials = name
        .split('_')
        .map((part) => part[0] ?? '')
        .join('')
        .toUpperCase();
      return [name, said.get(name) ?? `${initials}${100 + Math.floor(random() * 900)}`];
    }),
  );
}

function firstMessage(need: string | undefined): string {
  const text = (need ?? '').trim().replace(/\s+/g, ' ');
  if (text === '') return 'Hi, I need some help.';
  return `Hi. ${text[0]!.toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
}

/** The profile's details with the values this user changed in its own earlier messages. */
function currentDetails(profile: DialogProfileSpec, messages: readonly ChatMessage[]): Record<string, unknown> {
  const details: Record<string, unknown> = Object.fromEntries(Object.entries(profile.details));
  const byLower = new Map(Object.keys(details).map((name) => [name.toLowerCase(), name]));
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const [name, value] of readDetailPairs(message.content)) {
      const own = byLower.get(name.toLowerCase());
      if (own === undefined) continue;
      const current = details[own];
      // Objects travel as JSON text; a value said back as text would replace them with a string.
      if (current === null || typeof current !== 'object') details[own] = value;
    }
  }
  return details;
}

/**
 * Which of the three kinds of move a tag is: by its category when it is one of the paper's three, else by words
 * in the category (a taxonomy file's own names), else a topic shift.
 */
function moveKind(oow: DialogOowSpec): 'intent_switching' | 'procedure_jumping' | 'irrelevant_answering' {
  const category = oow.category.toLowerCase();
  if (category === 'intent_switching' || category === 'procedure_jumping' || category === 'irrelevant_answering')
    return category;
  if (/intent|switch|cancel|chang|modif/.test(category)) return 'intent_switching';
  if (/jump|skip|step|process|procedure|order/.test(category)) return 'procedure_jumping';
  return 'irrelevant_answering';
}

function oowMove(oow: DialogOowSpec, details: Record<string, unknown>, streams: SimUserStreams): string {
  const subtype = (oow.subtype ?? '').toLowerCase();
  switch (moveKind(oow)) {
    case 'intent_switching': {
      const names = Object.keys(details);
      const move = /cancel|abort|quit|stop/.test(subtype)
        ? 'cancel'
        : /chang|slot|value|modif|updat|correct/.test(subtype)
          ? 'change'
          : pick(streams.choice, ['change', 'cancel'] as const);
      if (move === 'cancel' || names.length === 0) {
        return 'Actually, I have changed my mind. I want to cancel this request.';
      }
      const name = pick(streams.detail, names);
      return `Sorry, I gave you a wrong detail. ${formatDetail(name, changedValue(details[name]))}`;
    }
    case 'procedure_jumping': {
      const move = /back|previous|return|revisit|earlier|redo|repet|initial|start/.test(subtype)
        ? 'back'
        : /skip|ahead|jump|forward|next/.test(subtype)
          ? 'skip'
          : pick(streams.choice, ['skip', 'back'] as const);
      return move === 'skip'
        ? 'Can we skip this part and go straight to the last step?'
        : 'Wait, can we go back to the previous step first?';
    }
    case 'irrelevant_answering': {
      const move = /rhetor|counter/.test(subtype)
        ? 'rhetorical'
        : /topic|shift|unrelated|irrelevant|chit|small/.test(subtype)
          ? 'topic'
          : pick(streams.choice, ['topic', 'rhetorical'] as const);
      return pick(streams.choice, move === 'topic' ? TOPIC_SHIFTS : RHETORICAL);
    }
  }
}

/** Another value of the same kind: the last number in a text counted up (its width kept), a number + 1, `!b`. */
export function changedValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value + 1 : Math.round(value * 110) / 100 || 1;
  if (typeof value === 'boolean') return !value;
  if (typeof value !== 'string' || value === '') return 'something else';
  let end = value.length;
  while (end > 0 && !isDigit(value[end - 1])) end--;
  if (end === 0) return `${value}-2`;
  let start = end;
  while (start > 0 && isDigit(value[start - 1])) start--;
  const digits = value.slice(start, end);
  const next = String(BigInt(digits) + 1n).padStart(digits.length, '0');
  return `${value.slice(0, start)}${next}${value.slice(end)}`;
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

function findLastUser(messages: readonly ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'user') return message.content;
  }
  return '';
}
