/**
 * The deterministic, offline default similarity: TF-IDF over word n-grams and character n-grams, compared by
 * cosine. It needs no model and no network, so `weft eval` works anywhere, but its scores are NOT comparable to
 * the paper's Sentence-BERT ones: it sees shared words and word pieces, not meaning ("fetch the mug" and "grab
 * the cup" score low). Its name says so in every report.
 *
 * Hand-written because no small, maintained npm package does this on Node 20: `natural` is large and has neither
 * sublinear tf nor word-bounded character n-grams; `tiny-tfidf` and the like are word-only.
 *
 * Features, per text (lowercased, NFKC, split at anything that is not a letter or digit; numbers are kept since
 * "fridge 1" and "fridge 2" are different places):
 * - the word block: word unigrams and bigrams;
 * - the character block: character 3- to 5-grams inside each word padded with a space on both sides, as
 *   scikit-learn's `char_wb` does, so "search" and "searching" or "flight" and "flights" share most grams.
 * Weights are sublinear tf (1 + ln tf) times idf, with the smoothed idf ln((1 + N) / (1 + df)) + 1 fitted on
 * `corpus` (N texts), or idf = 1 without a corpus.
 *
 * Each n-gram is identified by a 52-bit hash of its characters rather than by a string in a dictionary: looking
 * strings up in a dictionary of every n-gram seen was most of the run time. WorfBench's gold node texts have
 * about 69,000 distinct n-grams, so the odds that any two share a hash are about 1 in 2 million, and such a
 * collision would only add a sliver of weight.
 *
 * Each block is L2-normalised on its own and weighted √0.5, so the whole vector has length 1 and the cosine is
 * the mean of the word cosine and the character cosine. Normalising the blocks separately matters: a text has
 * several times more character grams than words, and one concatenated normalisation would let the character
 * block drown out word order (bigrams) and whole-word matches. Equal weights because neither signal is the
 * better one on its own: words miss inflections and typos, character grams miss word order.
 */
import { throwIfAborted } from '../llm/timeout.js';
import type { Similarity } from './similarity.js';

export interface LexicalSimilarityOptions {
  /** Texts to fit the idf on, e.g. every gold node text; duplicates count. Without it, idf = 1. */
  readonly corpus?: readonly string[];
}

export interface LexicalSimilarity extends Similarity {
  readonly kind: 'lexical';
  /** The similarity of two texts in [0, 1]: 1 for texts equal up to case and whitespace, 0 when nothing is shared. */
  similarity(a: string, b: string): number;
}

export const LEXICAL_SIMILARITY_NAME =
  "lexical (TF-IDF word+char n-grams, offline fallback; not comparable to the paper's Sentence-BERT scores)";

const MIN_CHAR_GRAM = 3;
const MAX_CHAR_GRAM = 5;
const BLOCK_WEIGHT = Math.SQRT1_2; // √0.5 per block: both blocks together have length 1.
const WORD = /[\p{L}\p{N}]+/gu;
const SPACE = 32;
// Hash seeds keep a unigram, a bigram and a character gram with the same characters apart.
const UNIGRAM_SEED = 1;
const BIGRAM_SEED = 2;
const CHAR_GRAM_SEED = 3;

/** One block of a text's features: distinct n-gram hashes in ascending order, with a count or weight each. */
interface Block {
  readonly hashes: Float64Array;
  readonly values: Float64Array;
}

interface Features {
  readonly words: Block;
  readonly chars: Block;
}

/** A text's TF-IDF vector, its blocks already weighted and normalised. */
interface Vector extends Features {
  /** The normalised text: two texts with the same key are equal up to case and whitespace. */
  readonly key: string;
}

type Idf = { readonly [B in keyof Features]: (hash: number) => number };

