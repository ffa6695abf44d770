/**
 * The sim model as the bot of a conversational procedure (purpose `converse`): from the bot's system prompt — the
 * `<apis>` block (DialogApiSpec[]), the slots it may need and the controllers' notes for this step
 * (sim-bot-prompt.ts) — and the conversation so far it makes the move a procedure-following bot would, or with
 * probability `violate` a slip that breaks the procedure, so the controllers have something to catch.
 *
 * What it knows: the details of the user's messages — `name: value` / `name=value` pairs, else values recognised
 * by their slot's description and the bare answer to the question it just asked (sim-slot-reader.ts) — and the
 * top-level fields of successful tool results, the later winning. A parameter still unknown is taken from a list of
 * records in a result (an order's `items`) when the user named one record (`the webcam`) or the list has one: a
 * text field only (an identifier such as `sku`); counts and amounts are asked for. A tool result is a failure when
 * it is an error or its text starts with `Refused` (a controller's refusal); an API has succeeded once any call of
 * it did. A precondition that is a condition on a result (`check.ok == true`, the `<apis>` entry's `conditions`)
 * holds when the API's latest successful result meets it, judged as the dependency controller judges it
 * (src/text/result-condition.ts).
 *
 * The compliant move, in order:
 * - a call it made in the procedure's order just failed → a reply saying so with the error, asking the user to
 *   check the details of theirs the call used (while each was asked fewer than MAX_ASKS times);
 * - the controllers' notes say the conversation must close → the closing reply;
 * - the first API in `<apis>` order that is one of the call's tools, whose preconditions have all succeeded, that
 *   the notes do not list as not available, that is on the procedure's main path
 *   or on a side branch it takes (sim-procedure-branches.ts: an `except` branch once its `try:` call failed; an
 *   optional `if` branch once the user gave a detail the API takes), and that has not succeeded → a call
 *   with its request parameters from what it knows (only those the tool's input schema has, converted to the
 *   schema's types) unless the notes say this very call was refused in this turn; when some are unknown, a reply
 *   asking for them by name (`Could you give me your email?`).
 *   An API is passed over when its last call with the same arguments failed and no call succeeded since (it
 *   cannot progress until a value changes or another step is done) or when a parameter it lacks was asked for
 *   MAX_ASKS times already;
 * - when no API is left, a closing reply that sums up what was done, latest first (no question, no request, so a
 *   simulated user leaves).
 * The slip (probability `violate`): an API of the tools whose preconditions have not all succeeded, picked at
 * random, with arguments from what it knows or else drawn from the schema (sim-tool-args.ts); when there is none, a
 * repeat of its last tool call with the same arguments; when there is none either, the compliant move. A model
 * reads its notes, though not always: when the dependency controller's note lists the API it slipped towards, it
 * heeds the note with probability HEED_NOTE and makes the compliant move instead; it never proposes again in the
 * same turn a call the notes say was refused.
 */
import { judgeCondition } from '../text/result-condition.js';
import { canonicalJson } from '../text/canonical-json.js';
import { clip } from '../text/clip.js';
import type { ChatMessage, ToolDeclaration } from '../llm/chat-model.js';
import type { DialogApiSpec } from './dialog-prompt-tags.js';
import { bernoulli, pick, type RandomSource } from '../llm/seeded-random.js';
import { isRecord } from './sim-dialog-blocks.js';
import { asksForSomething, coerceToSchema, formatDetail, listWords, mentions } from './sim-details.js';
import { simToolArgs } from '../llm/sim-tool-args.js';
import type { SimGuidance, SimSlot } from './sim-bot-prompt.js';
import { readUserDetails, type SlotShape, slotShapes } from './sim-slot-reader.js';
import type { SideBranch } from './sim-procedure-branches.js';

/** One move of a dialog role: a reply, or (the bot) a tool call with an empty reply. */
export interface SimDialogMove {
  readonly text: string;
  readonly toolCall?: { readonly name: string; readonly args: unknown };
}

export interface SimBotStreams {
  /** Whether this move slips. */
  readonly violate: RandomSource;
  /** Which unavailable API a slip calls, and the arguments it draws from the schema. */
  readonly api: RandomSource;
  readonly args: RandomSource;
  /** Whether it heeds a controller's note against the API it slipped towards. */
  readonly heed: RandomSource;
}

