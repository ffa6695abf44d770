import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/tools/tool.js';
import { randomFrom } from '../../src/llm/seeded-random.js';
import { simBadToolArgs, simToolArgs } from '../../src/llm/sim-tool-args.js';
import { validateToolArgs } from '../../src/tools/validate-args.js';

const SCHEMAS: Record<string, Record<string, unknown>> = {
  order: {
    type: 'object',
    properties: {
      order_id: { type: 'string', minLength: 12, maxLength: 12 },
      quantity: { type: 'integer', minimum: 1, maximum: 5 },
      reason: { enum: ['damaged', 'late', 'wrong item'] },
      express: { type: 'boolean' },
      note: { type: 'string' },
    },
    required: ['order_id', 'quantity', 'reason', 'express'],
    additionalProperties: false,
  },
  nested: {
    type: 'object',
    properties: {
      customer: {
        type: 'object',
        properties: { email: { type: 'string', format: 'email' }, since: { type: 'string', format: 'date' } },
        required: ['email', 'since'],
      },
      items: {
        type: 'array',
        minItems: 2,
        items: {
          type: 'object',
          properties: { sku: { const: 'SKU-1' }, price: { type: 'number', exclusiveMinimum: 0 } },
          required: ['sku', 'price'],
        },
      },
      kind: {
        anyOf: [
          { type: 'string', enum: ['a', 'b'] },
          { type: 'integer', minimum: 10 },
        ],
      },
    },
    required: ['customer', 'items', 'kind'],
  },
  optionalOnly: { type: 'object', properties: { limit: { type: 'integer', maximum: 0 } } },
  empty: { type: 'object' },
};

const valid = async (schema: Record<string, unknown>, args: unknown): Promise<boolean> =>
  validateToolArgs({ name: 't', inputSchema: schema as never }, args as JsonValue).then(
    () => true,
    () => false,
  );

describe('sim tool arguments from a JSON schema', () => {
  it('good arguments pass the tool layer validation (ajv) for every seed; bad ones never do', async () => {
    for (const [name, schema] of Object.entries(SCHEMAS)) {
      for (let seed = 1; seed <= 40; seed++) {
        const good = simToolArgs(schema, randomFrom(seed, name, 'good'));
        expect(await valid(schema, good), `${name} seed ${seed}: ${JSON.stringify(good)}`).toBe(true);
        const bad = simBadToolArgs(schema, randomFrom(seed, name, 'bad'));
        expect(await valid(schema, bad), `${name} seed ${seed}: ${JSON.stringify(bad)}`).toBe(false);
      }
    }
  });

  it('is a pure function of the random source', () => {
    const a = simToolArgs(SCHEMAS['nested']!, randomFrom(3, 'x'));
    const b = simToolArgs(SCHEMAS['nested']!, randomFrom(3, 'x'));
    expect(a).toEqual(b);
    expect(a).toMatchObject({ customer: { email: 'ada@example.com', since: '2025-03-10' } });
  });

  it('stays finite on a schema that refers to itself and on deep nesting', () => {
    const deep: Record<string, unknown> = { type: 'object', properties: {}, required: ['next'] };
    let node = deep;
    for (let index = 0; index < 500; index++) {
      const child: Record<string, unknown> = { type: 'object', properties: {}, required: ['next'] };
      node['properties'] = { next: child };
      node = child;
    }
    const args = simToolArgs(deep, randomFrom(1));
    expect(JSON.stringify(args).length).toBeLessThan(200);
    expect(
      simToolArgs({ type: 'object', properties: { self: { $ref: '#' } }, required: ['self'] }, randomFrom(1)),
    ).toEqual({
      self: {},
    });
  });
});
