/**
 * Out-of-workflow (OOW) moves of simulated users (SPEC §4.3): the three categories of the FlowAgent evaluation,
 * each with two subtypes, and the instruction the user model reads on a turn chosen for one.
 *
 * The category is drawn at random from a seeded source on each user turn, independently (the paper's code used
 * the profile id mod 3, which ties a profile to one category forever). The instructions are ours.
 */
import { bernoulli, pick, type RandomSource } from '../llm/seeded-random.js';
import { OOW_CATEGORIES, type OowCategory, type OowTag } from './session-events.js';

export const OOW_SUBTYPES: Readonly<Record<OowCategory, readonly string[]>> = {
  intent_switching: ['detail_switching', 'cancellation'],
  procedure_jumping: ['skip_ahead', 'go_back'],
  irrelevant_answering: ['topic_shift', 'rhetorical_question'],
};

const INSTRUCTIONS: Readonly<Record<string, string>> = {
  'intent_switching/detail_switching':
    'In this message, change your mind about one detail you already gave (for example a different date, amount or ' +
    'item) and give the new value. Keep the rest of your request as it was.',
  'intent_switching/cancellation':
    'In this message, say that you want to drop your request or undo what was just done. If the assistant asks ' +
    'you to confirm, decide according to your profile whether you really want to stop.',
  'procedure_jumping/skip_ahead':
    'In this message, ask for the final result of your request straight away, as if the steps the assistant is ' +
    'going through (checks, confirmations, questions) were unnecessary.',
  'procedure_jumping/go_back':
    'In this message, return to a step that is already behind you: ask to redo or re-check something the ' +
    'assistant already handled earlier in the conversation.',
  'irrelevant_answering/topic_shift':
    'In this message, do not answer what the assistant asked. Talk about something unrelated to your request ' +
    '(a question about the company, the weather, your day), then stop.',
  'irrelevant_answering/rhetorical_question':
    'In this message, answer the assistant with a rhetorical question or a remark that does not give the ' +
    'information it asked for (for example "Why does this always take so long?").',
};

/** The tag as written in reports and reference sessions: `category/subtype`. */
export function oowLabel(tag: OowTag): string {
  return `${tag.category}/${tag.subtype}`;
}

/** The instruction a user model reads for a tag. */
export function oowInstruction(tag: OowTag): string {
  return INSTRUCTIONS[oowLabel(tag)] ?? `Make an out-of-workflow move of the kind "${oowLabel(tag)}".`;
}

/**
 * Whether this user turn is an out-of-workflow one (probability `probability`), and which: a category, then one
 * of its subtypes, uniformly. Always draws three numbers, so one turn's outcome does not shift the next turn's.
 */
export function drawOow(random: RandomSource, probability: number): OowTag | undefined {
  const inject = bernoulli(random, probability);
  const category = pick(random, OOW_CATEGORIES);
  const subtype = pick(random, OOW_SUBTYPES[category]);
  return inject ? { category, subtype } : undefined;
}

/**
 * Reads `category/subtype` (reference sessions). Undefined when it names no known category; a subtype outside
 * ours is kept (other data sets name their own).
 */
export function parseOowLabel(label: string): OowTag | undefined {
  const [category, subtype, ...rest] = label.split('/');
  if (rest.length > 0 || !subtype || !(OOW_CATEGORIES as readonly string[]).includes(category ?? '')) return undefined;
  return { category: category as OowCategory, subtype };
}