/** What the bot's prompt tells it besides the messages. */
export interface SimBotPrompt {
  readonly apis: readonly DialogApiSpec[];
  readonly slots: readonly SimSlot[];
  readonly guidance: SimGuidance;
  /** The APIs the procedure calls only on a side branch (sim-procedure-branches.ts). */
  readonly branches: ReadonlyMap<string, SideBranch>;
}

/** A detail asked this many times and still unknown: the bot stops asking and moves on. */
const MAX_ASKS = 2;
/** Facts named in the closing reply, at most. */
const MAX_FACTS = 6;
/** P(the bot heeds a controller's note that the API it slipped towards is not available yet). */
export const HEED_NOTE = 0.5;
/** Characters of an API's error quoted to the user. */
const MAX_ERROR_SHOWN = 200;

interface CallRecord {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  /**
   * Whether the call was the procedure's next step in the bot's view when it made it: the API's preconditions met,
   * and not a repeat of a call that succeeded or of one that failed with the same arguments (slips are neither).
   */
  readonly inOrder: boolean;
  /** undefined: no result yet. */
  ok?: boolean;
  error?: string;
}

/** What the bot has gathered from the conversation. */
interface BotView {
  /** Lower-cased name → value. */
  readonly known: Map<string, unknown>;
  /** Lower-cased names the user gave a value for (a result may echo them). */
  readonly fromUser: Set<string>;
  readonly succeeded: Set<string>;
  /** The latest successful result of each API (parsed JSON, else the text), latest set last. */
  readonly latest: Map<string, unknown>;
  readonly calls: CallRecord[];
  /** Its own earlier replies (text of assistant messages). */
  readonly replies: string[];
  /** Everything the user wrote, for naming a record of a result. */
  userText: string;
  /** Whether the conversation ends with a tool result (the bot's turn goes on after its call). */
  lastWasToolResult: boolean;
}

export function simBotMove(
  prompt: SimBotPrompt,
  tools: readonly ToolDeclaration[],
  messages: readonly ChatMessage[],
  violate: number,
  streams: SimBotStreams,
): SimDialogMove {
  const toolByName = new Map(tools.map((tool) => [tool.name, tool]));
  const usable = prompt.apis.filter((api) => toolByName.has(api.name));
  const view = readConversation(messages, prompt, tools);
  if (bernoulli(streams.violate, violate)) {
    const slip = slipMove(usable, toolByName, view, prompt.guidance, streams);
    if (slip) return slip;
  }
  return compliantMove(usable, toolByName, view, prompt);
}

function compliantMove(
  usable: readonly DialogApiSpec[],
  toolByName: ReadonlyMap<string, ToolDeclaration>,
  view: BotView,
  { guidance, branches }: SimBotPrompt,
): SimDialogMove {
  const failure = justFailed(view);
  if (guidance.closeNow && !failure) return { text: closingReply(usable, view, []) };
  const candidates = usable.filter(
    (api) => !view.succeeded.has(api.name) && preconditionsMet(api, view) && !guidance.unavailable.has(api.name),
  );
  // The branch a failure opens comes first (register the patient that was not found), then the main path in order.
  const opened = candidates.filter((api) => opensAfterFailure(branches.get(api.name), view));
  if (failure) {
    const said = failureSentence(failure);
    const branch = opened.find((api) => branches.get(api.name)?.afterFailureOf.has(failure.name));
    const next = branch && nextStep(branch, toolByName, view, { branches, guidance });
    if (next?.toolCall && !guidance.closeNow) return next;
    if (next?.ask && !guidance.closeNow) return { text: `${said} ${next.ask}` };
    return { text: `${said}${guidance.closeNow ? '' : checkDetails(failure, view)}` };
  }
  const blocked: { name: string; missing: readonly string[] }[] = [];
  const rest = candidates.filter((api) => !opened.includes(api));
  for (const api of [...opened, ...rest]) {
    const branch = branches.get(api.name);
    if (branch && !opened.includes(api) && !optionalWanted(api, branch, view)) continue;
    const next = nextStep(api, toolByName, view, { branches, guidance });
    if (next.toolCall) return next;
    if (next.ask) return { text: next.ask };
    if (next.blocked) blocked.push({ name: api.name, missing: next.blocked });
  }
  return { text: closingReply(usable, view, blocked) };
}

