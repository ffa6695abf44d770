/**
 * Out-of-workflow (OOW) moves of simulated users: which user turns leave the procedure's expected flow, of which
 * kind (a category and a subtype of the taxonomy, oow-taxonomy.ts), and the instruction the user model reads.
 *
 * Two ways of choosing, both seeded (so a rerun repeats them):
 * - `per-turn` (Weft's, the default): each user turn after the first (which opens the request: there is no flow to
 *   leave yet) is an OOW move with probability P; its category and then its subtype are drawn uniformly and
 *   independently per turn. The user model reads that one subtype's instruction.
 * - `per-profile` (the FlowAgent authors' code): a profile keeps one category for the whole session (the profile's
 *   place in its file modulo the number of categories), any user turn — the first included — is an OOW move with
 *   probability P, and the user model reads the category with all its subtypes and picks the move itself; the turn
 *   is tagged with the category alone.
 */
import { bernoulli, pick, type RandomSource } from '../llm/seeded-random.js';
import { DEFAULT_OOW_TAXONOMY, type OowCategoryDef, type OowTaxonomy, oowCategoryId, oowId } from './oow-taxonomy.js';
import type { OowTag } from './session-events.js';

export const OOW_ASSIGNMENTS = ['per-turn', 'per-profile'] as const;
export type OowAssignment = (typeof OOW_ASSIGNMENTS)[number];

/** The tag as written in reports and reference sessions: `category/subtype`, or `category` alone. */
export function oowLabel(tag: OowTag): string {
  return tag.subtype === undefined ? tag.category : `${tag.category}/${tag.subtype}`;
}

/** The category of a taxonomy a tag names, if any. */
export function oowCategoryOf(tag: OowTag, taxonomy: OowTaxonomy = DEFAULT_OOW_TAXONOMY): OowCategoryDef | undefined {
  return taxonomy.categories.find((category) => category.id === tag.category);
}

/** The instruction a user model reads for a tag. */
export function oowInstruction(tag: OowTag, taxonomy: OowTaxonomy = DEFAULT_OOW_TAXONOMY): string {
  const category = oowCategoryOf(tag, taxonomy);
  if (tag.subtype !== undefined) {
    const subtype = category?.subtypes.find((candidate) => candidate.id === tag.subtype);
    return subtype?.instruction ?? `In this message, make an out-of-workflow move of the kind "${oowLabel(tag)}".`;
  }
  if (!category) return `In this message, make an out-of-workflow move of the kind "${tag.category}".`;
  const kinds = category.subtypes.map((kind) => `- ${kind.name}${kind.description ? `: ${kind.description}` : ''}`);
  return [
    `In this message, leave the expected flow of the conversation in a way of this kind — ${category.name}${category.description ? `: ${category.description}` : ''}`,
    'Pick one of these moves:',
    ...kinds,
  ].join('\n');
}

/**
 * Whether this user turn is an out-of-workflow one (probability `probability`), and which: a category, then one
 * of its subtypes, uniformly. Always draws three numbers, so one turn's outcome does not shift the next turn's.
 */
export function drawOow(
  random: RandomSource,
  probability: number,
  taxonomy: OowTaxonomy = DEFAULT_OOW_TAXONOMY,
): OowTag | undefined {
  const inject = bernoulli(random, probability);
  const category = pick(random, taxonomy.categories);
  const subtype = pick(random, category.subtypes);
  return inject ? { category: category.id, subtype: subtype.id } : undefined;
}

export interface OowTurnPlan {
  readonly probability: number;
  readonly taxonomy?: OowTaxonomy;
  readonly assignment?: OowAssignment;
  /** The profile's place in its file, from 0 (per-profile assignment). */
  readonly profileIndex: number;
  /** The user turn, from 1. */
  readonly turn: number;
}

/** This turn's out-of-workflow move under either assignment (see the head of this file), or none. */
export function drawOowTurn(random: RandomSource, plan: OowTurnPlan): OowTag | undefined {
  const taxonomy = plan.taxonomy ?? DEFAULT_OOW_TAXONOMY;
  if (plan.assignment === 'per-profile') {
    const inject = bernoulli(random, plan.probability);
    const category = taxonomy.categories[plan.profileIndex % taxonomy.categories.length];
    return inject && category ? { category: category.id } : undefined;
  }
  // Drawn on the first turn too, so turn n's draw is the same whatever happened before it.
  const drawn = drawOow(random, plan.probability, taxonomy);
  return plan.turn === 1 ? undefined : drawn;
}

/**
 * Reads `category/subtype` or `category` (reference sessions), ids as a taxonomy makes them (`Detail Switching` →
 * `detail_switching`; the authors' category names as the paper's ids). Undefined when it names nothing.
 */
export function parseOowLabel(label: string): OowTag | undefined {
  const [category, subtype, ...rest] = label.split('/');
  if (rest.length > 0 || category === undefined) return undefined;
  const categoryId = oowCategoryId(category);
  if (categoryId === '') return undefined;
  if (subtype === undefined) return { category: categoryId };
  const subtypeId = oowId(subtype);
  return subtypeId === '' ? undefined : { category: categoryId, subtype: subtypeId };
}
