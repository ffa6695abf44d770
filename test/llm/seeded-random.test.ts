import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bernoulli,
  hashString,
  integerSample,
  lognormalSample,
  mulberry32,
  normalSample,
  randomFrom,
  seedFrom,
  shuffled,
} from '../../src/llm/seeded-random.js';
import { addUsage, estimateTokens, estimateUsage, promptText } from '../../src/llm/token-estimate.js';

describe('seeded randomness', () => {
  it('mulberry32 is deterministic and in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    for (let i = 0; i < 1000; i++) {
      const x = a();
      expect(x).toBe(b());
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
    expect(mulberry32(1)()).not.toBe(mulberry32(2)());
  });

  it('seedFrom separates parts unambiguously', () => {
    expect(seedFrom('a', 'bc')).not.toBe(seedFrom('ab', 'c'));
    expect(seedFrom(1, 'x')).not.toBe(seedFrom('1', 'x'));
    expect(seedFrom(undefined)).not.toBe(seedFrom('undefined'));
    expect(seedFrom(7, 'plan', 'k', 1)).toBe(seedFrom(7, 'plan', 'k', 1));
    expect(hashString('abc')).toBe(hashString('abc'));
  });

  it('samples have the expected shape', () => {
    const random = randomFrom('stats');
    const normals = Array.from({ length: 20_000 }, () => normalSample(random));
    const mean = normals.reduce((sum, x) => sum + x, 0) / normals.length;
    const variance = normals.reduce((sum, x) => sum + (x - mean) ** 2, 0) / normals.length;
    expect(Math.abs(mean)).toBeLessThan(0.05);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
    const logs = Array.from({ length: 20_001 }, () => lognormalSample(random, 3, 0.5)).sort((x, y) => x - y);
    expect(logs[10_000]! / Math.exp(3)).toBeGreaterThan(0.95);
    expect(logs[10_000]! / Math.exp(3)).toBeLessThan(1.05);
    expect(bernoulli(random, 0)).toBe(false);
    expect(bernoulli(random, 1)).toBe(true);
  });

  it('integerSample stays in range and shuffled is a permutation', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: -50, max: 50 }),
        fc.integer({ min: 0, max: 50 }),
        (seed, min, span) => {
          const random = mulberry32(seed);
          const value = integerSample(random, min, min + span);
          expect(value).toBeGreaterThanOrEqual(min);
          expect(value).toBeLessThanOrEqual(min + span);
          const items = Array.from({ length: span }, (_, i) => i);
          expect([...shuffled(random, items)].sort((x, y) => x - y)).toEqual(items);
        },
      ),
    );
  });
});

describe('token estimates', () => {
  it('counts four characters a token, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
  });

  it('joins system and messages with newlines', () => {
    const call = {
      system: 'S',
      messages: [
        { role: 'user' as const, content: 'U' },
        { role: 'assistant' as const, content: 'A' },
      ],
    };
    expect(promptText(call)).toBe('S\nU\nA');
    expect(promptText({ messages: [{ role: 'user', content: 'only' }] })).toBe('only');
    expect(estimateUsage(call, 'reply!')).toEqual({ inputTokens: 2, outputTokens: 2 });
    expect(addUsage({ inputTokens: 1, outputTokens: 2 }, { inputTokens: 3, outputTokens: 4 })).toEqual({
      inputTokens: 4,
      outputTokens: 6,
    });
  });
});
