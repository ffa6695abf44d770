import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { ChatCall, ChatModel, ChatResult } from '../../src/llm/chat-model.js';
import { createLocalGgufModel } from '../../src/llm/providers/local-gguf.js';
import {
  boundedSchema,
  canonicalPlanAnswer,
  canonicalUpdateAnswer,
  canonicalVerdictAnswer,
  planAnswerJsonSchema,
  updateAnswerJsonSchema,
  verdictAnswerJsonSchema,
  type JsonSchema,
} from '../../src/plan/answer-schemas.js';
import { planAnswerSchema, updateAnswerSchema, verdictAnswerSchema } from '../../src/plan/plan-schemas.js';
import { planTask } from '../../src/plan/plan-task.js';
import { proposeUpdate } from '../../src/plan/update-plan.js';
import { verifySubtask } from '../../src/plan/verify-subtask.js';
import { localInferenceSkipReason, realImporter, TINY_MODEL } from '../local-llama.js';

/**
 * A validator for exactly the JSON Schema subset the answer schemas may use (the one node-llama-cpp turns into
 * a grammar). Any other keyword is an error, so the schemas cannot drift outside the subset unnoticed.
 */
const SUBSET = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'oneOf',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
]);

function schemaErrors(schema: JsonSchema, value: unknown, path = '$'): string[] {
  const unknown = Object.keys(schema).filter((key) => !SUBSET.has(key));
  if (unknown.length > 0) return [`${path}: unsupported keyword(s) ${unknown.join(', ')}`];
  if (schema['oneOf'] !== undefined) {
    const matches = (schema['oneOf'] as JsonSchema[]).filter(
      (branch) => schemaErrors(branch, value, path).length === 0,
    );
    return matches.length === 1 ? [] : [`${path}: matches ${matches.length} oneOf branches, expected 1`];
  }
  if (schema['const'] !== undefined && value !== schema['const'])
    return [`${path}: expected ${String(schema['const'])}`];
  if (schema['enum'] !== undefined && !(schema['enum'] as unknown[]).includes(value)) return [`${path}: not in enum`];
  const errors: string[] = [];
  switch (schema['type']) {
    case 'string':
      if (typeof value !== 'string') return [`${path}: expected a string`];
      if (value.length < ((schema['minLength'] as number | undefined) ?? 0)) errors.push(`${path}: too short`);
      if (value.length > ((schema['maxLength'] as number | undefined) ?? Infinity)) errors.push(`${path}: too long`);
      break;
    case 'array':
      if (!Array.isArray(value)) return [`${path}: expected an array`];
      if (value.length < ((schema['minItems'] as number | undefined) ?? 0)) errors.push(`${path}: too few items`);
      if (value.length > ((schema['maxItems'] as number | undefined) ?? Infinity))
        errors.push(`${path}: too many items`);
      value.forEach((item, index) =>
        errors.push(...schemaErrors(schema['items'] as JsonSchema, item, `${path}[${index}]`)),
      );
      break;
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: expected an object`];
      const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
      const record = value as Record<string, unknown>;
      for (const name of (schema['required'] ?? []) as string[])
        if (!(name in record)) errors.push(`${path}.${name}: missing`);
      for (const [name, item] of Object.entries(record)) {
        if (properties[name]) errors.push(...schemaErrors(properties[name], item, `${path}.${name}`));
        else if (schema['additionalProperties'] === false) errors.push(`${path}.${name}: not allowed`);
      }
      break;
    }
    case undefined:
      break;
    default:
      errors.push(`${path}: unsupported type ${String(schema['type'])}`);
  }
  return errors;
}

const planExamples = [
  { subtasks: [{ id: 't1', objective: 'Write the page', agent: 'coder', dependsOn: [] }] },
  {
    roles: [
      { name: 'designer', prompt: 'You design pages.' },
      { name: 'coder', prompt: 'You are a careful programmer.' },
    ],
    subtasks: [
      { id: 't1', objective: 'Design the layout', agent: 'designer', dependsOn: [] },
      { id: 't2', objective: 'Write index.html', agent: 'coder', dependsOn: ['t1'] },
      { id: 't3', objective: 'Write style.css', agent: 'coder', dependsOn: ['t1'] },
    ],
  },
];
const verdictExamples = [
  { verdict: 'accept', reason: '' },
  { verdict: 'retry', reason: 'The file is incomplete.' },
  { verdict: 'replan', reason: 'The input it needs is missing.' },
];
const updateExamples = [{}, ...planExamples];

const cases: [string, JsonSchema, z.ZodType, z.ZodType, unknown[]][] = [
  ['plan', planAnswerJsonSchema, canonicalPlanAnswer, planAnswerSchema, planExamples],
  ['verdict', verdictAnswerJsonSchema, canonicalVerdictAnswer, verdictAnswerSchema, verdictExamples],
  ['update', updateAnswerJsonSchema, canonicalUpdateAnswer, updateAnswerSchema, updateExamples],
];

describe('answer JSON Schemas', () => {
  it.each(cases)(
    '%s: every canonical example validates under the JSON Schema, the canonical and the lenient zod schema',
    (_name, json, canonical, lenient, examples) => {
      for (const example of examples) {
        expect(schemaErrors(json, example)).toEqual([]);
        expect(canonical.safeParse(example).success).toBe(true);
        expect(lenient.safeParse(example).success).toBe(true);
      }
    },
  );

  it.each(cases)(
    '%s: off-shape answers fail the JSON Schema and the canonical zod schema alike',
    (_name, json, canonical) => {
      const wrong: unknown[] = [
        [],
        'accept',
        { verdict: 'maybe', reason: '' },
        { subtasks: [] },
        { subtasks: [{ id: 't1', objective: '', agent: 'coder', dependsOn: [] }] },
        { subtasks: [{ id: 1, objective: 'x', agent: 'coder', dependsOn: [] }] },
        { subtasks: [{ id: 't1', objective: 'x', agent: 'coder', depends_on: [] }] },
        {
          roles: [{ name: 'team', prompt: 'p', kind: 'team' }],
          subtasks: [{ id: 't1', objective: 'x', agent: 'coder', dependsOn: [] }],
        },
        { extra: true },
      ];
      for (const answer of wrong) {
        expect(schemaErrors(json, answer), JSON.stringify(answer)).not.toEqual([]);
        expect(canonical.safeParse(answer).success, JSON.stringify(answer)).toBe(false);
      }
    },
  );

  it('pins the exact shapes, in the subset node-llama-cpp reads (oneOf, no $schema)', () => {
    const text = { type: 'string', minLength: 1 };
    const plan = {
      type: 'object',
      properties: {
        roles: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: text, prompt: text },
            required: ['name', 'prompt'],
            additionalProperties: false,
          },
        },
        subtasks: {
          minItems: 1,
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: text,
              objective: text,
              agent: text,
              dependsOn: { type: 'array', items: text },
              outputFormat: text,
            },
            required: ['id', 'objective', 'agent', 'dependsOn'],
            additionalProperties: false,
          },
        },
      },
      required: ['subtasks'],
      additionalProperties: false,
    };
    expect(planAnswerJsonSchema).toEqual(plan);
    expect(updateAnswerJsonSchema).toEqual({
      oneOf: [plan, { type: 'object', properties: {}, additionalProperties: false }],
    });
    expect(verdictAnswerJsonSchema).toEqual({
      type: 'object',
      properties: { verdict: { type: 'string', enum: ['accept', 'retry', 'replan'] }, reason: { type: 'string' } },
      required: ['verdict', 'reason'],
      additionalProperties: false,
    });
    expect(Object.isFrozen(planAnswerJsonSchema)).toBe(true);
  });
});

describe('boundedSchema', () => {
  it('adds maxLength and maxItems where absent, everywhere, without touching the original', () => {
    const before = JSON.stringify(updateAnswerJsonSchema);
    const bounded = boundedSchema(updateAnswerJsonSchema, { maxString: 24, maxItems: 3 });
    expect(JSON.stringify(updateAnswerJsonSchema)).toBe(before);
    const plan = (bounded['oneOf'] as JsonSchema[])[0] as {
      properties: Record<
        string,
        {
          maxItems?: number;
          items: {
            properties: Record<string, { maxLength?: number; maxItems?: number; items?: { maxLength?: number } }>;
          };
        }
      >;
    };
    expect(plan.properties['roles']?.maxItems).toBe(3);
    expect(plan.properties['roles']?.items.properties['prompt']?.maxLength).toBe(24);
    expect(plan.properties['subtasks']?.items.properties['dependsOn']?.maxItems).toBe(3);
    expect(plan.properties['subtasks']?.items.properties['dependsOn']?.items?.maxLength).toBe(24);
    expect(schemaErrors(bounded, planExamples[0])).toEqual([]);
    expect(schemaErrors(bounded, {})).toEqual([]);
    expect(
      schemaErrors(bounded, { subtasks: [{ id: 't1', objective: 'x'.repeat(25), agent: 'a', dependsOn: [] }] }),
    ).not.toEqual([]);
  });

  it('keeps existing bounds, never goes below a minimum, and leaves enums alone', () => {
    const schema = {
      type: 'object',
      properties: {
        short: { type: 'string', maxLength: 4 },
        long: { type: 'string', minLength: 40 },
        many: { type: 'array', minItems: 5, items: { type: ['string', 'null'] } },
        choice: { type: 'string', enum: ['a', 'b'] },
      },
    };
    expect(boundedSchema(schema, { maxString: 10, maxItems: 2 })['properties']).toEqual({
      short: { type: 'string', maxLength: 4 },
      long: { type: 'string', minLength: 40, maxLength: 40 },
      many: { type: 'array', minItems: 5, maxItems: 5, items: { type: ['string', 'null'], maxLength: 10 } },
      choice: { type: 'string', enum: ['a', 'b'] },
    });
    expect(boundedSchema(schema, {})).toEqual(schema);
  });

  it('rejects bad bounds loudly', () => {
    expect(() => boundedSchema(planAnswerJsonSchema, { maxString: -1 })).toThrow(
      /maxString to be an integer >= 0, got -1/,
    );
    expect(() => boundedSchema(planAnswerJsonSchema, { maxItems: 1.5 })).toThrow(/maxItems/);
  });
});

/** Answers each call from `replies` by purpose and records the calls. */
function recordingModel(replies: Record<string, string>): ChatModel & { calls: ChatCall[] } {
  const calls: ChatCall[] = [];
  return {
    id: 'recording',
    kind: 'scripted',
    calls,
    async generate(call): Promise<ChatResult> {
      calls.push(call);
      return {
        text: replies[call.tag?.purpose ?? 'other'] ?? '{}',
        usage: { inputTokens: 1, outputTokens: 1 },
        model: 'recording',
      };
    },
  };
}

describe('the planner, verifier and inspector send their answer schema', () => {
  it('as call.json = { name, schema }', async () => {
    const model = recordingModel({
      plan: JSON.stringify(planExamples[1]),
      verify: '{"verdict": "accept", "reason": "ok"}',
      update: '{}',
    });
    const planned = await planTask({ task: 'Build a page', model, candidates: 1 });
    await verifySubtask({
      model,
      task: 'Build a page',
      subtaskId: 't1',
      objective: 'Design',
      output: 'done',
      attempt: 1,
    });
    await proposeUpdate({ model, workflow: planned.workflow, failed: [], sequence: 1 });
    expect(model.calls.map((call) => call.json)).toEqual([
      { name: 'plan', schema: planAnswerJsonSchema },
      { name: 'verdict', schema: verdictAnswerJsonSchema },
      { name: 'update', schema: updateAnswerJsonSchema },
    ]);
  });
});

// ---- A grammar-constrained plan from node-llama-cpp and the tiny random GGUF, when both are present. ----

const skipReason = await localInferenceSkipReason();
if (skipReason) console.log(`[answer-schemas] skipping the grammar-constrained plan test: ${skipReason}`);

describe('answer schemas as a grammar: real inference with node-llama-cpp', () => {
  it.skipIf(skipReason !== undefined)(
    'a random-weights model writes a plan answer that validates, because the grammar says so',
    async () => {
      const model = createLocalGgufModel({ id: `local:${TINY_MODEL}`, path: TINY_MODEL, importer: realImporter });
      try {
        // Random weights never close a string or an array on purpose: only the bounds make the answer end
        // (greedy decoding fills every bound here, ~300 tokens).
        const schema = boundedSchema(planAnswerJsonSchema, { maxString: 24, maxItems: 3 });
        const started = Date.now();
        const result = await model.generate({
          system: 'You are a planner.',
          messages: [{ role: 'user', content: 'Plan: write a poem.' }],
          maxTokens: 400,
          json: { name: 'plan', schema },
        });
        console.log(
          `[answer-schemas] ${result.usage.outputTokens} tokens in ${Date.now() - started} ms: ${result.text}`,
        );
        const parsed: unknown = JSON.parse(result.text);
        expect(planAnswerSchema.safeParse(parsed).success).toBe(true);
        expect(canonicalPlanAnswer.safeParse(parsed).success).toBe(true);
        expect(schemaErrors(schema, parsed)).toEqual([]);
      } finally {
        await model.dispose();
      }
    },
    20_000,
  );
});
