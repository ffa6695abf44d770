import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAbortError } from '../../src/errors.js';
import { createLexicalSimilarity, LEXICAL_SIMILARITY_NAME } from '../../src/eval/lexical-similarity.js';
import { parseWorkflowText } from '../../src/eval/parse-workflow-text.js';
import { goldSets, loadGoldAnswers } from './gold-path.js';

describe('createLexicalSimilarity', () => {
  const plain = createLexicalSimilarity();

  it('says it is the lexical offline fallback', () => {
    expect(plain.kind).toBe('lexical');
    expect(plain.name).toBe(LEXICAL_SIMILARITY_NAME);
    expect(plain.name).toMatch(/^lexical \(TF-IDF/);
    expect(plain.name).toContain('offline fallback');
    expect(plain.name).toContain('not comparable');
  });

  it('gives exactly 1 for texts equal up to case, width and whitespace', () => {
    expect(plain.similarity('Go to  fridge 1', ' go to fridge 1\n')).toBe(1);
    expect(plain.similarity('ＧＯ to fridge', 'go TO fridge')).toBe(1);
    expect(plain.similarity('', '  ')).toBe(1);
  });

  it('gives exactly 0 for texts with no word or word piece in common', () => {
    expect(plain.similarity('go to fridge 1', 'open drawer 3')).toBe(0);
    expect(plain.similarity('!!!', 'go to fridge 1')).toBe(0);
    expect(plain.similarity('!!!', '???')).toBe(0);
    expect(plain.similarity('', 'go')).toBe(0);
  });

  it('ignores punctuation, up to rounding', () => {
    const value = plain.similarity('Go to fridge 1.', 'go to fridge, 1');
    expect(value).toBeLessThanOrEqual(1);
    expect(value).toBeGreaterThan(1 - 1e-12);
  });

  it('averages a word cosine and a character cosine (hand-computed)', () => {
    // Same words in another order: unigrams {red, apple} match, the bigrams differ, the character grams are the
    // same. Word cosine 2/3, character cosine 1.
    expect(plain.similarity('red apple', 'apple red')).toBeCloseTo(0.5 * (2 / 3) + 0.5, 12);
    // No shared word; " cat " has 6 grams, " cats " 9, and they share " ca", "cat", " cat".
    expect(plain.similarity('cat', 'cats')).toBeCloseTo(0.5 * (3 / Math.sqrt(6 * 9)), 12);
    // Sublinear tf: "go" 3 times and "go go" twice against "go" once; the character grams stay proportional.
    const go = 1 + Math.log(3);
    const goGo = 1 + Math.log(2);
    expect(plain.similarity('go go go', 'go')).toBeCloseTo(0.5 * (go / Math.hypot(go, goGo)) + 0.5, 12);
  });

  it('ranks near paraphrases above unrelated steps', () => {
    const close = plain.similarity('go to fridge 1', 'go to fridge 2');
    const far = plain.similarity('go to fridge 1', 'go to countertop 2');
    expect(close).toBeGreaterThan(0.6);
    expect(far).toBeLessThan(close);
    // Word pieces count: no whole word is shared, yet the stems are.
    expect(plain.similarity('searching flights', 'searched flight')).toBeGreaterThan(0.2);
  });

  it('is symmetric (exactly), in [0, 1] and 1 on the diagonal, with or without a corpus', () => {
    const fitted = createLexicalSimilarity({ corpus: ['open the door', 'close the window', 'the mug', 'αβγ δ'] });
    for (const similarity of [plain, fitted]) {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ maxLength: 30 }), (a, b) => {
          const ab = similarity.similarity(a, b);
          expect(ab).toBe(similarity.similarity(b, a));
          expect(ab).toBeGreaterThanOrEqual(0);
          expect(ab).toBeLessThanOrEqual(1);
          expect(similarity.similarity(a, a)).toBe(1);
        }),
        { numRuns: 300 },
      );
    }
  });

  it('reads letters outside the Basic Multilingual Plane (Gothic) as letters', () => {
    expect(plain.similarity('𐌰𐌱𐌲', '𐌰𐌱𐌲𐌳')).toBeGreaterThan(0.2);
    expect(plain.similarity('𐌰𐌱𐌲', '𐌳𐌴𐌵')).toBe(0);
  });

  it('weights words by the idf fitted on the corpus', () => {
    // "the" is in every corpus text, so sharing it counts for less once the idf is fitted.
    const corpus = ['open the door', 'close the window', 'take the mug', 'put the mug in the sink'];
    const fitted = createLexicalSimilarity({ corpus });
    const a = 'open the door';
    const b = 'close the window';
    expect(fitted.similarity(a, b)).toBeGreaterThan(0);
    expect(fitted.similarity(a, b)).toBeLessThan(plain.similarity(a, b));
    // Sharing a rare word ("mug" is in 2 of 4 texts, "the" in 4) counts for more than sharing a common one.
    expect(fitted.similarity('the mug', 'a mug')).toBeGreaterThan(fitted.similarity('the mug', 'the cup'));
  });

  it('fills the matrix [row][column] with the pairwise similarities', async () => {
    const rows = ['go to fridge 1', 'open fridge 1', 'take apple'];
    const columns = ['Open fridge 1', 'go to cabinet 2'];
    const matrix = await plain.matrix(rows, columns);
    expect(matrix).toHaveLength(3);
    for (const [i, row] of rows.entries()) {
      expect(matrix[i]).toHaveLength(2);
      for (const [j, column] of columns.entries()) expect(matrix[i]?.[j]).toBe(plain.similarity(row, column));
    }
    expect(matrix[1]?.[0]).toBe(1);
    expect(await plain.matrix([], columns)).toEqual([]);
    expect(await plain.matrix(rows, [])).toEqual([[], [], []]);
  });

  it('rejects with ABORTED when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error: unknown = await plain.matrix(['a'], ['b'], controller.signal).catch((caught: unknown) => caught);
    expect(isAbortError(error)).toBe(true);
  });
});

