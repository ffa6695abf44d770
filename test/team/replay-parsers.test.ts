/**
 * Answer and rating readings on replies recorded by the DyLAN authors (test/fixtures/dylan-mmlu/excerpts.json,
 * MIT, provenance in the folder's README): their own reading kept exactly, and Weft's reading of the same text.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  edgeWeightsAsDylan,
  extractAnswer,
  extractChoiceAsDylan,
  ratingsAsDylan,
} from '../../src/team/extract-answer.js';
import { readAgentReply } from '../../src/team/llm-agent.js';
import type { TeamQuery } from '../../src/team/team.js';

interface Excerpt {
  readonly name: string;
  readonly excerpt: string;
}
const excerpts: readonly Excerpt[] = JSON.parse(
  readFileSync(new URL('../fixtures/dylan-mmlu/excerpts.json', import.meta.url), 'utf8'),
);
const text = (name: string): string => excerpts.find((e) => e.name === name)!.excerpt;
const choice: TeamQuery = { question: 'q', choices: ['w', 'x', 'y', 'z'], kind: 'choice' };

describe('answers in recorded replies', () => {
  it.each([
    // name, the authors' reading, Weft's reading
    ['answer-is-bracket', 'C', 'C'],
    ['score-lines', 'A', 'A'],
    ['nested-ratings', 'D', 'D'],
    ['answer-to-question', 'A', 'A'],
    ['x-placeholder', 'A', 'A'],
    // "the correct answer is C." with no bracket: the authors read nothing, Weft reads C.
    ['correct-is-letter', '', 'C'],
    // "(N/A)": the authors' `X)` fallback reads the A of N/A; Weft reads no answer.
    ['not-answered', 'A', ''],
  ])('%s: authors %j, Weft %j', (name, authors, weft) => {
    expect(extractChoiceAsDylan(text(name))).toBe(authors);
    expect(extractAnswer(text(name), choice)).toBe(weft);
  });

  it('keeps the authors\' quirks: lower case letters and a bare "d)" count', () => {
    expect(extractChoiceAsDylan('I pick (b) here.')).toBe('B');
    expect(extractChoiceAsDylan('Options a) and d) both fail')).toBe('D');
    expect(extractChoiceAsDylan('No option is right.')).toBe('');
  });

  it("Weft's last-resort `X)` needs a letter standing alone", () => {
    expect(extractAnswer('I cannot say (see Figure 2b) for details.', choice)).toBe('');
    expect(extractAnswer('So: A) the first one.', choice)).toBe('A');
    expect(extractAnswer('Options E) and F) are not offered here.', choice)).toBe('');
  });
});

describe('ratings in recorded replies', () => {
  it('reads "Agent solution k score" lines closed by [[5, 1]] the same way both ways', () => {
    expect(ratingsAsDylan(text('score-lines'))).toEqual([5, 1]);
    const weft = readAgentReply(text('score-lines'), choice, 2);
    expect(weft.ratingsParsed).toBe(true);
    expect(weft.ratings).toEqual([5, 1]);
  });

  it('nested [[5, 5], [5, 5]]: the authors read four items (a count mismatch), Weft the last [[5, 5]]', () => {
    expect(ratingsAsDylan(text('nested-ratings'))).toEqual([5, 0, 0, 5]);
    expect(edgeWeightsAsDylan(ratingsAsDylan(text('nested-ratings')), 2)).toEqual([0.5, 0.5]);
    expect(readAgentReply(text('nested-ratings'), choice, 2).ratings).toEqual([5, 5]);
  });

  it('[[N/A, 4]]: the authors give N/A no weight; Weft cannot read it and falls back to equal weights', () => {
    expect(ratingsAsDylan(text('na-ratings'))).toEqual([0, 4]);
    expect(edgeWeightsAsDylan([0, 4], 2)).toEqual([0, 1]);
    const weft = readAgentReply(text('na-ratings'), choice, 2);
    expect(weft.ratingsParsed).toBe(false);
  });

  it("maps ratings to the authors' edge weights: r/5, above 5 → 1, 0 or less → 0, then normalised", () => {
    const [high, low] = edgeWeightsAsDylan([5, 1], 2);
    expect(high).toBeCloseTo(5 / 6, 12);
    expect(low).toBeCloseTo(1 / 6, 12);
    expect(edgeWeightsAsDylan([9, 5], 2)).toEqual([0.5, 0.5]);
    expect(edgeWeightsAsDylan([0, -2, 0], 3)).toEqual([1 / 3, 1 / 3, 1 / 3]);
    expect(edgeWeightsAsDylan([4], 2)).toEqual([0.5, 0.5]);
    expect(edgeWeightsAsDylan([], 0)).toEqual([]);
    expect(ratingsAsDylan('no scores here')).toEqual([]);
    expect(ratingsAsDylan('[[4.5, 3]]')).toEqual([0, 3]);
  });
});
