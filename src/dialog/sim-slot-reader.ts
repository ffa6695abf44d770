/**
 * How the sim bot reads details from a person's plain words, as a model reading the slot list of its prompt would:
 * `name: value` pairs first (sim-details.ts); without pairs, values recognised by what each slot's description
 * says they look like, and a bare answer to the question the bot just asked. Pure.
 *
 * What a slot's value looks like (slotShapes):
 * - an email address, when the slot's name or description says email;
 * - a date, when its type is `date` or its description says YYYY-MM-DD;
 * - the shape of the example its description gives (`e.g. O-5005` → one capital, a dash, four digits), when the
 *   example holds a digit (a word like `photos` is no identifier);
 * - one of a closed list: the tool schema's `enum` for a parameter of that name, else a list the description ends
 *   with (`How to refund, original_payment or store_credit`), matched by its words (`original payment`);
 * - a number, for `int`/`number` slots, only when the bot asked for it (`Just the one` → 1).
 * A recognised value goes to the one slot it fits (among those asked, when one of them fits); two slots it fits
 * equally leave it unassigned. A slot with no shape that the bot asked for alone (or alone of those still missing)
 * gets the first sentence nobody else used, unless it is a question, a cancellation or a non-answer (`no`, `hmm`).
 */
import type { ToolDeclaration } from '../llm/chat-model.js';
import { isRecord } from './sim-dialog-blocks.js';
import { readDetailPairs } from './sim-details.js';
import type { SimSlot } from './sim-bot-prompt.js';

/** How a slot's value is recognised in free text; `free` when nothing says. */
export type SlotShape =
  | { readonly kind: 'pattern'; readonly pattern: RegExp; readonly group: string }
  | { readonly kind: 'enum'; readonly options: readonly { readonly value: string; readonly pattern: RegExp }[] }
  | { readonly kind: 'number' }
  | { readonly kind: 'free' };