/**
 * An available API's next step: the call when the bot knows every parameter (none when the same call failed and
 * nothing it waits for happened since), else the question for what it lacks, or what it lacks when it asked enough.
 */
function nextStep(
  api: DialogApiSpec,
  toolByName: ReadonlyMap<string, ToolDeclaration>,
  view: BotView,
  { branches, guidance }: Pick<SimBotPrompt, 'branches' | 'guidance'>,
): SimDialogMove & { readonly ask?: string; readonly blocked?: readonly string[] } {
  const missing = api.request.filter((name) => knownValue(name, view) === undefined);
  if (missing.length > 0) {
    if (missing.every((name) => timesAsked(name, view) < MAX_ASKS)) {
      return { text: '', ask: `Could you give me your ${listWords(missing)}?` };
    }
    return { text: '', blocked: missing };
  }
  const args = knownArgs(api, toolByName.get(api.name)!, view);
  if (failedAlike(api.name, canonicalJson(args), view, branches)) return { text: '' };
  if (wasRefused(api.name, args, guidance)) return { text: '' };
  return { text: '', toolCall: { name: api.name, args } };
}

/** Whether the notes say this very call was refused in this turn (a refusal quoting no arguments counts for any). */
function wasRefused(name: string, args: object, guidance: SimGuidance): boolean {
  const quoted = guidance.refused.get(name);
  if (!quoted) return false;
  const text = JSON.stringify(args).slice(0, 200);
  return quoted.some((refused) => refused === '' || refused === text);
}

/** An `except` branch is open while a call of its `try:` has failed and not succeeded since. */
function opensAfterFailure(branch: SideBranch | undefined, view: BotView): boolean {
  if (!branch) return false;
  return [...branch.afterFailureOf].some(
    (name) => !view.succeeded.has(name) && findLast(view.calls, (call) => call.name === name)?.ok === false,
  );
}

/** An optional API (in an `if` block) is wanted once the user gave a detail it takes and it lacks nothing. */
function optionalWanted(api: DialogApiSpec, branch: SideBranch, view: BotView): boolean {
  return (
    branch.optional &&
    api.request.some((name) => view.fromUser.has(name.toLowerCase())) &&
    api.request.every((name) => knownValue(name, view) !== undefined)
  );
}

/**
 * Whether a call of the API with these arguments failed and nothing it waits for happened since: the same call would
 * fail the same way until a value changes or an API of the branch its failure opens succeeds (the patient that
 * was not found is registered).
 */
function failedAlike(name: string, key: string, view: BotView, branches: ReadonlyMap<string, SideBranch>): boolean {
  const index = findLastIndex(view.calls, (call) => call.name === name && canonicalJson(call.args) === key);
  if (index < 0 || view.calls[index]!.ok !== false) return false;
  return !view.calls
    .slice(index + 1)
    .some((call) => call.ok === true && branches.get(call.name)?.afterFailureOf.has(name) === true);
}

/** The bot's own call in the procedure's order, the last thing in the conversation, when it failed. */
function justFailed(view: BotView): CallRecord | undefined {
  const last = view.calls[view.calls.length - 1];
  return last && last.ok === false && last.inOrder && view.lastWasToolResult ? last : undefined;
}

/** The failure in a sentence: the API's own code and message when its error carries them as JSON, else its text. */
function failureSentence(call: CallRecord): string {
  const error = (call.error ?? 'it failed').trim();
  const json = error.indexOf('{');
  const parsed = json < 0 ? undefined : parseJson(error.slice(json));
  const inner = isRecord(parsed) && isRecord(parsed['error']) ? parsed['error'] : parsed;
  const message = isRecord(inner) && typeof inner['message'] === 'string' ? inner['message'] : undefined;
  const code = isRecord(inner) && typeof inner['code'] === 'string' ? `${inner['code']}: ` : '';
  const shown = message === undefined ? error : `${code}${message}`;
  return `I'm sorry, ${call.name} did not go through: ${clip(shown, MAX_ERROR_SHOWN).replace(/[.\s]+$/, '')}.`;
}

