import { describe, expect, it } from 'vitest';
import { drawOow, OOW_SUBTYPES, oowInstruction, oowLabel, parseOowLabel } from '../../src/dialog/oow.js';
import { OOW_CATEGORIES, type OowTag } from '../../src/dialog/session-events.js';
import { randomFrom } from '../../src/llm/seeded-random.js';

function draws(seed: number, key: string, probability: number, n: number): (OowTag | undefined)[] {
  const random = randomFrom(seed, 'oow', key);
  return Array.from({ length: n }, () => drawOow(random, probability));
}

describe('drawOow', () => {
  it('injects at the given rate, with categories and subtypes uniform (fixed seed)', () => {
    const n = 30_000;
    const tags = draws(7, 'p1#1', 0.2, n).filter((tag): tag is OowTag => tag !== undefined);
    // 0.2 ± 4 standard deviations (sd = sqrt(0.2 · 0.8 / n) ≈ 0.0023)
    expect(tags.length / n).toBeGreaterThan(0.2 - 0.0093);
    expect(tags.length / n).toBeLessThan(0.2 + 0.0093);
    for (const category of OOW_CATEGORIES) {
      const ofCategory = tags.filter((tag) => tag.category === category);
      // a third ± 4 sd of ~6,000 draws (sd ≈ 0.0061)
      expect(Math.abs(ofCategory.length / tags.length - 1 / 3)).toBeLessThan(0.025);
      for (const subtype of OOW_SUBTYPES[category]) {
        const share = ofCategory.filter((tag) => tag.subtype === subtype).length / ofCategory.length;
        expect(Math.abs(share - 0.5)).toBeLessThan(0.05);
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

describe('labels and instructions', () => {
  it('every subtype has an instruction of its own, and labels round-trip', () => {
    const instructions = new Set<string>();
    for (const category of OOW_CATEGORIES)
      for (const subtype of OOW_SUBTYPES[category]) {
        const tag = { category, subtype };
        expect(parseOowLabel(oowLabel(tag))).toEqual(tag);
        const instruction = oowInstruction(tag);
        expect(instruction).not.toContain('Make an out-of-workflow move');
        instructions.add(instruction);
      }
    expect(instructions.size).toBe(6);
    expect(parseOowLabel('intent_switching')).toBeUndefined();
    expect(parseOowLabel('shouting/loud')).toBeUndefined();
    expect(parseOowLabel('procedure_jumping/other_dataset_kind')).toEqual({
      category: 'procedure_jumping',
      subtype: 'other_dataset_kind',
    });
  });
});
