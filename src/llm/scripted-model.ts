/**
 * The scripted model (`scripted:<file.json|.js>`): replies from a script, for tests and reproducible demos.
 *
 * File format (docs/contracts.md, a fixed contract, extended compatibly):
 *
 *     { "replies": [ { "when"?: "substring" | "/regex/flags", "text"?: "...",
 *                      "toolCalls"?: [ { "name": "...", "args"?: {...}, "id"?: "..." } ], "repeat"?: true } ] }
 *
 * An entry has `text`, `toolCalls`, or both. Tool calls get the ids `call_<n>` unless given (n counts the calls
 * already in the conversation); their names are not checked against the tools offered, so a script can exercise
 * a wrong call, but a call that offers no tools cannot be answered with tool calls (BAD_INPUT naming the entry).
 *
 * Which entry answers a call — the prompt is the system prompt and every message joined by newlines, with earlier
 * tool calls written `{"tool":"<name>","args":{…}}` and each tool result `Result of tool <name> (<id>):` (or
 * `Error from tool …`) followed by its content, so a `when` can react to what a tool returned:
 * 1. the first unconsumed entry, in file order, that has a `when` matching the prompt;
 * 2. otherwise the first unconsumed entry without `when` (so those are used in order);
 * 3. otherwise the call fails with `SCRIPT_EXHAUSTED`, naming the first line of the prompt's last user message.
 * An entry is consumed when used, unless it has `"repeat": true`. A matching `when` entry therefore wins over
 * a `when`-less entry placed before it: `when` entries can be listed anywhere, and the `when`-less ones form
 * the default sequence.
 *
 * `when` is a regular expression when it looks like `/body/flags` (flags from `dgimsuvy`; `g` and `y` are
 * ignored so matching is stateless), and a case-sensitive substring otherwise.
 *
 * A `.js` file default-exports the same object, or just the array of replies, or a function
 * `(call) => string | Promise<string>` that answers every call.
 */
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { yaml } from '../text/yaml.js';
import { WeftError, type LocatedIssue } from '../errors.js';
import { findJsonSyntaxError } from '../text/json-syntax.js';
import { positionAtOffset } from '../text/source-locator.js';
import type { ChatCall, ChatModel, ChatResult, ToolCallRequest } from './chat-model.js';
import { renderToolMessages } from './render-tool-messages.js';
import { abortErrorOf } from './timeout.js';
import { nextToolCallNumber, toolCallId } from './tool-call-ids.js';
import { estimateUsage, promptText } from './token-estimate.js';

export interface ScriptedToolCall {
  readonly name: string;
  /** The arguments (any JSON value: a script may send bad ones on purpose). Default `{}`. */
  readonly args?: unknown;
  /** Default `call_<n>`. */
  readonly id?: string;
}

export interface ScriptedReply {
  /** A substring of the prompt, or `/regex/flags`. Without it, the entry is part of the default sequence. */
  readonly when?: string;
  /** The reply's text (`''` for an entry of only tool calls: the file may omit it then). */
  readonly text: string;
  /** Tools the reply calls. */
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Keep the entry after use. */
  readonly repeat?: boolean;
}

/** A reply as written: `text` may be left out when `toolCalls` is given. */
export type ScriptedReplyInput = Omit<ScriptedReply, 'text'> & { readonly text?: string };

/** What a responder may answer: text, or text and tool calls. */
export type ScriptedAnswer = string | { readonly text?: string; readonly toolCalls?: readonly ScriptedToolCall[] };

/** Answers every call itself (a `.js` script may export one). */
export type ScriptedResponder = (call: ChatCall) => ScriptedAnswer | Promise<ScriptedAnswer>;

export interface ScriptedModel extends ChatModel {
  readonly kind: 'scripted';
  /** Every call received, in order. */
  readonly calls: readonly ChatCall[];
  /** Entries not yet consumed (repeat entries always count); `Infinity` for a responder function. */
  remaining(): number;
}

export interface ScriptedModelOptions {
  /** Default `scripted`. */
  readonly id?: string;
  /** The script's file, named in errors. */
  readonly file?: string;
}

interface CompiledReply {
  readonly reply: ScriptedReply;
  readonly matches: ((prompt: string) => boolean) | undefined;
  consumed: boolean;
}

