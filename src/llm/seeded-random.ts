/**
 * Small, fast, seeded randomness for the `sim:` model and the benchmarks. Nothing here reads a clock or
 * `Math.random`: the same seed always gives the same sequence, on every platform.
 */

/** A source of uniform numbers in [0, 1). */
export type RandomSource = () => number;

/** The mulberry32 generator: 32 bits of state, good enough for simulation, not for cryptography. */
export function mulberry32(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** cyrb53-style string hash folded to 32 bits (unsigned). */
export function hashString(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2_654_435_761);
    h2 = Math.imul(h2 ^ code, 1_597_334_677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2_246_822_507) ^ Math.imul(h2 ^ (h2 >>> 13), 3_266_489_909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2_246_822_507) ^ Math.imul(h1 ^ (h1 >>> 13), 3_266_489_909);
  return ((h2 >>> 0) ^ (h1 >>> 0)) >>> 0;
}

/**
 * One 32-bit seed from several parts. Parts are separated by a control character, so `('a', 'bc')` and
 * `('ab', 'c')` differ; `undefined` is distinct from the string `'undefined'`.
 */
export function seedFrom(...parts: readonly (string | number | boolean | undefined)[]): number {
  const text = parts.map((part) => (part === undefined ? '\u0000' : `${typeof part}:${String(part)}`)).join('\u001f');
  return hashString(text);
}

/** A generator seeded from the given parts: `randomFrom(seed, 'plan', key, attempt)`. */
export function randomFrom(...parts: readonly (string | number | boolean | undefined)[]): RandomSource {
  return mulberry32(seedFrom(...parts));
}

/** Uniform in [min, max). */
export function uniformSample(random: RandomSource, min: number, max: number): number {
  return min + (max - min) * random();
}

/** A uniform integer in [min, max] (both inclusive). */
export function integerSample(random: RandomSource, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** True with probability `probability`. `0` is never true and `1` always is. */
export function bernoulli(random: RandomSource, probability: number): boolean {
  return random() < probability;
}

/** Standard normal sample (Box–Muller). */
export function normalSample(random: RandomSource): number {
  const u1 = 1 - random(); // (0, 1]: log(0) never happens
  const u2 = random();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Log-normal sample: `exp(mu + sigma · N(0, 1))`. With `mu = 3, sigma = 0.5` the median is e³ ≈ 20. */
export function lognormalSample(random: RandomSource, mu: number, sigma: number): number {
  return Math.exp(mu + sigma * normalSample(random));
}

/** One element, uniformly. Throws on an empty array. */
export function pick<T>(random: RandomSource, items: readonly T[]): T {
  if (items.length === 0) throw new RangeError('pick() needs at least one item');
  return items[Math.floor(random() * items.length)]!;
}

/** A shuffled copy (Fisher–Yates). */
export function shuffled<T>(random: RandomSource, items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}
