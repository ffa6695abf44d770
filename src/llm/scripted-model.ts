/**
 * The scripted model (`scripted:<file.json|.js>`): replies from a script, for tests and reproducible demos.
 *
 * File format (docs/contracts.md, a fixed contract):
 *
 *     { "replies": [ { "when"?: "substring" | "/regex/flags", "text": "...", "repeat"?: true } ] }
 *
 * Which entry answers a call — the prompt is the system prompt and every message joined by newlines:
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
import type { ChatCall, ChatModel, ChatResult } from './chat-model.js';
import { abortErrorOf } from './timeout.js';
import { estimateUsage, promptText } from './token-estimate.js';

export interface ScriptedReply {
  /** A substring of the prompt, or `/regex/flags`. Without it, the entry is part of the default sequence. */
  readonly when?: string;
  readonly text: string;
  /** Keep the entry after use. */
  readonly repeat?: boolean;
}

/** Answers every call itself (a `.js` script may export one). */
export type ScriptedResponder = (call: ChatCall) => string | Promise<string>;

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
  replies: readonly ScriptedReply[] | ScriptedResponder,
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
    calls,
    remaining,
    async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      if (signal?.aborted) throw abortErrorOf(signal);
      calls.push(call);
      const text: unknown = await respond(call);
      if (typeof text !== 'string') {
        throw new WeftError('BAD_INPUT', `The scripted responder returned ${typeof text}, expected a string`, {
          location: options.file ? { file: options.file } : undefined,
        });
      }
      return { text, usage: estimateUsage(call, text), model: 'scripted' };
    },
  };
}

type ScriptResponder = ScriptedResponder & { remaining(): number };

function scriptResponder(replies: readonly ScriptedReply[], id: string, file: string | undefined): ScriptResponder {
  const entries: CompiledReply[] = replies.map((reply) => ({
    reply,
    matches: compileWhen(reply.when),
    consumed: false,
  }));
  let callCount = 0;
  const responder = (call: ChatCall): string => {
    callCount++;
    const prompt = promptText(call);
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
    return entry.reply.text;
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
  return replies as ScriptedReply[];
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
    issues.push({ field: 'replies', message: 'missing "replies" (an array of { when?, text, repeat? })' });
  } else {
    issues.push(...replyIssues((value as { replies: unknown }).replies, 'replies'));
  }
  if (issues.length === 0) return (value as { replies: ScriptedReply[] }).replies;
  const locate = jsonLocator(source);
  throw badScript(
    issues.map((issue) => ({ ...issue, file, ...locate(issue.field) })),
    file,
  );
}

function replyIssues(replies: unknown, field: string): { field?: string; message: string }[] {
  if (!Array.isArray(replies)) return [{ field, message: 'expected an array of { when?, text, repeat? }' }];
  const issues: { field: string; message: string }[] = [];
  replies.forEach((entry: unknown, index) => {
    const at = `${field}[${index}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      issues.push({ field: at, message: 'expected an object { when?, text, repeat? }' });
      return;
    }
    const record = entry as Record<string, unknown>;
    if (!('text' in record)) issues.push({ field: `${at}.text`, message: 'missing "text"' });
    else if (typeof record.text !== 'string')
      issues.push({ field: `${at}.text`, message: `expected a string, got ${describe(record.text)}` });
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
