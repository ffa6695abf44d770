import { describe, expect, it } from 'vitest';
import { closestWord, editDistance } from '../../src/text/edit-distance.js';

describe('editDistance', () => {
  it.each<[string, string, number]>([
    ['', '', 0],
    ['', 'abc', 3],
    ['abc', '', 3],
    ['ollama', 'olama', 1],
    ['openia', 'openai', 2],
    ['kitten', 'sitting', 3],
  ])('%j to %j is %d', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('closestWord', () => {
  const words = ['openai', 'ollama', 'local', 'sim'] as const;

  it('maps an alias first, case-insensitively', () => {
    expect(closestWord('GGUF', words, { gguf: 'local' })).toBe('local');
  });

  it('allows about one typo per three letters, at least one', () => {
    expect(closestWord('opena', words)).toBe('openai');
    expect(closestWord('SIM', words)).toBe('sim');
    expect(closestWord('si', words)).toBe('sim');
    expect(closestWord('xyz', words)).toBeUndefined();
  });

  it('ignores names inherited by plain objects', () => {
    expect(closestWord('constructor', words, { gguf: 'local' })).toBeUndefined();
  });
});