// Its speed on all 1,746 records is measured by `npm run bench -- worfeval`, not asserted here.
describe.each(goldSets())('lexical similarity on the WorfBench gold data ($name)', (set) => {
  const workflows: string[][] = [];
  for (const record of loadGoldAnswers(set.dir)) {
    const parsed = parseWorkflowText(record.answer);
    if (parsed.ok) workflows.push([...parsed.workflow.nodes]);
  }
  const corpus = workflows.flat();

  it('fits the idf on every gold node text and scores every gold workflow against a perturbed copy', async () => {
    expect(workflows).toHaveLength(set.records);
    const similarity = createLexicalSimilarity({ corpus });
    for (const [index, nodes] of workflows.entries()) {
      // Every text new to the similarity (so nothing is cached), relisted backwards.
      const perturbed = nodes
        .map((node, position) =>
          position % 2 === 0
            ? ` ${node.replace(/ /g, '  ').toUpperCase()}`
            : `${node.split(' ').slice(0, -1).join(' ')} ${index}`,
        )
        .reverse();
      const matrix = await similarity.matrix(nodes, perturbed);
      // Node 1, upper-cased and spaced out, is now last (unless it has a letter whose case does not round-trip).
      if (nodes[0]?.toUpperCase().toLowerCase() === nodes[0]?.toLowerCase())
        expect(matrix[0]?.[nodes.length - 1]).toBe(1);
    }
  });

  it('gives 1 on the diagonal of every gold workflow against itself', async () => {
    const similarity = createLexicalSimilarity({ corpus });
    for (const nodes of workflows) {
      const matrix = await similarity.matrix(nodes, nodes);
      nodes.forEach((_, index) => expect(matrix[index]?.[index]).toBe(1));
    }
  });
});