export function createLexicalSimilarity(options: LexicalSimilarityOptions = {}): LexicalSimilarity {
  const fitted = options.corpus ? fitIdf(options.corpus) : undefined;
  // Features counted while fitting, used once to build their text's vector and then dropped.
  const fittedFeatures = fitted?.features;
  const byText = new Map<string, Vector>();
  const byKey = new Map<string, Vector>();

  function vectorOf(text: string): Vector {
    const cached = byText.get(text);
    if (cached) return cached;
    const key = normalizeText(text);
    let vector = byKey.get(key);
    if (!vector) {
      const features = fittedFeatures?.get(key) ?? featuresOf(key);
      fittedFeatures?.delete(key);
      vector = {
        key,
        words: weighBlock(features.words, fitted?.idf.words),
        chars: weighBlock(features.chars, fitted?.idf.chars),
      };
      byKey.set(key, vector);
    }
    byText.set(text, vector);
    return vector;
  }

  function similarity(a: string, b: string): number {
    return vectorSimilarity(vectorOf(a), vectorOf(b));
  }

  return {
    name: LEXICAL_SIMILARITY_NAME,
    kind: 'lexical',
    similarity,
    async matrix(rows, columns, signal) {
      throwIfAborted(signal);
      const rowVectors = rows.map(vectorOf);
      const columnVectors = columns.map(vectorOf);
      return rowVectors.map((row) => columnVectors.map((column) => vectorSimilarity(row, column)));
    },
  };
}

/** Lowercase, NFKC, whitespace collapsed and trimmed: texts equal after this score exactly 1. */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

function vectorSimilarity(a: Vector, b: Vector): number {
  if (a === b || a.key === b.key) return 1;
  // All weights are positive, so only rounding can push it past 1.
  return Math.min(1, blockDot(a.words, b.words) + blockDot(a.chars, b.chars));
}

/** Merges the two ascending hash lists. Summing in hash order, whichever comes first, keeps it exactly symmetric. */
function blockDot(a: Block, b: Block): number {
  let dot = 0;
  let i = 0;
  let j = 0;
  const aHashes = a.hashes;
  const bHashes = b.hashes;
  while (i < aHashes.length && j < bHashes.length) {
    const x = aHashes[i] ?? 0;
    const y = bHashes[j] ?? 0;
    if (x === y) dot += (a.values[i++] ?? 0) * (b.values[j++] ?? 0);
    else if (x < y) i++;
    else j++;
  }
  return dot;
}

function featuresOf(key: string): Features {
  const tokens = (key.match(WORD) ?? []).map(codePoints);
  const words: number[] = [];
  const chars: number[] = [];
  let previous: readonly number[] | undefined;
  for (const token of tokens) {
    words.push(hashOf(UNIGRAM_SEED, token, 0, token.length));
    if (previous) words.push(hashOfPair(previous, token));
    previous = token;
    // Like char_wb: grams of the word padded with a space each side, of every length from 3 to 5 that fits. (A
    // padded word of length n < 5 thus yields itself once as its only n-gram, and nothing longer.)
    const padded = [SPACE, ...token, SPACE];
    for (let start = 0; start + MIN_CHAR_GRAM <= padded.length; start++) {
      beginHash(CHAR_GRAM_SEED);
      const end = Math.min(padded.length, start + MAX_CHAR_GRAM);
      for (let index = start; index < end; index++) {
        stepHash(padded[index] ?? 0);
        const length = index - start + 1;
        if (length >= MIN_CHAR_GRAM) chars.push(finishHash(length));
      }
    }
  }
  return { words: countHashes(words), chars: countHashes(chars) };
}

function codePoints(token: string): number[] {
  const points: number[] = [];
  for (const character of token) points.push(character.codePointAt(0) ?? 0);
  return points;
}

