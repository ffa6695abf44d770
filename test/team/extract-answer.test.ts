import { describe, expect, it } from 'vitest';
import { cleanAnswer, extractAnswer, unwrapMath } from '../../src/team/extract-answer.js';
import type { TeamQuery } from '../../src/team/team.js';

const exact: TeamQuery = { question: 'q', kind: 'exact' };
const choice: TeamQuery = { question: 'q', choices: ['w', 'x', 'y', 'z'], kind: 'choice' };

describe('extractAnswer: exact answers', () => {
  it('takes the answer statement that comes last in the text, whatever its pattern', () => {
    expect(
      extractAnswer('The question asks for one answer: the area.\nThe area is 12.\nSo the answer is 12.', exact),
    ).toBe('12');
    expect(extractAnswer('We compare the candidate answer: 40 or 42.\nThe answer is 42.', exact)).toBe('42');
    expect(extractAnswer('The answer is 40, I thought.\nFinal answer: 42', exact)).toBe('42');
  });

  it('reads the MATH/Minerva form and strips math delimiters', () => {
    expect(extractAnswer('Final Answer: The final answer is $42$. I hope it is correct.', exact)).toBe('42');
    expect(extractAnswer('Answer: $\\frac{1}{2}$', exact)).toBe('\\frac{1}{2}');
    expect(extractAnswer('Hence the answer is \\(3.5\\).', exact)).toBe('3.5');
    expect(extractAnswer('The answer is 3.5.', exact)).toBe('3.5');
  });

  it('prefers \\boxed{…} when present', () => {
    expect(extractAnswer('Answer: 7\nOn reflection $\\boxed{8}$.', exact)).toBe('8');
    expect(extractAnswer('\\boxed{\\text{Paris}}', exact)).toBe('Paris');
    expect(cleanAnswer('$42$', exact)).toBe('42');
  });
});

describe('extractAnswer: text answers', () => {
  it('takes what follows the last Answer:, not the first', () => {
    expect(extractAnswer('Answer: draft one\nmore thinking\nAnswer: final one', { kind: 'text' })).toBe('final one');
    expect(extractAnswer('Answer: first\n**Answer**: second\nline two', { kind: 'text' })).toBe('second\nline two');
  });
});

describe('extractAnswer: choice answers', () => {
  it('reads bold labels, boxed text and the paper\'s last "(X"', () => {
    expect(extractAnswer('**Answer**: B', choice)).toBe('B');
    expect(extractAnswer('So the answer is \\boxed{\\text{B}}', choice)).toBe('B');
    expect(extractAnswer('I pick (D', choice)).toBe('D');
    expect(extractAnswer('(A) is wrong, so I pick (D.\nDone', choice)).toBe('D');
    // An aside in brackets is not a choice.
    expect(extractAnswer('Hmm (A quick aside) nothing decided yet', choice)).toBe('');
  });
});

describe('unwrapMath', () => {
  it('removes delimiters and wrappers that cover the whole answer, repeatedly', () => {
    expect(['$42$', '$$42$$', '\\(42\\)', '\\[42\\]', '\\boxed{42}', '$\\boxed{\\text{42}}$'].map(unwrapMath)).toEqual([
      '42',
      '42',
      '42',
      '42',
      '42',
      '42',
    ]);
    expect(unwrapMath('$5 and $6')).toBe('$5 and $6');
    expect(unwrapMath('$5$ and $6$')).toBe('$5$ and $6$');
    expect(unwrapMath('12\\text{ cm}')).toBe('12 cm');
    expect(unwrapMath('\\boxed{a}+\\boxed{b}')).toBe('\\boxed{a}+\\boxed{b}');
  });
});
