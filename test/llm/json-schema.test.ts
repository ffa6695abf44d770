import { describe, expect, it } from 'vitest';
import { toGrammarSubset } from '../../src/llm/json-schema.js';

describe('toGrammarSubset', () => {
  it('rewrites anyOf as oneOf at every depth and drops $schema, leaving the input untouched', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        value: {
          anyOf: [{ type: 'string' }, { type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'null' }] } }],
        },
      },
    };
    const before = JSON.stringify(schema);
    expect(toGrammarSubset(schema)).toEqual({
      type: 'object',
      properties: {
        value: {
          oneOf: [{ type: 'string' }, { type: 'array', items: { oneOf: [{ type: 'number' }, { type: 'null' }] } }],
        },
      },
    });
    expect(JSON.stringify(schema)).toBe(before);
  });
});
