/**
 * The `sim:` model as the server of a simulated API (simulated-api.ts), so that a procedure whose APIs are only
 * declared runs offline: it reads the API's declaration and the request from the prompt's tagged blocks and answers
 * `{"status": 200, "data": …}` with a value for every field of the output schema, drawn from a source seeded by the
 * sim's seed, the API's name and the request's canonical arguments — the same request always gets the same answer.
 *
 * Values: a schema's `enum` (or `const`) is picked from; a description that lists the values, as the FlowAgent
 * authors' specs do ("Enumerated type, [true, false]"), is picked from likewise; otherwise by type (a string is
 * `<field>-<n>`, numbers are small integers, a boolean is drawn). Without an output schema, `{"ok": true}`.
 *
 * It lives beside the simulated tool, not in src/llm, as the distillation sim lives beside distillation: it knows
 * this tool's prompt, which the model layer has no business knowing. Every other call goes to the model it wraps.
 */
import type { ChatCall, ChatModel } from '../llm/chat-model.js';
import { wrapModel } from '../llm/wrap-model.js';
import { readJsonBlock } from '../text/json-block.js';
import { integerSample, pick, randomFrom, type RandomSource } from '../llm/seeded-random.js';
import { parseSimOptions } from '../llm/sim-options.js';
import { estimateUsage } from '../llm/token-estimate.js';
import { canonicalJson } from '../text/canonical-json.js';
import type { JsonValue } from './tool.js';

/** The tags of the simulated API's prompt (simulated-api.ts writes them, the sim reads them). */
export const SIMULATED_API_TAGS = { api: 'simulated-api', request: 'simulated-request' } as const;
const TAGS = SIMULATED_API_TAGS;

/** `model` itself unless it is a sim model; otherwise one that answers `simulate-api` calls as described above. */
export function withApiSim(model: ChatModel): ChatModel {
  if (model.kind !== 'sim') return model;
  const { seed } = parseSimOptions(model.id);
  return wrapModel(model, {
    async wrapGenerate({ call, signal, next }) {
      if (call.tag?.purpose !== 'simulate-api') return next(call, signal);
      signal?.throwIfAborted();
      const text = JSON.stringify(simApiReply(call, seed));
      return { text, usage: estimateUsage(call, text), model: model.id };
    },
  });
}

/** The sim's answer to one simulated call. */
export function simApiReply(call: ChatCall, seed: number): { status: number; data: JsonValue } {
  const prompt = call.messages.findLast((message) => message.role === 'user')?.content ?? '';
  const api = readJsonBlock(prompt, TAGS.api);
  const request = readJsonBlock(prompt, TAGS.request);
  if (!isRecord(api) || typeof api.name !== 'string')
    return { status: 500, data: 'sim: the prompt has no readable <simulated-api> block' };
  const args = isRecord(request) ? (request.args ?? {}) : {};
  const random = randomFrom(seed, 'simulate-api', api.name, canonicalJson(args));
  const output = isRecord(api.output) ? api.output : undefined;
  if (!output) return { status: 200, data: { ok: true } };
  return { status: 200, data: simValue(output, random, 'result', 0) };
}

const MAX_DEPTH = 6;

function simValue(schema: Record<string, unknown>, random: RandomSource, name: string, depth: number): JsonValue {
  if (schema.const !== undefined) return schema.const as JsonValue;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return pick(random, schema.enum) as JsonValue;
  const listed = listedValues(typeof schema.description === 'string' ? schema.description : '');
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (listed.length > 0 && (type === undefined || type === 'string')) return pick(random, listed);
  if (depth >= MAX_DEPTH) return null;
  switch (type) {
    case 'integer':
      return integerSample(random, 1, 100);
    case 'number':
      return integerSample(random, 1, 1000) / 10;
    case 'boolean':
      return random() < 0.5;
    case 'array': {
      const items = isRecord(schema.items) ? schema.items : {};
      return [simValue(items, random, name, depth + 1)];
    }
    case 'object':
    case undefined: {
      const properties = isRecord(schema.properties) ? schema.properties : undefined;
      if (!properties) return type === 'object' ? {} : `${name}-${integerSample(random, 1, 999)}`;
      return Object.fromEntries(
        Object.entries(properties).map(([key, property]) => [
          key,
          simValue(isRecord(property) ? property : {}, random, key, depth + 1),
        ]),
      );
    }
    case 'null':
      return null;
    default:
      return `${name}-${integerSample(random, 1, 999)}`;
  }
}

/** `Enumerated type, [true, false]` (the authors' way of listing values) → `['true', 'false']`. */
function listedValues(description: string): string[] {
  const match = /enumerat\w*[^[]{0,20}\[([^\]]{1,500})\]/i.exec(description);
  if (!match?.[1]) return [];
  return match[1]
    .split(',')
    .map((value) => value.trim().replace(/^['"]|['"]$/g, ''))
    .filter((value) => value !== '')
    .slice(0, 50);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