/** Asks the user to check the details of theirs the failed call used, while they may still be asked. */
function checkDetails(call: CallRecord, view: BotView): string {
  const theirs = isRecord(call.args)
    ? Object.keys(call.args).filter((name) => view.fromUser.has(name.toLowerCase()))
    : [];
  if (theirs.length === 0 || !theirs.every((name) => timesAsked(name, view) < MAX_ASKS)) return '';
  return ` Could you check your ${listWords(theirs)}?`;
}

function slipMove(
  usable: readonly DialogApiSpec[],
  toolByName: ReadonlyMap<string, ToolDeclaration>,
  view: BotView,
  guidance: SimGuidance,
  streams: SimBotStreams,
): SimDialogMove | undefined {
  const unavailable = usable.filter((api) => !preconditionsMet(api, view) && !guidance.refused.has(api.name));
  if (unavailable.length > 0) {
    const api = pick(streams.api, unavailable);
    if (guidance.unavailable.has(api.name) && bernoulli(streams.heed, HEED_NOTE)) return undefined;
    const schema = toolByName.get(api.name)!.inputSchema;
    const properties = isRecord(schema['properties']) ? schema['properties'] : undefined;
    const names = properties ? Object.keys(properties) : api.request;
    const known = names.flatMap((name): [string, unknown][] => {
      const value = knownValue(name, view);
      return value === undefined ? [] : [[name, coerceToSchema(value, properties?.[name])]];
    });
    return {
      text: '',
      toolCall: { name: api.name, args: { ...simToolArgs(schema, streams.args), ...Object.fromEntries(known) } },
    };
  }
  const last = view.calls[view.calls.length - 1];
  if (!last || guidance.refused.has(last.name)) return undefined;
  return { text: '', toolCall: { name: last.name, args: last.args } };
}

function preconditionsMet(api: DialogApiSpec, view: BotView): boolean {
  return (
    api.precondition.every((name) => view.succeeded.has(name)) &&
    (api.conditions ?? []).every(
      (condition) => view.latest.has(condition.api) && judgeCondition(condition, view.latest.get(condition.api)).holds,
    )
  );
}

/**
 * A parameter's value: what the user said or a result returned, else the text field of the one record of a
 * result's list that the user named (or the list's only record).
 */