export function scriptedModel(
  replies: readonly ScriptedReplyInput[] | ScriptedResponder,
  options: ScriptedModelOptions = {},
): ScriptedModel {
  const id = options.id ?? 'scripted';
  const calls: ChatCall[] = [];
  let respond: ScriptedResponder;
  let remaining: () => number;
  if (typeof replies === 'function') {
    respond = replies;
    remaining = () => Number.POSITIVE_INFINITY;
  } else {
    const script = scriptResponder(validateReplies(replies, options.file), id, options.file);
    respond = script;
    remaining = script.remaining;
  }
  return {
    id,
    kind: 'scripted',
    // It answers `tools` itself, from the script's toolCalls.
    toolCalling: 'native',
    calls,
    remaining,
    async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      if (signal?.aborted) throw abortErrorOf(signal);
      calls.push(call);
      const answer: unknown = await respond(call);
      const where = options.file ? { file: options.file } : undefined;
      const reply = typeof answer === 'string' ? { text: answer } : answer;
      const problems =
        typeof reply === 'object' && reply !== null ? answerIssues(reply as Record<string, unknown>, 'reply') : [];
      if (typeof reply !== 'object' || reply === null || Array.isArray(reply) || problems.length > 0) {
        throw new WeftError(
          'BAD_INPUT',
          `The scripted responder returned ${problems[0]?.message ?? describe(answer)}, expected a string or { text?, toolCalls? }`,
          { location: where },
        );
      }
      const { text = '', toolCalls: scripted = [] } = reply as Exclude<ScriptedAnswer, string>;
      if (scripted.length === 0) return { text, usage: estimateUsage(call, text), model: 'scripted' };
      if (!call.tools?.length || call.toolChoice === 'none') {
        const entry = (reply as { [ENTRY]?: number })[ENTRY];
        const field = entry === undefined ? undefined : `replies[${entry}].toolCalls`;
        throw new WeftError(
          'BAD_INPUT',
          `Scripted model ${id}: the reply${entry === undefined ? '' : ` (entry ${entry})`} calls ${scripted.map((c) => c.name).join(', ')}, but this call offers no tools${call.toolChoice === 'none' ? ' (toolChoice none)' : ''}; give it a "when" that matches only tool-using prompts, or a "text"`,
          { location: { ...where, ...(field ? { field } : {}) } },
        );
      }
      const first = nextToolCallNumber(call.messages);
      const toolCalls: ToolCallRequest[] = scripted.map((toolCall, index) => ({
        id: toolCall.id ?? toolCallId(first + index),
        name: toolCall.name,
        args: toolCall.args ?? {},
      }));
      const written = [text, ...toolCalls.map((c) => JSON.stringify({ tool: c.name, args: c.args }))].join('\n');
      return { text, toolCalls, usage: estimateUsage(call, written), model: 'scripted' };
    },
  };
}

/** Marks which script entry an answer came from, for the error of tool calls without tools. */
const ENTRY = Symbol('entry');

type ScriptResponder = ScriptedResponder & { remaining(): number };

function scriptResponder(replies: readonly ScriptedReply[], id: string, file: string | undefined): ScriptResponder {
  const entries: CompiledReply[] = replies.map((reply) => ({
    reply,
    matches: compileWhen(reply.when),
    consumed: false,
  }));
  let callCount = 0;
  const responder = (call: ChatCall): ScriptedAnswer => {
    callCount++;
    const prompt = promptText({ ...call, messages: renderToolMessages(call.messages, undefined) });
    const entry =
      entries.find((e) => !e.consumed && e.matches !== undefined && e.matches(prompt)) ??
      entries.find((e) => !e.consumed && e.matches === undefined);
    if (!entry) {
      throw new WeftError(
        'SCRIPT_EXHAUSTED',
        `Scripted model ${id}${file && !id.includes(file) ? ` (${file})` : ''} has no reply left for call ${callCount}, whose prompt starts: ${JSON.stringify(firstLine(call))}`,
        { location: file ? { file } : undefined },
      );
    }
    if (!entry.reply.repeat) entry.consumed = true;
    const { text, toolCalls } = entry.reply;
    if (toolCalls === undefined) return text;
    return Object.assign({ text, toolCalls }, { [ENTRY]: entries.indexOf(entry) });
  };
  return Object.assign(responder, { remaining: () => entries.filter((e) => !e.consumed).length });
}

