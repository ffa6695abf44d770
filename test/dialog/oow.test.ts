import { describe, expect, it } from 'vitest';
import { formatError } from '../../src/errors.js';
import { thrownError } from './thrown-error.js';
import { drawOow, drawOowTurn, oowInstruction, oowLabel, parseOowLabel } from '../../src/dialog/oow.js';
import { DEFAULT_OOW_TAXONOMY, oowCategoryId, parseOowTaxonomy } from '../../src/dialog/oow-taxonomy.js';
import { OOW_CATEGORIES, type OowTag } from '../../src/dialog/session-events.js';
import { randomFrom } from '../../src/llm/seeded-random.js';

function draws(seed: number, key: string, probability: number, n: number): (OowTag | undefined)[] {
  const random = randomFrom(seed, 'oow', key);
  return Array.from({ length: n }, () => drawOow(random, probability));
}

describe('the built-in taxonomy', () => {
  it('has the paper three categories with 17 subtypes, each with its own instruction', () => {
    expect(DEFAULT_OOW_TAXONOMY.categories.map((category) => category.id)).toEqual([...OOW_CATEGORIES]);
    expect(DEFAULT_OOW_TAXONOMY.categories.map((category) => category.subtypes.length)).toEqual([5, 6, 6]);
    const instructions = new Set<string>();
    for (const category of DEFAULT_OOW_TAXONOMY.categories)
      for (const subtype of category.subtypes) {
        const tag = { category: category.id, subtype: subtype.id };
        expect(parseOowLabel(oowLabel(tag))).toEqual(tag);
        const instruction = oowInstruction(tag);
        expect(instruction).toMatch(/^In this message, /);
        instructions.add(instruction);
      }
    expect(instructions.size).toBe(17);
  });
});

describe('drawOow (per turn, Weft)', () => {
  it('injects at the given rate, with categories and then subtypes uniform (fixed seed)', () => {
    const n = 60_000;
    const tags = draws(7, 'p1#1', 0.2, n).filter((tag): tag is OowTag => tag !== undefined);
    // 0.2 ± 4 standard deviations (sd = sqrt(0.2 · 0.8 / n) ≈ 0.0016)
    expect(Math.abs(tags.length / n - 0.2)).toBeLessThan(0.0066);
    for (const category of DEFAULT_OOW_TAXONOMY.categories) {
      const ofCategory = tags.filter((tag) => tag.category === category.id);
      // a third ± 4 sd of ~12,000 draws (sd ≈ 0.0043)
      expect(Math.abs(ofCategory.length / tags.length - 1 / 3)).toBeLessThan(0.018);
      const share = 1 / category.subtypes.length;
      for (const subtype of category.subtypes) {
        const seen = ofCategory.filter((tag) => tag.subtype === subtype.id).length / ofCategory.length;
        // each of 5 or 6 subtypes of ~4,000 draws: sd ≤ 0.0063
        expect(Math.abs(seen - share)).toBeLessThan(0.026);
      }
    }
  });

  it('is reproducible per seed and key, and differs between sessions (not one category per profile)', () => {
    expect(draws(7, 'p1#1', 0.5, 50)).toEqual(draws(7, 'p1#1', 0.5, 50));
    expect(draws(7, 'p1#1', 0.5, 50)).not.toEqual(draws(7, 'p1#2', 0.5, 50));
    expect(draws(8, 'p1#1', 0.5, 50)).not.toEqual(draws(7, 'p1#1', 0.5, 50));
    const categories = new Set(draws(7, 'p1#1', 1, 50).map((tag) => tag!.category));
    expect(categories.size).toBe(3);
  });

  it('never injects at 0, always at 1', () => {
    expect(draws(1, 'a', 0, 1000).every((tag) => tag === undefined)).toBe(true);
    expect(draws(1, 'a', 1, 1000).every((tag) => tag !== undefined)).toBe(true);
  });
});

