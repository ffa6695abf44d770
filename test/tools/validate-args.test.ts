import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import type { Tool } from '../../src/tools/tool.js';
import { MAX_ARGUMENT_PROBLEMS, compileToolSchema, validateToolArgs } from '../../src/tools/validate-args.js';

const getOrder = {
  name: 'get_order',
  inputSchema: {
    type: 'object',
    properties: {
      orderId: { type: 'string' },
      qty: { type: 'integer', minimum: 1 },
      status: { enum: ['open', 'shipped'] },
      lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
    },
    required: ['orderId', 'qty'],
    additionalProperties: false,
  },
};

async function problemOf(args: unknown, tool: Pick<Tool, 'name' | 'inputSchema'> = getOrder): Promise<WeftError> {
  try {
    await validateToolArgs(tool, args as never);
  } catch (error) {
    return error as WeftError;
  }
  throw new Error('expected the arguments to be rejected');
}

describe('validateToolArgs', () => {
  it('accepts arguments that match the schema', async () => {
    await expect(validateToolArgs(getOrder, { orderId: 'A1', qty: 2 })).resolves.toBeUndefined();
  });

  it('names the argument and the expected type', async () => {
    const error = await problemOf({ orderId: 12, qty: 1 });
    expect(error).toBeInstanceOf(WeftError);
    expect(error.code).toBe('TOOL');
    expect(error.message).toBe('get_order: argument "orderId" must be string (got number)');
    expect(error.issues).toEqual([{ field: 'orderId', message: 'argument "orderId" must be string (got number)' }]);
  });

  it('lists every problem: missing, unknown, enum, bounds and nested paths', async () => {
    const error = await problemOf({ orderId: 'A1', status: 'lost', extra: true, lines: [{ sku: 'x' }, {}] });
    expect(error.message).toMatch(/^get_order: 4 problems with the arguments: /);
    expect(error.message).toContain('missing required argument "qty"');
    expect(error.message).toContain('unknown argument "extra"');
    expect(error.message).toContain('argument "status" must be one of "open", "shipped" (got "lost")');
    expect(error.message).toContain('missing required argument "lines[1].sku"');
    const bound = await problemOf({ orderId: 'A1', qty: 0 });
    expect(bound.message).toBe('get_order: argument "qty" must be >= 1 (got 0)');
  });

  it('says what the arguments as a whole must be', async () => {
    const error = await problemOf([1, 2]);
    expect(error.message).toBe('get_order: the arguments must be object (got array)');
  });

  it('caps the list of problems', async () => {
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, { type: 'string' }]));
    const wide = { name: 'wide', inputSchema: { type: 'object', properties } };
    const error = await problemOf(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, i])), wide);
    expect(error.message).toContain('30 problems');
    expect(error.message).toContain(`… and ${30 - MAX_ARGUMENT_PROBLEMS} more`);
    expect(error.issues).toHaveLength(30);
  });

  it('reads draft-07 schemas and 2020-12 schemas', async () => {
    const draft07 = {
      name: 'old',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
      },
    };
    expect((await problemOf({ pair: ['a', 'b'] }, draft07)).message).toBe(
      'old: argument "pair[1]" must be number (got string)',
    );
    const modern = {
      name: 'new',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
      },
    };
    expect((await problemOf({ pair: ['a', 'b'] }, modern)).message).toBe(
      'new: argument "pair[1]" must be number (got string)',
    );
  });

  it('compiles each schema once', async () => {
    const first = await compileToolSchema('get_order', getOrder.inputSchema);
    expect(await compileToolSchema('get_order', getOrder.inputSchema)).toBe(first);
  });

  it('a schema ajv cannot compile is BAD_INPUT naming the tool', async () => {
    const bad = { name: 'broken_tool', inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } };
    const error = await problemOf({ a: 1 }, bad);
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toMatch(/^Tool "broken_tool" has an invalid input schema: /);
  });

  it('two tools with the same $id do not clash', async () => {
    const schema = () => ({ $id: 'https://example.com/args', type: 'object', required: ['x'] });
    await expect(validateToolArgs({ name: 'a', inputSchema: schema() }, { x: 1 })).resolves.toBeUndefined();
    await expect(validateToolArgs({ name: 'b', inputSchema: schema() }, {})).rejects.toThrow(
      'b: missing required argument "x"',
    );
  });
});

describe('schema patterns run in linear time (RE2)', () => {
  const patterned = {
    name: 'tag',
    inputSchema: {
      type: 'object',
      properties: {
        // On V8's engine, 41 characters against this pattern take minutes (catastrophic backtracking).
        word: { type: 'string', pattern: '^(a+)+$' },
        code: { type: 'string', pattern: '^[A-Z]-\\d{4}$' },
        look: { type: 'string', pattern: '^(?=x)x+$' },
      },
      patternProperties: { '^n_\\d+$': { type: 'number' } },
    },
  };

  it('a catastrophic pattern answers at once, and each pattern checks its own field', async () => {
    expect((await problemOf({ word: `${'a'.repeat(41)}!` }, patterned)).message).toContain('argument "word"');
    await validateToolArgs(patterned, { word: 'aaaa', code: 'B-1234', n_7: 3 });
    expect((await problemOf({ code: 'b-1234' }, patterned)).message).toContain('argument "code"');
    expect((await problemOf({ n_1: 'one' }, patterned)).message).toContain('argument "n_1"');
  });

  it('a pattern RE2 cannot run (lookaround) is left unchecked, not refused', async () => {
    await validateToolArgs(patterned, { look: 'anything' });
  });
});
