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
 * `when` may also be an object that looks at the latest tool results (those after the model's last reply), so a
 * script can answer a failed call honestly instead of matching an error somewhere in the whole prompt:
 * `{ "prompt"?: pattern, "tool"?: "name", "toolError"?: pattern | true, "toolResult"?: pattern }`, every key given
 * must hold, for one and the same latest result when `tool`, `toolError` or `toolResult` is given. `toolError`
 * matches a failed call's error message (`true`: any failure), `toolResult` a successful call's content. In the
 * text of an entry whose `when` has `toolError`, `{{toolError}}` stands for the first line of that error.
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

/** A `when` that looks at the latest tool results; a pattern is a substring or `/regex/flags`. */
export interface ScriptedWhen {
  /** A pattern the whole prompt matches, as a string `when`. */
  readonly prompt?: string;
  /** The latest result looked at comes from this tool. */
  readonly tool?: string;
  /** The latest result looked at is a failure whose message matches (`true`: any failure). */
  readonly toolError?: string | true;
  /** The latest result looked at is a success whose content matches. */
  readonly toolResult?: string;
}

export interface ScriptedReply {
  /**
   * A substring of the prompt, `/regex/flags`, or conditions on the latest tool results. Without it, the entry is
   * part of the default sequence.
   */
  readonly when?: string | ScriptedWhen;
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

/** What a `when` sees of a call: the prompt as text and the tool results after the model's last reply. */
interface WhenInput {
  readonly prompt: string;
  readonly latest: readonly LatestResult[];
}

interface LatestResult {
  readonly name: string;
  readonly content: string;
  readonly isError: boolean;
}

/** What a matching `when` found: the failed result its `toolError` matched, for `{{toolError}}`. */
type WhenMatch = { readonly error?: string } | undefined;

interface CompiledReply {
  readonly reply: ScriptedReply;
  readonly matches: ((input: WhenInput) => WhenMatch) | undefined;
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
    const input: WhenInput = {
      prompt: promptText({ ...call, messages: renderToolMessages(call.messages, undefined) }),
      latest: latestResults(call),
    };
    let match: WhenMatch;
    const entry =
      entries.find((e) => {
        if (e.consumed || e.matches === undefined) return false;
        match = e.matches(input);
        return match !== undefined;
      }) ?? entries.find((e) => !e.consumed && e.matches === undefined);
    if (!entry) {
      throw new WeftError(
        'SCRIPT_EXHAUSTED',
        `Scripted model ${id}${file && !id.includes(file) ? ` (${file})` : ''} has no reply left for call ${callCount}, whose prompt starts: ${JSON.stringify(firstLine(call))}`,
        { location: file ? { file } : undefined },
      );
    }
    if (!entry.reply.repeat) entry.consumed = true;
    const { toolCalls } = entry.reply;
    const error = entry.matches === undefined ? undefined : match?.error;
    const text = error === undefined ? entry.reply.text : entry.reply.text.replaceAll('{{toolError}}', () => error);
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

/** The tool results after the model's last reply, in order: what a tool-aware `when` looks at. */
function latestResults(call: ChatCall): LatestResult[] {
  const latest: LatestResult[] = [];
  for (let index = call.messages.length - 1; index >= 0; index--) {
    const message = call.messages[index]!;
    if (message.role !== 'tool') break;
    latest.unshift({ name: message.name, content: message.content, isError: message.isError === true });
  }
  return latest;
}

const REGEX_WHEN = /^\/(.+)\/([dgimsuvy]*)$/s;

function compilePattern(pattern: string): (text: string) => boolean {
  const regex = parseWhenRegex(pattern);
  if (regex) return (text) => regex.test(text);
  return (text) => text.includes(pattern);
}

function compileWhen(when: string | ScriptedWhen | undefined): ((input: WhenInput) => WhenMatch) | undefined {
  if (when === undefined) return undefined;
  if (typeof when === 'string') {
    const test = compilePattern(when);
    return (input) => (test(input.prompt) ? {} : undefined);
  }
  const prompt = when.prompt === undefined ? undefined : compilePattern(when.prompt);
  const error = when.toolError === undefined || when.toolError === true ? undefined : compilePattern(when.toolError);
  const result = when.toolResult === undefined ? undefined : compilePattern(when.toolResult);
  const looksAtResults = when.tool !== undefined || when.toolError !== undefined || when.toolResult !== undefined;
  return (input) => {
    if (prompt && !prompt(input.prompt)) return undefined;
    if (!looksAtResults) return {};
    const found = input.latest.find(
      (latest) =>
        (when.tool === undefined || latest.name === when.tool) &&
        (when.toolError === undefined || (latest.isError && (error === undefined || error(latest.content)))) &&
        (when.toolResult === undefined || (!latest.isError && result!(latest.content))),
    );
    if (!found) return undefined;
    return when.toolError === undefined ? {} : { error: firstLineOf(found.content) };
  };
}

function firstLineOf(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '') ?? ''
  );
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
    if ('when' in record && record.when !== undefined) issues.push(...whenIssues(record.when, `${at}.when`));
    if ('repeat' in record && record.repeat !== undefined && typeof record.repeat !== 'boolean') {
      issues.push({ field: `${at}.repeat`, message: `expected true or false, got ${describe(record.repeat)}` });
    }
  });
  return issues;
}

const WHEN_KEYS = ['prompt', 'tool', 'toolError', 'toolResult'];

/** Problems of a `when`: a pattern, or an object of patterns on the prompt and the latest tool results. */
function whenIssues(when: unknown, at: string): { field: string; message: string }[] {
  if (typeof when === 'string') return patternIssues(when, at);
  if (when === null || typeof when !== 'object' || Array.isArray(when)) {
    return [
      { field: at, message: `expected a string or { prompt?, tool?, toolError?, toolResult? }, got ${describe(when)}` },
    ];
  }
  const record = when as Record<string, unknown>;
  const issues: { field: string; message: string }[] = [];
  for (const key of Object.keys(record)) {
    if (!WHEN_KEYS.includes(key))
      issues.push({ field: `${at}.${key}`, message: `unknown key "${key}" (a when has ${WHEN_KEYS.join(', ')})` });
  }
  const given = WHEN_KEYS.filter((key) => record[key] !== undefined);
  if (given.length === 0 && issues.length === 0)
    issues.push({ field: at, message: `an empty "when" matches everything; give one of ${WHEN_KEYS.join(', ')}` });
  if (record.toolError !== undefined && record.toolResult !== undefined)
    issues.push({
      field: `${at}.toolResult`,
      message: 'one result cannot be both a failure (toolError) and a success (toolResult); keep one',
    });
  for (const key of given) {
    const value = record[key];
    if (key === 'toolError' && value === true) continue;
    if (typeof value !== 'string') {
      const expected = key === 'toolError' ? 'a string or true' : 'a string';
      issues.push({ field: `${at}.${key}`, message: `expected ${expected}, got ${describe(value)}` });
    } else if (key === 'tool') {
      if (value === '') issues.push({ field: `${at}.tool`, message: 'expected a tool name, got ""' });
    } else issues.push(...patternIssues(value, `${at}.${key}`));
  }
  return issues;
}

function patternIssues(pattern: string, at: string): { field: string; message: string }[] {
  if (pattern === '') return [{ field: at, message: 'an empty pattern matches everything; omit it instead' }];
  try {
    parseWhenRegex(pattern);
  } catch (error) {
    return [{ field: at, message: `bad regular expression: ${(error as Error).message}` }];
  }
  return [];
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