describe('drawOowTurn', () => {
  it('per turn: never the first turn, the same later draws as drawOow', () => {
    const plan = { probability: 1, profileIndex: 0 };
    const a = randomFrom(3, 'oow', 'x');
    const b = randomFrom(3, 'oow', 'x');
    const turns = [1, 2, 3, 4].map((turn) => drawOowTurn(a, { ...plan, turn }));
    const direct = [1, 2, 3, 4].map(() => drawOow(b, 1));
    expect(turns[0]).toBeUndefined();
    expect(turns.slice(1)).toEqual(direct.slice(1));
  });

  it("per profile (the authors' code): the category is the profile's index mod 3, on any turn, with no subtype", () => {
    const random = randomFrom(1, 'oow', 'y');
    for (const profileIndex of [0, 1, 2, 3, 4, 5]) {
      const tag = drawOowTurn(random, { probability: 1, profileIndex, turn: 1, assignment: 'per-profile' });
      expect(tag).toEqual({ category: OOW_CATEGORIES[profileIndex % 3] });
    }
    const none = drawOowTurn(random, { probability: 0, profileIndex: 0, turn: 2, assignment: 'per-profile' });
    expect(none).toBeUndefined();
    // The user model reads the category with every one of its subtypes to pick from.
    const instruction = oowInstruction({ category: 'procedure_jumping' });
    expect(instruction).toContain('Procedure jumping');
    for (const subtype of DEFAULT_OOW_TAXONOMY.categories[1]!.subtypes) expect(instruction).toContain(subtype.name);
  });
});

describe('labels', () => {
  it('reads category/subtype or a category alone, ids as a taxonomy makes them', () => {
    expect(parseOowLabel('intent_switching')).toEqual({ category: 'intent_switching' });
    expect(parseOowLabel('intent_switching/detail-switching')).toEqual({
      category: 'intent_switching',
      subtype: 'detail_switching',
    });
    // The authors' category names are read as the paper's ids.
    expect(parseOowLabel('Answering Irrelevantly/Vague Answer')).toEqual({
      category: 'irrelevant_answering',
      subtype: 'vague_answer',
    });
    expect(oowCategoryId('Process Jumping')).toBe('procedure_jumping');
    expect(parseOowLabel('a/b/c')).toBeUndefined();
    expect(parseOowLabel('/x')).toBeUndefined();
    expect(parseOowLabel('')).toBeUndefined();
  });
});

describe('parseOowTaxonomy', () => {
  it("reads a file of the authors' shape: ids from names, the paper's ids for their category names", () => {
    const text = [
      '- name: Intent Switching',
      '  description: Changing the request.',
      '  types:',
      '    - name: Detail Switching',
      '      description: Changing a detail.',
      '- name: Answering Irrelevantly',
      '  description: Not answering.',
      '  types:',
      '    - name: Topic Shift',
      '      description: Another topic.',
      '    - name: Counterquestion',
      '      description: A question back.',
    ].join('\n');
    const taxonomy = parseOowTaxonomy(text, 'oow.yaml');
    expect(taxonomy.source).toBe('oow.yaml');
    expect(taxonomy.categories.map((c) => [c.id, c.subtypes.map((s) => s.id)])).toEqual([
      ['intent_switching', ['detail_switching']],
      ['irrelevant_answering', ['topic_shift', 'counterquestion']],
    ]);
    expect(oowInstruction({ category: 'irrelevant_answering', subtype: 'topic_shift' }, taxonomy)).toBe(
      'In this message, make this kind of move: Topic Shift (Another topic). Keep it short and in character.',
    );
  });

  it('locates every problem at once', () => {
    const text = [
      '- name: Intent Switching', // 1
      '  descripton: x', // 2
      '  types: []', // 3
      '- name: intent switching', // 4
      '  types:', // 5
      '    - name: A', // 6
      '    - name: a', // 7
      '    - 3', // 8
      '- just text', // 9
    ].join('\n');
    expect(formatError(thrownError(() => parseOowTaxonomy(text, 'bad.yaml')))).toBe(
      [
        'bad.yaml: invalid OOW taxonomy file: 6 problems',
        '  - bad.yaml:2:3 [0].descripton: unknown key "descripton" (did you mean "description"?); allowed: name, description, types',
        '  - bad.yaml:3:3 [0].types: expected a non-empty list of subtypes ({name, description}), got an array',
        '  - bad.yaml:4:3 [1].name: category "intent switching" has the id "intent_switching" of category [0]',
        '  - bad.yaml:7:7 [1].types[1].name: subtype "a" has the id "a" of subtype [0]',
        '  - bad.yaml:8:7 [1].types[2]: expected a subtype ({name, description}), got a number',
        '  - bad.yaml:9:3 [2]: expected a category ({name, description, types}), got a string',
      ].join('\n'),
    );
    expect(() => parseOowTaxonomy('{}', 'x.yaml')).toThrow(/a list of categories/);
  });
});
