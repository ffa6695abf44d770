import { describe, expect, it } from 'vitest';
import { answersAgree, normaliseAnswer } from '../../src/team/answers-agree.js';
import { isConsensus, largestAgreeingGroup, majorityAnswer } from '../../src/team/majority-answer.js';

describe('normaliseAnswer', () => {
  it('reduces choices to their letter', () => {
    expect(['B', 'b', '(B)', 'B.', 'b) Jupiter', ' **B** '].map((a) => normaliseAnswer(a, 'choice'))).toEqual([
      'B',
      'B',
      'B',
      'B',
      'B',
      'B',
    ]);
    expect(normaliseAnswer('I think so', 'choice')).toBe('i think so');
  });

  it('drops case, spacing, surrounding punctuation and number formatting for exact answers', () => {
    expect(normaliseAnswer('  "Paris." ', 'exact')).toBe('paris');
    expect(normaliseAnswer('New   York', 'exact')).toBe('new york');
    expect(['42', '42.0', '+42', '$42', '42.'].map((a) => normaliseAnswer(a, 'exact'))).toEqual([
      '42',
      '42',
      '42',
      '42',
      '42',
    ]);
    expect(normaliseAnswer('1,000.50', 'exact')).toBe('1000.5');
    expect(normaliseAnswer('3.14.15', 'exact')).toBe('3.14.15');
  });

  it('keeps case in code', () => {
    expect(normaliseAnswer('  Return X \n', 'code')).toBe('Return X');
  });
});

describe('answersAgree', () => {
  it('compares choices by letter and exact answers after normalisation', () => {
    expect(answersAgree('(b)', 'B', 'choice')).toBe(true);
    expect(answersAgree('B', 'C', 'choice')).toBe(false);
    expect(answersAgree('42', '42.00', 'exact')).toBe(true);
    expect(answersAgree('Paris', 'paris!', 'exact')).toBe(true);
    expect(answersAgree('Paris', 'Lyon', 'exact')).toBe(false);
  });

  it('strips LaTeX delimiters and wrappers and canonicalises numbers for exact answers', () => {
    expect(answersAgree('\\(42\\)', '42', 'exact')).toBe(true);
    expect(answersAgree('\\[42\\]', '42', 'exact')).toBe(true);
    expect(answersAgree('$42$', '42', 'exact')).toBe(true);
    expect(answersAgree('$$42$$', '42.0', 'exact')).toBe(true);
    expect(answersAgree('**$42$**', '42', 'exact')).toBe(true);
    expect(answersAgree('\\(42\\).', '42', 'exact')).toBe(true);
    expect(answersAgree('\\boxed{\\text{Paris}}', 'Paris', 'exact')).toBe(true);
    expect(answersAgree('\\text{Paris}', 'paris.', 'exact')).toBe(true);
    expect(answersAgree('.5', '0.5', 'exact')).toBe(true);
    expect(answersAgree('0.50', '.5', 'exact')).toBe(true);
    expect(answersAgree('-.5', '-0.5', 'exact')).toBe(true);
    expect(answersAgree('1,000', '1000', 'exact')).toBe(true);
    expect(answersAgree('$\\frac{1}{2}$', '\\frac{1}{2}', 'exact')).toBe(true);
    expect(answersAgree('.5', '5', 'exact')).toBe(false);
    expect(answersAgree('\\(42\\)', '43', 'exact')).toBe(false);
  });

  it('never lets empty answers agree', () => {
    expect(answersAgree('', '', 'exact')).toBe(false);
    expect(answersAgree(' ', 'x', 'text')).toBe(false);
    expect(answersAgree('...', '...', 'exact')).toBe(false);
  });

  it('uses BLEU ≥ 0.9 (mean of both directions) for text and code', () => {
    const words = Array.from({ length: 19 }, (_, i) => `w${i}`).join(' ');
    // 20 tokens, last one differs: BLEU = (16/20)^(1/4) ≈ 0.946 both ways → agree.
    expect(answersAgree(`${words} end`, `${words} stop`, 'text')).toBe(true);
    // 9 tokens, last one differs: (5/9)^(1/4) ≈ 0.863 → disagree.
    expect(
      answersAgree(
        'the quick brown fox jumps over the lazy dog',
        'the quick brown fox jumps over the lazy cat',
        'text',
      ),
    ).toBe(false);
    // Text ignores case; code does not.
    expect(answersAgree('The Answer Is Blue', 'the answer is blue', 'text')).toBe(true);
    // A short text answer and the same with a full stop or quotes: BLEU alone would part them.
    expect(answersAgree('Paris', 'Paris.', 'text')).toBe(true);
    expect(answersAgree('"Paris"', 'paris', 'text')).toBe(true);
    expect(answersAgree('Paris', 'Lyon.', 'text')).toBe(false);
    expect(answersAgree('def F(x): return X', 'def f(x): return x', 'code')).toBe(false);
  });

  it('is symmetric where BLEU is not', () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
    const long = words.join(' ');
    const shorter = words.slice(0, 37).join(' ');
    // one way the brevity penalty applies (exp(1 − 40/37) ≈ 0.922), the other way the precisions drop (≈ 0.99 · 0.98…)
    expect(answersAgree(long, shorter, 'text')).toBe(answersAgree(shorter, long, 'text'));
  });
});

