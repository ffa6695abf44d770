/**
 * The sim model as the bot of a conversational procedure (purpose `converse`): from the `<apis>` block
 * (DialogApiSpec[]) and the conversation it makes the move a procedure-following bot would, or with probability
 * `violate` one that breaks the procedure, so the controllers have something to catch.
 *
 * What it knows: `name: value` / `name=value` pairs in the user's messages (sim-details.ts) and the top-level fields
 * of successful tool results, the later winning. A tool result is a failure when it is an error or its text starts
 * with `Refused` (a controller's refusal); an API has succeeded once any call of it did. A precondition that is a
 * condition on a result (`check.ok == true`, the `<apis>` entry's `conditions`) holds when the API's latest
 * successful result meets it, judged as the dependency controller judges it (src/text/result-condition.ts).
 *
 * The compliant move: the first API in `<apis>` order that is one of the call's tools, whose preconditions have all
 * succeeded and that has not → a call with its request parameters from what it knows (only those the tool's input
 * schema has, converted to the schema's types); when some are unknown, a reply asking for them by name (`Could you
 * give me your email and order_id?`). An API is passed over when it failed before with the same arguments (it
 * cannot progress until a value changes) or when the same question went unanswered twice. When no API is left,
 * a closing reply that sums up what was done (no question, no request, so a simulated user leaves).
 * The violation (probability `violate`): an API of the tools whose preconditions have not all succeeded, picked at
 * random, with arguments from what it knows or else drawn from the schema (sim-tool-args.ts); when there is none, a
 * repeat of its last tool call with the same arguments; when there is none either, the compliant move.
 */
import { judgeCondition } from '../text/result-condition.js';
import { canonicalJson } from '../text/canonical-json.js';
import type { ChatMessage, ToolDeclaration } from '../llm/chat-model.js';
import type { DialogApiSpec } from './dialog-prompt-tags.js';
import { bernoulli, pick, type RandomSource } from '../llm/seeded-random.js';
import { isRecord } from './sim-dialog-blocks.js';
import { asksForSomething, coerceToSchema, formatDetail, listWords, readDetailPairs } from './sim-details.js';
import { simToolArgs } from '../llm/sim-tool-args.js';

/** One move of a dialog role: a reply, or (the bot) a tool call with an empty reply. */
export interface SimDialogMove {
  readonly text: string;
  readonly toolCall?: { readonly name: string; readonly args: unknown };
}

export interface SimBotStreams {
  /** Whether this move violates the procedure. */
  readonly violate: RandomSource;
  /** Which unavailable API a violation calls, and the arguments it draws from the schema. */
  readonly api: RandomSource;
  readonly args: RandomSource;
}

/** The same question asked this many times without an answer: the bot stops asking and moves on. */
const MAX_ASKS = 2;
/** Facts named in the closing reply, at most. */
const MAX_FACTS = 6;

interface CallRecord {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  /** undefined: no result yet. */
  ok?: boolean;
}

/** What the bot has gathered from the conversation. */
interface BotView {
  /** Lower-cased name → value. */
  readonly known: Map<string, unknown>;
  readonly succeeded: Set<string>;
  /** The latest successful result of each API (parsed JSON, else the text). */
  readonly latest: Map<string, unknown>;
  readonly calls: CallRecord[];
  /** Its own earlier replies (text of assistant messages). */
  readonly replies: string[];
}

export function simBotMove(
  apis: readonly DialogApiSpec[],
  tools: readonly ToolDeclaration[],
  messages: readonly ChatMessage[],
  violate: number,
  streams: SimBotStreams,
): SimDialogMove {
  const view = readConversation(messages);
  const toolByName = new Map(tools.map((tool) => [tool.name, tool]));
  const usable = apis.filter((api) => toolByName.has(api.name));
  if (bernoulli(streams.violate, violate)) {
    const violation = violationMove(usable, toolByName, view, streams);
    if (violation) return violation;
  }
  return compliantMove(usable, toolByName, view);
}

