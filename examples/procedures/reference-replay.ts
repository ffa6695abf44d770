/**
 * Reference sessions (`references.jsonl` of each procedure) hold the real API's answers. This replays a session's
 * tool calls in order, through the procedure's tools file, against a business API that was just reset, and
 * compares each outcome with the recorded one; with `fill`, it records instead: `{{field}}` in an argument is
 * replaced by that field of the latest successful result that has it (a token, a quote id, …), and the results are
 * written in. `npm run example:record-references` re-records every procedure (see README.md).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { callTool } from '../../src/tools/call-tool.js';
import type { JsonValue, ToolSet } from '../../src/tools/tool.js';

export const PROCEDURES_DIR = dirname(fileURLToPath(import.meta.url));
const API_DIR = join(PROCEDURES_DIR, '..', 'business-api');

/** Each procedure and the tools file of the business API its APIs bind to by name. */
export const PROCEDURE_TOOLS: Readonly<Record<string, string>> = {
  'order-return': join(API_DIR, 'tools.yaml'),
  'card-replacement': join(API_DIR, 'cards.tools.yaml'),
  'flight-change': join(API_DIR, 'flights.tools.yaml'),
  'insurance-claim': join(API_DIR, 'insurance.tools.yaml'),
  'plan-change': join(API_DIR, 'mobile.tools.yaml'),
  'appointment-booking': join(API_DIR, 'clinic.tools.yaml'),
};

export type ReferenceMessage =
  | { role: 'user'; content: string; oow?: string }
  | { role: 'bot'; content: string }
  | { role: 'bot'; tool: string; args: Record<string, JsonValue>; ok: boolean; result?: JsonValue; error?: string };

export interface ReferenceSession {
  id: string;
  profile?: string;
  messages: ReferenceMessage[];
}

export function readJsonLines<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line) as T;
      } catch (error) {
        throw new Error(`${path}:${index + 1}: ${(error as Error).message}`);
      }
    });
}

export const isToolMessage = (message: ReferenceMessage): message is Extract<ReferenceMessage, { tool: string }> =>
  'tool' in message;

/** `{{name}}` placeholders of an argument value, filled from the known result fields. */
function fillArgs(args: Record<string, JsonValue>, known: ReadonlyMap<string, JsonValue>): Record<string, JsonValue> {
  return Object.fromEntries(
    Object.entries(args).map(([name, value]) => {
      const placeholder = typeof value === 'string' ? /^\{\{(\w+)\}\}$/.exec(value) : null;
      if (!placeholder) return [name, value];
      const found = known.get(placeholder[1]!);
      if (found === undefined) throw new Error(`no earlier result has "${placeholder[1]}" for argument "${name}"`);
      return [name, found];
    }),
  );
}

/**
 * Calls the session's tools in order. Returns the differences from the recording (empty when it replays true),
 * and the session with what the API answered (what `fill` writes back).
 */
export async function replaySession(
  set: ToolSet,
  session: ReferenceSession,
  { fill = false } = {},
): Promise<{ differences: string[]; session: ReferenceSession }> {
  const differences: string[] = [];
  const known = new Map<string, JsonValue>();
  const messages: ReferenceMessage[] = [];
  for (const [index, message] of session.messages.entries()) {
    if (!isToolMessage(message)) {
      messages.push(message);
      continue;
    }
    const tool = set.tools.find((candidate) => candidate.name === message.tool);
    if (!tool) {
      differences.push(`${session.id} message ${index}: no tool ${message.tool}`);
      messages.push(message);
      continue;
    }
    const args = fill ? fillArgs(message.args, known) : message.args;
    const outcome = await callTool(tool, args, { retries: 0 });
    const recorded: ReferenceMessage = outcome.ok
      ? { role: 'bot', tool: message.tool, args, result: outcome.result, ok: true }
      : { role: 'bot', tool: message.tool, args, ok: false, error: outcome.error.message };
    if (outcome.ok && outcome.result !== null && typeof outcome.result === 'object' && !Array.isArray(outcome.result)) {
      for (const [field, value] of Object.entries(outcome.result)) known.set(field, value);
    }
    if (!fill && !isDeepStrictEqual(recorded, message)) {
      differences.push(
        `${session.id} message ${index} (${message.tool}): recorded ${JSON.stringify(message)}, the API now answers ${JSON.stringify(recorded)}`,
      );
    }
    messages.push(recorded);
  }
  return { differences, session: { ...session, messages } };
}
