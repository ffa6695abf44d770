/**
 * What calls cost. Prices are USD per million tokens, looked up by the longest key that is a prefix of the
 * model name (so `gpt-4o-mini-2024-07-18` finds `gpt-4o-mini`, not `gpt-4o`). A name may be a provider's
 * model name or a whole model spec (`openai:gpt-4o`); the provider prefix is tried with and without.
 * Unknown models cost 0 — `isPriced` tells them apart from free ones.
 */
import { WeftError } from '../errors.js';
import type { Usage } from './chat-model.js';

export interface ModelPrice {
  /** USD per 1,000,000 input (prompt) tokens. */
  readonly inputPerMillion: number;
  /** USD per 1,000,000 output (completion) tokens. */
  readonly outputPerMillion: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

const FREE: ModelPrice = { inputPerMillion: 0, outputPerMillion: 0 };

const price = (inputPerMillion: number, outputPerMillion: number): ModelPrice => ({
  inputPerMillion,
  outputPerMillion,
});

/** List prices as published by the vendors (standard tier, no caching or batch discounts), mid-2025. */
export const DEFAULT_PRICES: PriceTable = Object.freeze({
  // OpenAI
  'gpt-4o': price(2.5, 10),
  'gpt-4o-mini': price(0.15, 0.6),
  'gpt-4.1': price(2, 8),
  'gpt-4.1-mini': price(0.4, 1.6),
  'gpt-4.1-nano': price(0.1, 0.4),
  'gpt-4-turbo': price(10, 30),
  'gpt-4': price(30, 60),
  'gpt-4.5': price(75, 150),
  'gpt-3.5-turbo': price(0.5, 1.5),
  'gpt-5': price(1.25, 10),
  'gpt-5-mini': price(0.25, 2),
  'gpt-5-nano': price(0.05, 0.4),
  o1: price(15, 60),
  'o1-mini': price(1.1, 4.4),
  o3: price(2, 8),
  'o3-mini': price(1.1, 4.4),
  'o3-pro': price(20, 80),
  'o4-mini': price(1.1, 4.4),
  // Anthropic
  'claude-3-haiku': price(0.25, 1.25),
  'claude-3-opus': price(15, 75),
  'claude-3-5-haiku': price(0.8, 4),
  'claude-3-5-sonnet': price(3, 15),
  'claude-3-7-sonnet': price(3, 15),
  'claude-haiku-4-5': price(1, 5),
  'claude-sonnet-4': price(3, 15),
  'claude-opus-4': price(15, 75),
  'claude-opus-4-5': price(5, 25),
  // Free: local inference, and the non-real models
  'ollama:': FREE,
  'local:': FREE,
  scripted: FREE,
  sim: FREE,
});

/** `defaults` with `overrides` laid over them; an override may give only one of the two prices. */
export function mergePrices(
  defaults: PriceTable,
  overrides: Readonly<Record<string, Partial<ModelPrice>>>,
): PriceTable {
  const merged: Record<string, ModelPrice> = { ...defaults };
  for (const [model, override] of Object.entries(overrides)) {
    const base = merged[model] ?? FREE;
    const next = {
      inputPerMillion: override.inputPerMillion ?? base.inputPerMillion,
      outputPerMillion: override.outputPerMillion ?? base.outputPerMillion,
    };
    for (const field of ['inputPerMillion', 'outputPerMillion'] as const) {
      const value = next[field];
      if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
        throw new WeftError('BAD_INPUT', `Expected a price >= 0, got ${String(value)}`, {
          location: { field: `prices.${model}.${field}` },
        });
      }
    }
    merged[model] = next;
  }
  return Object.freeze(merged);
}

/** The matching entry, or `undefined` for an unknown model. */
export function findPrice(
  modelName: string,
  prices: PriceTable = DEFAULT_PRICES,
): { key: string; price: ModelPrice } | undefined {
  const name = modelName.trim().toLowerCase();
  const found = longestPrefix(name, prices);
  if (found) return found;
  const colon = name.indexOf(':');
  return colon >= 0 ? longestPrefix(name.slice(colon + 1), prices) : undefined;
}

export function isPriced(modelName: string, prices: PriceTable = DEFAULT_PRICES): boolean {
  return findPrice(modelName, prices) !== undefined;
}

/**
 * USD for `usage` on `modelName`; 0 for unknown models. Given several names (e.g. the model the spec asked for,
 * then the one the server reported), the first one with a price is used.
 */
export function costOf(
  modelName: string | readonly (string | undefined)[],
  usage: Usage,
  prices: PriceTable = DEFAULT_PRICES,
): number {
  const names = typeof modelName === 'string' ? [modelName] : modelName;
  const found = names.reduce<ReturnType<typeof findPrice>>(
    (hit, name) => hit ?? (name === undefined ? undefined : findPrice(name, prices)),
    undefined,
  );
  if (!found) return 0;
  return (
    (usage.inputTokens * found.price.inputPerMillion + usage.outputTokens * found.price.outputPerMillion) / 1_000_000
  );
}

function longestPrefix(name: string, prices: PriceTable): { key: string; price: ModelPrice } | undefined {
  let best: { key: string; price: ModelPrice } | undefined;
  for (const [key, entry] of Object.entries(prices)) {
    if (isPrefixAtBoundary(key.toLowerCase(), name) && (!best || key.length > best.key.length))
      best = { key, price: entry };
  }
  return best;
}

/** `gpt-4o` is a prefix of `gpt-4o-mini` and `gpt-4o-2024-08-06`, but `gpt-4` is not one of `gpt-4o`. */
function isPrefixAtBoundary(key: string, name: string): boolean {
  if (!name.startsWith(key)) return false;
  const next = name[key.length];
  return next === undefined || !isWordChar(key.at(-1) ?? '') || !isWordChar(next);
}

function isWordChar(char: string): boolean {
  return /^[a-z0-9]$/.test(char);
}