function compliantMove(
  usable: readonly DialogApiSpec[],
  toolByName: ReadonlyMap<string, ToolDeclaration>,
  view: BotView,
): SimDialogMove {
  const blocked: { name: string; missing: readonly string[] }[] = [];
  for (const api of usable) {
    if (view.succeeded.has(api.name) || !preconditionsMet(api, view)) continue;
    const missing = api.request.filter((name) => !view.known.has(name.toLowerCase()));
    if (missing.length > 0) {
      const ask = `Could you give me your ${listWords(missing)}?`;
      if (view.replies.filter((reply) => reply === ask).length < MAX_ASKS) return { text: ask };
      blocked.push({ name: api.name, missing });
      continue;
    }
    const args = knownArgs(api, toolByName.get(api.name)!, view.known);
    const key = canonicalJson(args);
    if (view.calls.some((call) => call.name === api.name && call.ok === false && canonicalJson(call.args) === key)) {
      continue;
    }
    return { text: '', toolCall: { name: api.name, args } };
  }
  return { text: closingReply(usable, view, blocked) };
}

function violationMove(
  usable: readonly DialogApiSpec[],
  toolByName: ReadonlyMap<string, ToolDeclaration>,
  view: BotView,
  streams: SimBotStreams,
): SimDialogMove | undefined {
  const unavailable = usable.filter((api) => !preconditionsMet(api, view));
  if (unavailable.length > 0) {
    const api = pick(streams.api, unavailable);
    const schema = toolByName.get(api.name)!.inputSchema;
    const properties = isRecord(schema['properties']) ? schema['properties'] : undefined;
    const names = properties ? Object.keys(properties) : api.request;
    const known = names.flatMap((name): [string, unknown][] =>
      view.known.has(name.toLowerCase())
        ? [[name, coerceToSchema(view.known.get(name.toLowerCase()), properties?.[name])]]
        : [],
    );
    return {
      text: '',
      toolCall: { name: api.name, args: { ...simToolArgs(schema, streams.args), ...Object.fromEntries(known) } },
    };
  }
  const last = view.calls[view.calls.length - 1];
  return last ? { text: '', toolCall: { name: last.name, args: last.args } } : undefined;
}

function preconditionsMet(api: DialogApiSpec, view: BotView): boolean {
  return (
    api.precondition.every((name) => view.succeeded.has(name)) &&
    (api.conditions ?? []).every(
      (condition) => view.latest.has(condition.api) && judgeCondition(condition, view.latest.get(condition.api)).holds,
    )
  );
}

/** The API's request parameters that its tool's schema has (all of them when the schema lists no properties). */
function knownArgs(api: DialogApiSpec, tool: ToolDeclaration, known: ReadonlyMap<string, unknown>): object {
  const properties = isRecord(tool.inputSchema['properties']) ? tool.inputSchema['properties'] : undefined;
  return Object.fromEntries(
    api.request
      .filter((name) => properties === undefined || Object.hasOwn(properties, name))
      .map((name) => [name, coerceToSchema(known.get(name.toLowerCase()), properties?.[name])]),
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
    const facts = done
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

function readConversation(messages: readonly ChatMessage[]): BotView {
  const view: BotView = { known: new Map(), succeeded: new Set(), latest: new Map(), calls: [], replies: [] };
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        for (const [name, value] of readDetailPairs(message.content)) view.known.set(name.toLowerCase(), value);
        break;
      case 'assistant':
        if (message.content !== '') view.replies.push(message.content);
        for (const call of message.toolCalls ?? []) view.calls.push({ id: call.id, name: call.name, args: call.args });
        break;
      case 'tool': {
        const call =
          findLast(view.calls, (c) => c.id === message.toolCallId && c.ok === undefined) ??
          findLast(view.calls, (c) => c.name === message.name && c.ok === undefined);
        const ok = message.isError !== true && !message.content.trimStart().startsWith('Refused');
        if (call) call.ok = ok;
        if (!ok) break;
        view.succeeded.add(call?.name ?? message.name);
        const result = parseJson(message.content);
        view.latest.set(call?.name ?? message.name, result === undefined ? message.content : result);
        if (isRecord(result))
          for (const [name, value] of Object.entries(result)) view.known.set(name.toLowerCase(), value);
        break;
      }
    }
  }
  return view;
}

function findLast<T>(items: readonly T[], test: (item: T) => boolean): T | undefined {
  for (let index = items.length - 1; index >= 0; index--) if (test(items[index]!)) return items[index];
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
