/**
 * The `badjson` fault of the `sim:` model for structured (JSON object) replies: with probability `badjson` the
 * reply is cut inside its first key — still JSON-looking, but no repair can restore it.
 */
import { bernoulli, integerSample, type RandomSource } from './seeded-random.js';
import type { SimCallContext } from './sim-responders.js';

/** `text`, or with probability `badjson` (stream `badjson`) the same cut inside its first key (stream `badjson-cut`). */
export function simMaybeBadJson(text: string, context: Pick<SimCallContext, 'options' | 'stream'>): string {
  return bernoulli(context.stream('badjson'), context.options.badjson)
    ? simMalformedJson(text, context.stream('badjson-cut'))
    : text;
}

/** The reply cut inside its first key: `{"verd`. Repair gives `{"verd": null}`, which no schema accepts. */
export function simMalformedJson(text: string, random: RandomSource): string {
  const colon = text.indexOf(':');
  if (!text.startsWith('{"') || colon < 0) return '{"unfinish';
  // text[colon - 1] is the key's closing quote; keep at least one character of the key, drop at least one.
  const keyEnd = colon - 1;
  return text.slice(0, integerSample(random, 3, Math.max(3, keyEnd - 1)));
}