/** Distinct hashes in ascending order with how often each occurs. */
function countHashes(list: readonly number[]): Block {
  const sorted = Float64Array.from(list).sort();
  const hashes: number[] = [];
  const counts: number[] = [];
  for (const hash of sorted) {
    if (hashes.length > 0 && hashes[hashes.length - 1] === hash)
      counts[counts.length - 1] = (counts[counts.length - 1] ?? 0) + 1;
    else {
      hashes.push(hash);
      counts.push(1);
    }
  }
  return { hashes: Float64Array.from(hashes), values: Float64Array.from(counts) };
}

/** Sublinear tf times idf, scaled to length √0.5 (an empty block stays empty). */
function weighBlock(counts: Block, idf: ((hash: number) => number) | undefined): Block {
  const values = new Float64Array(counts.values.length);
  let sumOfSquares = 0;
  for (let index = 0; index < values.length; index++) {
    const weight = (1 + Math.log(counts.values[index] ?? 1)) * (idf ? idf(counts.hashes[index] ?? 0) : 1);
    values[index] = weight;
    sumOfSquares += weight * weight;
  }
  if (sumOfSquares > 0) {
    const scale = BLOCK_WEIGHT / Math.sqrt(sumOfSquares);
    for (let index = 0; index < values.length; index++) values[index] = (values[index] ?? 0) * scale;
  }
  return { hashes: counts.hashes, values };
}

/**
 * Document frequencies over the corpus, as smoothed idf functions. Also returns each distinct text's features,
 * from which its vector is built later instead of splitting the text again.
 */
function fitIdf(corpus: readonly string[]): { idf: Idf; features: Map<string, Features> } {
  const frequency = { words: new Map<number, number>(), chars: new Map<number, number>() };
  const features = new Map<string, Features>();
  for (const text of corpus) {
    const key = normalizeText(text);
    // A repeated text counts again (it is another document), with its features computed once.
    let found = features.get(key);
    if (!found) {
      found = featuresOf(key);
      features.set(key, found);
    }
    for (const block of ['words', 'chars'] as const) {
      const counts = frequency[block];
      for (const hash of found[block].hashes) counts.set(hash, (counts.get(hash) ?? 0) + 1);
    }
  }
  const documents = corpus.length;
  // Smoothed as in scikit-learn: as if one extra document held every n-gram, so an unseen one stays finite.
  const idf = (counts: Map<number, number>) => (hash: number) =>
    Math.log((1 + documents) / (1 + (counts.get(hash) ?? 0))) + 1;
  return { idf: { words: idf(frequency.words), chars: idf(frequency.chars) }, features };
}

// ---- A 52-bit hash of a code point sequence: two independent 32-bit multiplicative lanes, each finished by
// MurmurHash3's avalanche. Module state, so that the hot loop allocates nothing. ----

let laneA = 0;
let laneB = 0;

function beginHash(seed: number): void {
  laneA = 0x811c9dc5 ^ seed;
  laneB = 0x9747b28c ^ Math.imul(seed, 0x9e3779b1);
}

function stepHash(code: number): void {
  laneA = Math.imul(laneA ^ code, 0x01000193);
  laneB = Math.imul(laneB ^ code, 0x5bd1e995);
  laneB ^= laneB >>> 13;
}

/** The hash of what was stepped so far (the lanes stay as they are, so longer grams can continue). */
function finishHash(length: number): number {
  const a = avalanche(laneA ^ length) >>> 0;
  const b = avalanche(laneB ^ Math.imul(length, 0x85ebca6b)) >>> 0;
  return a * 0x100000 + (b >>> 12);
}

function avalanche(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function hashOf(seed: number, points: readonly number[], start: number, end: number): number {
  beginHash(seed);
  for (let index = start; index < end; index++) stepHash(points[index] ?? 0);
  return finishHash(end - start);
}

function hashOfPair(first: readonly number[], second: readonly number[]): number {
  beginHash(BIGRAM_SEED);
  for (const code of first) stepHash(code);
  stepHash(SPACE);
  for (const code of second) stepHash(code);
  return finishHash(first.length + 1 + second.length);
}
