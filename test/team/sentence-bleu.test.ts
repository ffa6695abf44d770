import { describe, expect, it } from 'vitest';
import { bleuTokens, sentenceBleu } from '../../src/team/sentence-bleu.js';

describe('bleuTokens', () => {
  it('splits words and punctuation', () => {
    expect(bleuTokens('x=5; return f(x)')).toEqual(['x', '=', '5', ';', 'return', 'f', '(', 'x', ')']);
    expect(bleuTokens('  ')).toEqual([]);
  });
});

describe('sentenceBleu', () => {
  it('scores identical strings 1, short ones included', () => {
    expect(sentenceBleu('the cat sat on the mat', 'the cat sat on the mat')).toBe(1);
    expect(sentenceBleu('42', '42')).toBe(1);
    expect(sentenceBleu('B', 'B')).toBe(1);
  });

  it('matches a hand-computed value without penalties', () => {
    // cand "the cat sat on the mat" vs ref "the cat sat on a mat" (6 tokens each, BP = 1):
    //   1-grams: the(2, clipped to 1), cat, sat, on, mat → 5/6     2-grams: the cat, cat sat, sat on → 3/5
    //   3-grams: the cat sat, cat sat on → 2/4                      4-grams: the cat sat on → 1/3
    //   BLEU = (5/6 · 3/5 · 1/2 · 1/3)^(1/4) = (1/12)^(1/4) ≈ 0.537285
    expect(sentenceBleu('the cat sat on the mat', 'the cat sat on a mat')).toBeCloseTo((1 / 12) ** (1 / 4), 12);
    expect(sentenceBleu('the cat sat on the mat', 'the cat sat on a mat')).toBeCloseTo(0.537285, 6);
  });

  it('matches a hand-computed value with smoothing, effective order and brevity penalty', () => {
    // cand "a b c" (3 tokens, so orders 1–3) vs ref "a b d e" (4 tokens):
    //   1-grams a, b → 2/3   2-grams "a b" → 1/2   3-grams none → smoothed 0.1/1
    //   mean = (2/3 · 1/2 · 0.1)^(1/3) = (1/30)^(1/3) ≈ 0.321830; BP = exp(1 − 4/3) ≈ 0.716531
    //   BLEU ≈ 0.230601
    expect(sentenceBleu('a b c', 'a b d e')).toBeCloseTo((1 / 30) ** (1 / 3) * Math.exp(-1 / 3), 12);
    expect(sentenceBleu('a b c', 'a b d e')).toBeCloseTo(0.230601, 6);
  });

  it('is not symmetric: the brevity penalty follows the candidate', () => {
    // Reversed: cand "a b d e" (4 tokens) vs ref "a b c": 2/4, 1/3, 0.1/2, 0.1/1; BP = 1.
    expect(sentenceBleu('a b d e', 'a b c')).toBeCloseTo(((2 / 4) * (1 / 3) * (0.1 / 2) * 0.1) ** (1 / 4), 12);
  });

  it('scores a one-word change at the end of n tokens as ((n − 4)/n)^(1/4)', () => {
    // Every order loses exactly the one n-gram holding the last token: (n−1)/n · (n−2)/(n−1) · … = (n−4)/n.
    expect(
      sentenceBleu('the quick brown fox jumps over the lazy dog', 'the quick brown fox jumps over the lazy cat'),
    ).toBeCloseTo((5 / 9) ** (1 / 4), 12);
  });

  it('gives 0 against an empty string and 1 for two empty strings', () => {
    expect(sentenceBleu('', 'a b')).toBe(0);
    expect(sentenceBleu('a b', '')).toBe(0);
    expect(sentenceBleu('', '  ')).toBe(1);
  });

  it('stays within [0, 1] and is positive when one token matches', () => {
    const value = sentenceBleu('alpha beta gamma delta', 'alpha zeta eta theta');
    expect(value).toBeGreaterThan(0);
    expect(value).toBeLessThan(0.2);
  });
});
