/**
 * Edit distance and "did you mean" guesses for misspelt words (spec prefixes, names). A leaf: imports nothing.
 */

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions from a to b. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The candidate a misspelt word most likely meant, or undefined when nothing is close. Case-insensitive; a word
 * listed in `aliases` (lower case) maps to its entry. Otherwise the nearest candidate by edit distance, allowing
 * about one typo per three letters, at least one. Candidates are expected in lower case.
 */
export function closestWord<Word extends string>(
  word: string,
  candidates: readonly Word[],
  aliases: Readonly<Record<string, Word>> = {},
): Word | undefined {
  const lower = word.toLowerCase();
  const alias = Object.hasOwn(aliases, lower) ? aliases[lower] : undefined;
  if (alias !== undefined) return alias;
  let best: Word | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(1, Math.floor((best?.length ?? 0) / 3)) ? best : undefined;
}
