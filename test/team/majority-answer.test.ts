import { describe, expect, it } from 'vitest';
import { answersAgree, isNoAnswer } from '../../src/team/answers-agree.js';
import { largestAgreeingGroup, largestAgreeingGroups, majorityAnswer } from '../../src/team/majority-answer.js';

describe('majorityAnswer: no answer never wins', () => {
  it('prefers a given answer to an empty one when the groups tie', () => {
    expect(majorityAnswer([{ answer: '' }, { answer: 'B' }], 'choice')).toEqual({
      answer: 'B',
      members: [1],
      testsPassed: 0,
    });
    expect(majorityAnswer([{ answer: '' }, { answer: 'B' }, { answer: 'C' }], 'choice').answer).toBe('B');
    expect(majorityAnswer([{ answer: '  ' }, { answer: '42' }], 'exact').answer).toBe('42');
    expect(majorityAnswer([{ answer: '' }, { answer: 'some text' }], 'text').answer).toBe('some text');
    expect(largestAgreeingGroup(['', 'B'], 'choice')).toEqual([1]);
    expect(largestAgreeingGroup(['**', '', 'C'], 'choice')).toEqual([2]);
  });

  it('still answers "" when nobody answered, with the first node alone and no tie', () => {
    expect(majorityAnswer([{ answer: '' }, { answer: '' }], 'exact')).toEqual({
      answer: '',
      members: [0],
      testsPassed: 0,
    });
    expect(largestAgreeingGroup(['', ''], 'exact')).toEqual([0]);
    expect(largestAgreeingGroups([], 'exact')).toEqual([]);
  });

  it('treats blank and punctuation-only answers as no answer', () => {
    expect([' ', '...', '**'].map((a) => isNoAnswer(a, 'exact'))).toEqual([true, true, true]);
    expect(isNoAnswer('0', 'exact')).toBe(false);
  });
});

describe('majorityAnswer: ties', () => {
  it('reports the tied answers, the winner first, and only when there is a tie', () => {
    expect(majorityAnswer([{ answer: '7' }, { answer: '8' }], 'exact').tie).toEqual(['7', '8']);
    expect(majorityAnswer([{ answer: 'A' }, { answer: 'b' }, { answer: 'B' }, { answer: 'a' }], 'choice')).toEqual({
      answer: 'A',
      members: [0, 3],
      testsPassed: 0,
      tie: ['A', 'b'],
    });
    expect(majorityAnswer([{ answer: '' }, { answer: 'B' }, { answer: 'C' }], 'choice').tie).toEqual(['B', 'C']);
    // An answer against no answer is not a tie.
    expect(majorityAnswer([{ answer: '' }, { answer: 'B' }], 'choice').tie).toBeUndefined();
    expect(majorityAnswer([{ answer: 'B' }, { answer: 'b' }, { answer: 'C' }], 'choice').tie).toBeUndefined();
  });

  it('is no tie when overlapping BLEU groups share the winning answer', () => {
    const base = Array.from({ length: 32 }, (_, i) => `w${i}`);
    const y = base.join(' ');
    const x = base.map((w, i) => (i === 5 ? 'p' : w)).join(' ');
    const z = base.map((w, i) => (i === 26 ? 'q' : w)).join(' ');
    expect(answersAgree(x, z, 'text')).toBe(false);
    // y agrees with both: the groups {y, x} and {y, z} both give y's answer.
    expect(largestAgreeingGroups([y, x, z], 'text')).toEqual([
      [0, 1],
      [0, 2],
    ]);
    expect(majorityAnswer([{ answer: y }, { answer: x }, { answer: z }], 'text')).toEqual({
      answer: y,
      members: [0, 1],
      testsPassed: 0,
    });
    // x first: {x, y} and {y, z} give different answers.
    expect(majorityAnswer([{ answer: x }, { answer: y }, { answer: z }], 'text').tie).toEqual([x, y]);
  });
});
