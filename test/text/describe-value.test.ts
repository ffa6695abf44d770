import { describe, expect, it } from 'vitest';
import { describeTypeMismatch, describeValue, valueAt, withArticle } from '../../src/text/describe-value.js';

describe('describe-value', () => {
  it('finds the value at a path, or undefined', () => {
    const root = { subtasks: [{ id: 'a' }] };
    expect(valueAt(root, ['subtasks', 0, 'id'])).toBe('a');
    expect(valueAt(root, ['subtasks', 1, 'id'])).toBeUndefined();
    expect(valueAt('text', ['length'])).toBeUndefined();
    expect(valueAt(root, [])).toBe(root);
  });

  it('names values and types with their article', () => {
    expect(withArticle('array')).toBe('an array');
    expect(withArticle('string')).toBe('a string');
    expect([null, [], {}, 'x', 1, true, undefined].map(describeValue)).toEqual([
      'null',
      'an array',
      'an object',
      'a string',
      'a number',
      'a boolean',
      'an undefined',
    ]);
  });

  it('says a field is missing, or what was expected and found', () => {
    expect(describeTypeMismatch(undefined, ['subtasks', 0, 'agent'], 'string')).toBe('missing required field "agent"');
    expect(describeTypeMismatch(7, ['task'], 'string')).toBe('expected a string, got a number');
    expect(describeTypeMismatch(null, ['roles'], 'array')).toBe('expected an array, got null');
  });
});