const EMAIL = /(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
const DATE = /(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-])/g;
const EXAMPLE = /\be\.g\.\s+([^\s,;()]+)/i;
const NUMBER = /(?<![\w.-])\d+(?:\.\d+)?(?![\w-])/g;
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  both: 2,
  single: 1,
};
const NUMBER_WORD = new RegExp(`\\b(${Object.keys(NUMBER_WORDS).join('|')})\\b`, 'gi');
/** A list the description ends with: `…, a, b or c` or `…, one of a, b, c`. */
const LIST_TAIL = /^(?:one of )?([\w-]+(?:, [\w-]+)*),? or ([\w-]+)$|^one of ([\w-]+(?:, [\w-]+)+)$/i;
const NON_ANSWER =
  /^(?:no|nope|not sure|i don'?t know|no idea|why|what|hmm+|ok(?:ay)?|yes|sure|thanks|thank you|hello|hi)$/i;
const CANCEL = /\b(?:cancel|changed my mind|never ?mind|forget it)\b/i;

/** The shape of each slot's value, by slot name; `tools` give the `enum`s of parameters of the same name. */
export function slotShapes(slots: readonly SimSlot[], tools: readonly ToolDeclaration[]): Map<string, SlotShape> {
  const shapes = new Map<string, SlotShape>();
  for (const slot of slots) shapes.set(slot.name, shapeOf(slot, schemaEnum(slot.name, tools)));
  return shapes;
}

function shapeOf(slot: SimSlot, enumValues: readonly string[] | undefined): SlotShape {
  const type = slot.type.toLowerCase();
  if (/email/i.test(slot.name) || /\bemail\b/i.test(slot.desc))
    return { kind: 'pattern', pattern: EMAIL, group: 'email' };
  if (type === 'date' || /YYYY-MM-DD/.test(slot.desc)) return { kind: 'pattern', pattern: DATE, group: 'date' };
  const example = EXAMPLE.exec(slot.desc)?.[1]?.replace(/[.]+$/, '');
  if (example && /\d/.test(example) && /^[\w-]+$/.test(example)) {
    const source = exampleShape(example);
    return { kind: 'pattern', pattern: new RegExp(source, 'g'), group: source };
  }
  const options = enumValues ?? listedOptions(slot.desc);
  if (options && options.length >= 2) return { kind: 'enum', options: options.map(optionPattern) };
  if (['int', 'integer', 'number', 'float'].includes(type)) return { kind: 'number' };
  return { kind: 'free' };
}

/** `O-5005` → capitals, a dash, four digits; a run mixing letters and digits keeps its length and needs a digit. */
function exampleShape(example: string): string {
  const runs = example.split(/([^A-Za-z0-9]+)/).map((run, index) => {
    if (index % 2 === 1) return run.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (/^\d+$/.test(run)) return `\\d{${run.length}}`;
    if (/^[A-Z]+$/.test(run)) return `[A-Z]{${run.length}}`;
    if (/^[a-z]+$/.test(run)) return `[a-z]{${run.length}}`;
    return `(?=[A-Za-z]*\\d)[A-Za-z0-9]{${run.length}}`;
  });
  return `(?<![\\w-])${runs.join('')}(?![\\w-])`;
}

function schemaEnum(name: string, tools: readonly ToolDeclaration[]): string[] | undefined {
  for (const tool of tools) {
    const properties = tool.inputSchema['properties'];
    const property = isRecord(properties) ? properties[name] : undefined;
    const values = isRecord(property) && Array.isArray(property['enum']) ? property['enum'] : undefined;
    const strings = values?.filter((value): value is string => typeof value === 'string' && value !== '');
    if (strings && strings.length > 0) return strings;
  }
  return undefined;
}

/** The options of a description that ends with a list after its first comma; undefined when it does not. */
function listedOptions(desc: string): string[] | undefined {
  const comma = desc.indexOf(', ');
  if (comma < 0) return undefined;
  const tail = desc
    .slice(comma + 2)
    .trim()
    .replace(/\.$/, '');
  if (/^e\.g\./i.test(tail)) return undefined;
  const match = LIST_TAIL.exec(tail);
  if (!match) return undefined;
  return match[3] !== undefined ? match[3].split(', ') : [...match[1]!.split(', '), match[2]!];
}

/** An option matches its words in order, whole, in any case: `original_payment` in "my original payment". */
function optionPattern(value: string): { value: string; pattern: RegExp } {
  const words = value
    .split(/[_\s-]+/)
    .filter((word) => word !== '')
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return { value, pattern: new RegExp(`(?<![\\w-])${words.join('[\\s_-]+')}(?![\\w-])`, 'i') };
}

/**
 * The details of one message of the person, in the order found: its `name: value` pairs when it has any, else
 * what the shapes recognise and the bare answer to `asked` (the names the bot's last reply asked for).
 */
export function readUserDetails(
  text: string,
  asked: readonly string[],
  shapes: ReadonlyMap<string, SlotShape>,
): [name: string, value: string | number][] {
  const pairs = readDetailPairs(text);
  if (pairs.length > 0) return pairs;
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
  const used = new Set<number>();
  const found = new Map<string, string | number>();
  const sentenceOf = (index: number): number => {
    let offset = 0;
    for (let at = 0; at < sentences.length; at++) {
      offset = text.indexOf(sentences[at]!, offset);
      if (index < offset + sentences[at]!.length) return at;
      offset += sentences[at]!.length;
    }
    return sentences.length - 1;
  };
  const take = (name: string, value: string | number, index: number): void => {
    found.set(name, value);
    used.add(sentenceOf(index));
  };

  // Patterns shared by several slots (two date slots) go to the one asked for, else to nobody.
  const groups = new Map<string, { pattern: RegExp; names: string[] }>();
  for (const [name, shape] of shapes) {
    if (shape.kind !== 'pattern') continue;
    const group = groups.get(shape.group) ?? { pattern: shape.pattern, names: [] };
    group.names.push(name);
    groups.set(shape.group, group);
  }
  for (const { pattern, names } of groups.values()) {
    const match = new RegExp(pattern.source, 'g').exec(text);
    if (!match) continue;
    const wanted = names.filter((name) => asked.includes(name));
    const targets = wanted.length > 0 ? wanted : names;
    if (targets.length === 1) take(targets[0]!, match[0], match.index);
  }
  for (const [name, shape] of shapes) {
    if (shape.kind === 'enum') {
      const hits = shape.options.flatMap((option) => {
        const match = option.pattern.exec(text);
        return match ? [{ value: option.value, index: match.index }] : [];
      });
      if (hits.length === 1) take(name, hits[0]!.value, hits[0]!.index);
    } else if (shape.kind === 'number' && asked.includes(name) && !found.has(name)) {
      const number = firstNumber(text);
      if (number) take(name, number.value, number.index);
    }
  }

  const open = asked.filter((name) => !found.has(name) && (shapes.get(name) ?? { kind: 'free' }).kind === 'free');
  if (open.length === 1) {
    const index = sentences.findIndex((sentence, at) => !used.has(at) && isAnswer(sentence));
    if (index >= 0) found.set(open[0]!, sentences[index]!.replace(/[.!]+$/, '').trim());
  }
  return [...found];
}

function firstNumber(text: string): { value: number; index: number } | undefined {
  const digits = new RegExp(NUMBER.source, 'g').exec(text);
  const word = new RegExp(NUMBER_WORD.source, 'gi').exec(text);
  if (digits && (!word || digits.index <= word.index)) return { value: Number(digits[0]), index: digits.index };
  if (word) return { value: NUMBER_WORDS[word[0].toLowerCase()]!, index: word.index };
  return undefined;
}

/** A sentence that can be a value: not a question, a cancellation or a bare no/hmm/thanks. */
function isAnswer(sentence: string): boolean {
  const bare = sentence.replace(/[.!]+$/, '').trim();
  return bare !== '' && !sentence.endsWith('?') && !CANCEL.test(sentence) && !NON_ANSWER.test(bare);
}