/** The first non-empty line of the last user message (or of the whole prompt), cut to 120 characters. */
function firstLine(call: ChatCall): string {
  const lastUser = [...call.messages].reverse().find((m) => m.role === 'user');
  const source = lastUser?.content ?? promptText(call);
  const line =
    source
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

const REGEX_WHEN = /^\/(.+)\/([dgimsuvy]*)$/s;

function compileWhen(when: string | undefined): ((prompt: string) => boolean) | undefined {
  if (when === undefined) return undefined;
  const regex = parseWhenRegex(when);
  if (regex) return (prompt) => regex.test(prompt);
  return (prompt) => prompt.includes(when);
}

/** The RegExp of a `/body/flags` `when`, `undefined` for a substring; throws SyntaxError for a bad regex. */
function parseWhenRegex(when: string): RegExp | undefined {
  const match = REGEX_WHEN.exec(when);
  if (!match) return undefined;
  return new RegExp(match[1]!, match[2]!.replace(/[gy]/g, ''));
}

/** Checks a replies array (from code or a `.js` script); throws BAD_INPUT listing every problem. */
export function validateReplies(replies: unknown, file?: string): ScriptedReply[] {
  const issues = replyIssues(replies, 'replies');
  if (issues.length > 0)
    throw badScript(
      issues.map((issue) => ({ ...issue, file })),
      file,
    );
  return normalized(replies as ScriptedReplyInput[]);
}

/**
 * Parses a `scripted:` JSON file. Problems (bad JSON, no `replies`, an entry without `text`, a bad regex)
 * throw `WeftError('BAD_INPUT')` located by file, line and field.
 */
export function parseScriptFile(text: string, file?: string): ScriptedReply[] {
  const source = text.replace(/^\uFEFF/, '');
  const syntax = findJsonSyntaxError(source);
  if (syntax) {
    const { line, column } = positionAtOffset(source, syntax.offset);
    throw new WeftError('BAD_INPUT', `invalid JSON: ${syntax.message}`, { location: { file, line, column } });
  }
  const value = JSON.parse(source) as unknown;
  const issues: Omit<LocatedIssue, 'line' | 'column'>[] = [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    issues.push({ message: 'expected an object with a "replies" array' });
  } else if (!('replies' in value)) {
    issues.push({ field: 'replies', message: 'missing "replies" (an array of { when?, text?, toolCalls?, repeat? })' });
  } else {
    issues.push(...replyIssues((value as { replies: unknown }).replies, 'replies'));
  }
  if (issues.length === 0) return normalized((value as { replies: ScriptedReplyInput[] }).replies);
  const locate = jsonLocator(source);
  throw badScript(
    issues.map((issue) => ({ ...issue, file, ...locate(issue.field) })),
    file,
  );
}

function replyIssues(replies: unknown, field: string): { field?: string; message: string }[] {
  if (!Array.isArray(replies))
    return [{ field, message: 'expected an array of { when?, text?, toolCalls?, repeat? }' }];
  const issues: { field: string; message: string }[] = [];
  replies.forEach((entry: unknown, index) => {
    const at = `${field}[${index}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      issues.push({ field: at, message: 'expected an object { when?, text?, toolCalls?, repeat? }' });
      return;
    }
    const record = entry as Record<string, unknown>;
    if (!('text' in record) && !('toolCalls' in record)) {
      issues.push({ field: `${at}.text`, message: 'missing "text" (or "toolCalls")' });
    }
    issues.push(...answerIssues(record, at));
    if ('when' in record && record.when !== undefined) {
      if (typeof record.when !== 'string')
        issues.push({ field: `${at}.when`, message: `expected a string, got ${describe(record.when)}` });
      else if (record.when === '')
        issues.push({ field: `${at}.when`, message: 'an empty "when" matches everything; omit it instead' });
      else {
        try {
          parseWhenRegex(record.when);
        } catch (error) {
          issues.push({ field: `${at}.when`, message: `bad regular expression: ${(error as Error).message}` });
        }
      }
    }
    if ('repeat' in record && record.repeat !== undefined && typeof record.repeat !== 'boolean') {
      issues.push({ field: `${at}.repeat`, message: `expected true or false, got ${describe(record.repeat)}` });
    }
  });
  return issues;
}

/** Entries with the text an entry of only tool calls leaves out (`''`). */
function normalized(replies: readonly ScriptedReplyInput[]): ScriptedReply[] {
  return replies.map((reply) => (reply.text === undefined ? { ...reply, text: '' } : (reply as ScriptedReply)));
}

/** Problems of an entry's `text` and `toolCalls` (a script's entry, or what a responder function returned). */
function answerIssues(record: Record<string, unknown>, at: string): { field: string; message: string }[] {
  const issues: { field: string; message: string }[] = [];
  if ('text' in record && typeof record.text !== 'string')
    issues.push({ field: `${at}.text`, message: `expected a string, got ${describe(record.text)}` });
  if (!('toolCalls' in record)) return issues;
  const toolCalls = record.toolCalls;
  if (!Array.isArray(toolCalls)) {
    issues.push({
      field: `${at}.toolCalls`,
      message: `expected an array of { name, args?, id? }, got ${describe(toolCalls)}`,
    });
    return issues;
  }
  if (toolCalls.length === 0 && !('text' in record)) {
    issues.push({ field: `${at}.toolCalls`, message: 'an empty "toolCalls" with no "text" answers nothing' });
  }
  toolCalls.forEach((toolCall: unknown, index) => {
    const path = `${at}.toolCalls[${index}]`;
    if (toolCall === null || typeof toolCall !== 'object' || Array.isArray(toolCall)) {
      issues.push({ field: path, message: `expected an object { name, args?, id? }, got ${describe(toolCall)}` });
      return;
    }
    const call = toolCall as Record<string, unknown>;
    if (!('name' in call)) issues.push({ field: `${path}.name`, message: 'missing "name" (the tool to call)' });
    else if (typeof call.name !== 'string' || call.name === '')
      issues.push({ field: `${path}.name`, message: `expected a tool name, got ${describe(call.name)}` });
    if ('id' in call && (typeof call.id !== 'string' || call.id === ''))
      issues.push({ field: `${path}.id`, message: `expected a non-empty string, got ${describe(call.id)}` });
    for (const key of Object.keys(call)) {
      if (key !== 'name' && key !== 'args' && key !== 'id') {
        issues.push({ field: `${path}.${key}`, message: `unknown key "${key}" (a tool call has name, args and id)` });
      }
    }
  });
  return issues;
}

function badScript(issues: readonly LocatedIssue[], file: string | undefined): WeftError {
  const first = issues[0]!;
  const message = issues.length === 1 ? first.message : `${first.message} (and ${issues.length - 1} more problem(s))`;
  return new WeftError('BAD_INPUT', `${file ? 'bad scripted-model file' : 'bad scripted replies'}: ${message}`, {
    location: { file: file ?? first.file, line: first.line, column: first.column, field: first.field },
    issues,
  });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? JSON.stringify(value) : typeof value;
}

/**
 * Line and column of a field path such as `replies[2].text` in a JSON text (JSON is YAML, so `yaml`'s
 * parser gives node ranges). A missing field is located at its nearest existing parent.
 */
function jsonLocator(source: string): (field: string | undefined) => { line?: number; column?: number } {
  const lineCounter = new (yaml().LineCounter)();
  const document = yaml().parseDocument(source, { lineCounter, keepSourceTokens: false });
  return (field) => {
    const path = fieldPath(field);
    for (let length = path.length; length >= 0; length--) {
      const node = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) {
        const { line, col } = lineCounter.linePos(range[0]);
        return { line, column: col };
      }
    }
    return {};
  };
}

function fieldPath(field: string | undefined): (string | number)[] {
  if (!field) return [];
  const path: (string | number)[] = [];
  for (const match of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (match[2] !== undefined) path.push(Number(match[2]));
    else path.push(match[1]!);
  }
  return path;
}

/** The model for a `scripted:<path>` spec. */
export async function loadScriptedModel(path: string): Promise<ScriptedModel> {
  const id = `scripted:${path}`;
  const extension = extname(path).toLowerCase();
  if (extension === '.json') {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new WeftError('BAD_INPUT', `cannot read the scripted-model file: ${(error as Error).message}`, {
        location: { file: path },
        cause: error,
      });
    }
    return scriptedModel(parseScriptFile(text, path), { id, file: path });
  }
  if (extension === '.js' || extension === '.mjs' || extension === '.cjs') {
    let exported: unknown;
    try {
      const module = (await import(pathToFileURL(resolve(path)).href)) as { default?: unknown };
      exported = module.default ?? module;
    } catch (error) {
      throw new WeftError('BAD_INPUT', `cannot load the scripted-model script: ${(error as Error).message}`, {
        location: { file: path },
        cause: error,
      });
    }
    if (typeof exported === 'function') return scriptedModel(exported as ScriptedResponder, { id, file: path });
    if (Array.isArray(exported)) return scriptedModel(validateReplies(exported, path), { id, file: path });
    if (exported !== null && typeof exported === 'object' && 'replies' in exported) {
      const replies = (exported as { replies: unknown }).replies;
      return scriptedModel(validateReplies(replies, path), { id, file: path });
    }
    throw new WeftError(
      'BAD_INPUT',
      'a scripted-model script must default-export { replies: [...] }, an array of replies, or a function',
      {
        location: { file: path, field: 'default' },
      },
    );
  }
  throw new WeftError('BAD_INPUT', `a scripted-model file must end in .json or .js, got ${JSON.stringify(path)}`, {
    location: { file: path },
  });
}
