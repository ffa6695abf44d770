/**
 * Reference sessions for turn-level evaluation (`weft dialog eval --references R.jsonl`): one a line,
 * `{ id, profile?, messages: [ { role: "user", content, oow?: "category/subtype" }
 *                            | { role: "bot", tool, args, result?, error?, ok? } | { role: "bot", content } ] }`.
 *
 * A bot tool move's `args` default to `{}`; `result` (or `error`, for a failed call) is what the API answered (the
 * teacher-forced prefix shows it to the bot as the tool's message); `ok` defaults to true, or false with `error`. An `oow` tag marks a user message as an out-of-workflow move:
 * the bot's moves after it, up to the next user message, are scored as OOW turns.
 */
import type { JsonValue } from '../tools/tool.js';
import type { OowTag } from './session-events.js';
import {
  checkKeys,
  isPlainObject,
  loadJsonlRecords,
  parseJsonlRecords,
  readId,
  readString,
  type Problems,
} from './load-jsonl-records.js';
import { describeValue } from '../text/describe-value.js';
import { parseOowLabel } from './oow.js';

export type ReferenceMessage =
  | { readonly role: 'user'; readonly content: string; readonly oow?: OowTag }
  | {
      readonly role: 'bot';
      readonly kind: 'tool';
      readonly tool: string;
      readonly args: JsonValue;
      readonly result?: JsonValue;
      /** What the API answered when it failed (`ok` false). */
      readonly error?: string;
      readonly ok: boolean;
      /** The answer came from a simulated API (`weft dialog eval --simulate-apis`), not from the reference. */
      readonly simulated?: boolean;
    }
  | { readonly role: 'bot'; readonly kind: 'reply'; readonly content: string };

export interface ReferenceSession {
  readonly id: string;
  readonly profile?: string;
  readonly messages: readonly ReferenceMessage[];
  /** 1-based line in its file. */
  readonly line: number;
}

const SESSION_KEYS = ['id', 'profile', 'messages'] as const;
const USER_KEYS = ['role', 'content', 'oow'] as const;
const TOOL_KEYS = ['role', 'tool', 'args', 'result', 'error', 'ok'] as const;
const REPLY_KEYS = ['role', 'content'] as const;

export async function loadReferenceSessions(path: string): Promise<ReferenceSession[]> {
  return loadJsonlRecords(path, 'reference sessions file', readSession);
}

export function parseReferenceSessions(text: string, file: string): ReferenceSession[] {
  return parseJsonlRecords(text, file, 'reference sessions file', readSession);
}

function readSession(record: Record<string, unknown>, problems: Problems): Omit<ReferenceSession, 'line'> | undefined {
  const before = problems.length;
  checkKeys(record, SESSION_KEYS, problems);
  const id = readId(record.id, problems);
  const profile = readString(record.profile, ['profile'], problems);
  const messages: ReferenceMessage[] = [];
  if (!Array.isArray(record.messages)) {
    problems.push({
      path: ['messages'],
      message:
        record.messages === undefined ? 'missing "messages"' : '"messages" must be an array of {role, …} objects',
    });
  } else {
    if (!record.messages.some((message) => isPlainObject(message) && message.role === 'bot'))
      problems.push({ path: ['messages'], message: 'the session has no bot move to evaluate' });
    record.messages.forEach((message: unknown, index) => {
      const read = readMessage(message, ['messages', index], problems);
      if (read) messages.push(read);
    });
  }
  if (problems.length > before || id === undefined) return undefined;
  return { id, ...(profile !== undefined ? { profile } : {}), messages };
}

const OOW_EXAMPLE = 'intent_switching/detail_switching';

function readMessage(value: unknown, path: (string | number)[], problems: Problems): ReferenceMessage | undefined {
  if (!isPlainObject(value)) {
    problems.push({ path, message: 'a message is an object with "role": "user" or "bot"' });
    return undefined;
  }
  const before = problems.length;
  if (value.role === 'user') {
    checkKeys(value, USER_KEYS, problems, path);
    const content = readString(value.content, [...path, 'content'], problems, { required: true });
    let oow: OowTag | undefined;
    if (value.oow !== undefined && value.oow !== null) {
      oow = typeof value.oow === 'string' ? parseOowLabel(value.oow) : undefined;
      if (!oow)
        problems.push({
          path: [...path, 'oow'],
          message: `"oow" must be "category/subtype" or "category" (e.g. "${OOW_EXAMPLE}"), got ${describeValue(value.oow)}`,
        });
    }
    if (problems.length > before || content === undefined) return undefined;
    return { role: 'user', content, ...(oow ? { oow } : {}) };
  }
  if (value.role === 'bot') {
    if (value.tool !== undefined) {
      checkKeys(value, TOOL_KEYS, problems, path);
      const tool = readString(value.tool, [...path, 'tool'], problems, { required: true });
      const args = value.args ?? {};
      if (!isPlainObject(args))
        problems.push({ path: [...path, 'args'], message: '"args" must be an object of parameter values' });
      if (value.ok !== undefined && typeof value.ok !== 'boolean')
        problems.push({ path: [...path, 'ok'], message: '"ok" must be true or false' });
      const error = readString(value.error, [...path, 'error'], problems);
      if (error !== undefined && value.ok === true)
        problems.push({ path: [...path, 'error'], message: 'a call with "ok": true has no "error"' });
      if (problems.length > before || tool === undefined) return undefined;
      return {
        role: 'bot',
        kind: 'tool',
        tool,
        args: args as JsonValue,
        ...(value.result !== undefined ? { result: value.result as JsonValue } : {}),
        ...(error !== undefined ? { error } : {}),
        // An error says the call failed; otherwise it succeeded unless `ok` says not.
        ok: typeof value.ok === 'boolean' ? value.ok : error === undefined,
      };
    }
    checkKeys(value, REPLY_KEYS, problems, path);
    const content = readString(value.content, [...path, 'content'], problems, { required: true });
    if (problems.length > before || content === undefined) return undefined;
    return { role: 'bot', kind: 'reply', content };
  }
  problems.push({
    path: [...path, 'role'],
    message: `"role" must be "user" or "bot", got ${value.role === undefined ? 'nothing' : JSON.stringify(value.role)}`,
  });
  return undefined;
}