function knownValue(name: string, view: BotView): unknown {
  const lower = name.toLowerCase();
  if (view.known.has(lower)) return view.known.get(lower);
  const results = [...view.latest.values()].reverse();
  for (const result of results) {
    if (!isRecord(result)) continue;
    for (const list of Object.values(result)) {
      if (!Array.isArray(list)) continue;
      const records = list.filter((item): item is Record<string, unknown> => isRecord(item) && name in item);
      if (records.length === 0) continue;
      const named = records.filter((record) => namedBy(record, view.userText));
      const chosen = named.length === 1 ? named[0] : records.length === 1 ? records[0] : undefined;
      const value = chosen?.[name];
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return undefined;
}

/** Whether the user's words hold one of the record's text values (`Webcam` in "return the webcam"). */
function namedBy(record: Record<string, unknown>, userText: string): boolean {
  return Object.values(record).some(
    (value) => typeof value === 'string' && value.trim().length >= 3 && mentions(userText, value.trim()),
  );
}

/** How many of its replies asked for a detail (a question that names it). */
function timesAsked(name: string, view: BotView): number {
  return view.replies.filter((reply) => reply.includes('?') && mentions(reply, name)).length;
}

/** The API's request parameters that its tool's schema has (all of them when the schema lists no properties). */
function knownArgs(api: DialogApiSpec, tool: ToolDeclaration, view: BotView): object {
  const properties = isRecord(tool.inputSchema['properties']) ? tool.inputSchema['properties'] : undefined;
  return Object.fromEntries(
    api.request
      .filter((name) => properties === undefined || Object.hasOwn(properties, name))
      .map((name) => [name, coerceToSchema(knownValue(name, view), properties?.[name])]),
  );
}

function closingReply(
  usable: readonly DialogApiSpec[],
  view: BotView,
  blocked: readonly { name: string; missing: readonly string[] }[],
): string {
  const done = usable.filter((api) => view.succeeded.has(api.name));
  const failed = usable.filter(
    (api) => !view.succeeded.has(api.name) && view.calls.some((call) => call.name === api.name && call.ok === false),
  );
  const sentences: string[] = [];
  if (done.length > 0) {
    // The latest steps first: what the user came for is usually the last thing done.
    const facts = [...done]
      .reverse()
      .flatMap((api) => api.response)
      .filter((name, index, all) => all.indexOf(name) === index)
      .flatMap((name) => {
        const value = view.known.get(name.toLowerCase());
        const shown = typeof value === 'string' ? value.length <= 60 : typeof value === 'number';
        const fact = shown ? formatDetail(name, value) : '';
        // A fact that reads as a question would keep a simulated user talking.
        return fact !== '' && !asksForSomething(fact) ? [fact] : [];
      })
      .slice(0, MAX_FACTS);
    const names = done.map((api) => api.name);
    sentences.push(`I have completed ${listWords(names)}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}.`);
  }
  if (failed.length > 0) sentences.push(`I could not complete ${listWords(failed.map((api) => api.name))}.`);
  if (blocked.length > 0) {
    const missing = [...new Set(blocked.flatMap((entry) => entry.missing))];
    sentences.push(
      `I cannot go on with ${listWords(blocked.map((entry) => entry.name))} without your ${listWords(missing)}.`,
    );
  }
  if (sentences.length === 0) return "I'm sorry, I cannot help with that.";
  return [...sentences, 'Thank you for contacting us.'].join(' ');
}

function readConversation(
  messages: readonly ChatMessage[],
  prompt: SimBotPrompt,
  tools: readonly ToolDeclaration[],
): BotView {
  const view: BotView = {
    known: new Map(),
    fromUser: new Set(),
    succeeded: new Set(),
    latest: new Map(),
    calls: [],
    replies: [],
    userText: '',
    lastWasToolResult: false,
  };
  const shapes: Map<string, SlotShape> = slotShapes(prompt.slots, tools);
  // The names a question may ask for: the slots and every API's request parameters.
  const names = [...new Set([...prompt.slots.map((slot) => slot.name), ...prompt.apis.flatMap((api) => api.request)])];
  let lastReply = '';
  for (const message of messages) {
    view.lastWasToolResult = message.role === 'tool';
    switch (message.role) {
      case 'user': {
        const asked = lastReply.includes('?') ? names.filter((name) => mentions(lastReply, name)) : [];
        for (const [name, value] of readUserDetails(message.content, asked, shapes)) {
          view.known.set(name.toLowerCase(), value);
          view.fromUser.add(name.toLowerCase());
        }
        view.userText += `${message.content}\n`;
        lastReply = '';
        break;
      }
      case 'assistant':
        if (message.content !== '') {
          view.replies.push(message.content);
          lastReply = message.content;
        }
        for (const call of message.toolCalls ?? []) {
          const api = prompt.apis.find((candidate) => candidate.name === call.name);
          view.calls.push({
            id: call.id,
            name: call.name,
            args: call.args,
            inOrder:
              !api ||
              (preconditionsMet(api, view) &&
                !view.succeeded.has(call.name) &&
                !view.calls.some(
                  (earlier) => earlier.name === call.name && canonicalJson(earlier.args) === canonicalJson(call.args),
                )),
          });
        }
        break;
      case 'tool': {
        const call =
          findLast(view.calls, (c) => c.id === message.toolCallId && c.ok === undefined) ??
          findLast(view.calls, (c) => c.name === message.name && c.ok === undefined);
        const ok = message.isError !== true && !message.content.trimStart().startsWith('Refused');
        if (call) {
          call.ok = ok;
          if (!ok) call.error = message.content;
        }
        if (!ok) break;
        const name = call?.name ?? message.name;
        view.succeeded.add(name);
        const result = parseJson(message.content);
        view.latest.delete(name);
        view.latest.set(name, result === undefined ? message.content : result);
        if (isRecord(result))
          for (const [field, value] of Object.entries(result)) {
            view.known.set(field.toLowerCase(), value);
          }
        break;
      }
    }
  }
  return view;
}

function findLast<T>(items: readonly T[], test: (item: T) => boolean): T | undefined {
  const index = findLastIndex(items, test);
  return index < 0 ? undefined : items[index];
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) if (test(items[index]!)) return index;
  return -1;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
