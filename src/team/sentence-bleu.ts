/**
 * Sentence-level BLEU-4 (Papineni et al. 2002) for DyLAN's agreement on open text and code
 * (docs/algorithms.md#answer-agreement).
 *
 * - Tokens: runs of letters/digits/underscore, and every other non-space character on its own, so `x=5;` is
 *   `x`, `=`, `5`, `;`. Case is kept (callers lower-case text when case should not matter).
 * - Modified (clipped) n-gram precisions for n = 1..4, geometric mean with uniform weights.
 * - Effective order (as sacreBLEU's sentence BLEU): orders the candidate has no n-gram of (it is shorter than n)
 *   are left out, so identical short strings score 1 instead of being punished for their length.
 * - Smoothing, Chen & Cherry (2014) method 1: an order with zero matches gets precision ε / count, ε = 0.1,
 *   so one missing 4-gram does not zero the score.
 * - Brevity penalty: 1 when the candidate is longer than the reference, else exp(1 − r/c).
 * Identical token sequences score exactly 1; an empty candidate or reference scores 0 (both empty: 1).
 */

const MAX_ORDER = 4;
const EPSILON = 0.1;

export function bleuTokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
}

export function sentenceBleu(candidate: string, reference: string): number {
  const hyp = bleuTokens(candidate);
  const ref = bleuTokens(reference);
  if (hyp.length === 0 || ref.length === 0) return hyp.length === ref.length ? 1 : 0;
  const order = Math.min(MAX_ORDER, hyp.length);
  let logSum = 0;
  for (let n = 1; n <= order; n++) {
    const hypCounts = ngramCounts(hyp, n);
    const refCounts = ngramCounts(ref, n);
    let matches = 0;
    let total = 0;
    for (const [gram, count] of hypCounts) {
      total += count;
      matches += Math.min(count, refCounts.get(gram) ?? 0);
    }
    logSum += Math.log((matches === 0 ? EPSILON : matches) / total);
  }
  const brevity = hyp.length > ref.length ? 1 : Math.exp(1 - ref.length / hyp.length);
  return brevity * Math.exp(logSum / order);
}

function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let start = 0; start + n <= tokens.length; start++) {
    // U+0001 cannot occur inside a token, so joined grams never collide.
    const gram = tokens.slice(start, start + n).join('\u0001');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}