describe('largestAgreeingGroup and isConsensus', () => {
  it('finds the largest class of equal answers, ties to the answer given first', () => {
    expect(largestAgreeingGroup(['B', 'b', 'C', '(B)'], 'choice')).toEqual([0, 1, 3]);
    expect(largestAgreeingGroup(['1', '2', '2', '1'], 'exact')).toEqual([0, 3]);
    expect(largestAgreeingGroup(['2', '1', '1', '2'], 'exact')).toEqual([0, 3]);
    expect(largestAgreeingGroup(['a', 'b', 'c'], 'exact')).toEqual([0]);
    expect(largestAgreeingGroup([], 'exact')).toEqual([]);
  });

  it('finds a clique when BLEU agreement is not transitive', () => {
    // x ~ y and y ~ z but x !~ z: one changed word in 32 costs ≈ 0.916, two cost ≈ 0.829.
    const base = Array.from({ length: 32 }, (_, i) => `w${i}`);
    const y = base.join(' ');
    const x = base.map((w, i) => (i === 5 ? 'p' : w)).join(' ');
    const z = base.map((w, i) => (i === 26 ? 'q' : w)).join(' ');
    expect(answersAgree(x, y, 'text')).toBe(true);
    expect(answersAgree(y, z, 'text')).toBe(true);
    expect(answersAgree(x, z, 'text')).toBe(false);
    expect(largestAgreeingGroup([x, y, z], 'text')).toEqual([0, 1]);
    expect(largestAgreeingGroup([z, x, y], 'text')).toEqual([0, 2]);
  });

  it('needs more than 2/3', () => {
    expect(
      [
        [3, 4],
        [2, 4],
        [2, 2],
        [1, 2],
        [2, 3],
        [3, 3],
        [1, 1],
        [0, 0],
      ].map(([g, n]) => isConsensus(g!, n!)),
    ).toEqual([true, false, true, false, false, true, true, false]);
  });
});

describe('majorityAnswer', () => {
  it("returns the largest group's first answer in input order", () => {
    expect(majorityAnswer([{ answer: 'c' }, { answer: 'B' }, { answer: 'b' }], 'choice')).toEqual({
      answer: 'B',
      members: [1, 2],
      testsPassed: 0,
    });
    expect(majorityAnswer([{ answer: '7' }, { answer: '8' }], 'exact').answer).toBe('7');
    expect(majorityAnswer([], 'exact').answer).toBe('');
  });

  it("lets tests decide for code, lending a tool's result to the code it tested", () => {
    const good = 'def f(x):\n    return x + 1';
    const bad = 'def f(x):\n    return x - 1';
    const majority = majorityAnswer(
      [{ answer: bad }, { answer: bad }, { answer: good }, { answer: good, tests: { passed: 2, total: 2 } }],
      'code',
    );
    expect(majority).toEqual({ answer: good, members: [2, 3], testsPassed: 2 });
    // No test passed: plain majority.
    expect(
      majorityAnswer([{ answer: bad }, { answer: bad }, { answer: good, tests: { passed: 0, total: 2 } }], 'code')
        .answer,
    ).toBe(bad);
  });
});
