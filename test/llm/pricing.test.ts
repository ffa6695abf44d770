import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { DEFAULT_PRICES, costOf, findPrice, isPriced, mergePrices } from '../../src/llm/pricing.js';

describe('pricing', () => {
  it('matches the longest prefix at a word boundary', () => {
    expect(findPrice('gpt-4o-mini-2024-07-18')?.key).toBe('gpt-4o-mini');
    expect(findPrice('gpt-4o-2024-08-06')?.key).toBe('gpt-4o');
    expect(findPrice('gpt-4.1-mini')?.key).toBe('gpt-4.1-mini');
    expect(findPrice('o3-mini')?.key).toBe('o3-mini');
    expect(findPrice('claude-3-5-haiku-20241022')?.key).toBe('claude-3-5-haiku');
    expect(findPrice('claude-sonnet-4-20250514')?.key).toBe('claude-sonnet-4');
    expect(findPrice('claude-opus-4-1-20250805')?.key).toBe('claude-opus-4');
    expect(findPrice('gpt-4oz')).toBeUndefined();
  });

  it('accepts model specs and ignores case', () => {
    expect(findPrice('openai:gpt-4o-mini')?.key).toBe('gpt-4o-mini');
    expect(findPrice('anthropic:Claude-Sonnet-4-5')?.key).toBe('claude-sonnet-4');
  });

  it('prices local, ollama, scripted and sim models at zero', () => {
    for (const name of [
      'ollama:llama3.1:8b',
      'local:/models/qwen.gguf',
      'scripted',
      'scripted:replies.json',
      'sim',
      'sim:seed=7',
    ]) {
      expect(isPriced(name), name).toBe(true);
      expect(costOf(name, { inputTokens: 1e6, outputTokens: 1e6 })).toBe(0);
    }
  });

  it('costs unknown models nothing but says they are unpriced', () => {
    expect(isPriced('mystery-model')).toBe(false);
    expect(costOf('mystery-model', { inputTokens: 1000, outputTokens: 1000 })).toBe(0);
  });

  it('computes USD from per-million prices', () => {
    expect(costOf('gpt-4o', { inputTokens: 1_000_000, outputTokens: 500_000 })).toBeCloseTo(2.5 + 5, 10);
    expect(costOf('gpt-4o-mini', { inputTokens: 2000, outputTokens: 1000 })).toBeCloseTo(
      (2000 * 0.15 + 1000 * 0.6) / 1e6,
      12,
    );
  });

  it('merges overrides, partial ones included', () => {
    const prices = mergePrices(DEFAULT_PRICES, {
      'my-model': { inputPerMillion: 1, outputPerMillion: 2 },
      'gpt-4o': { inputPerMillion: 1 },
    });
    expect(costOf('my-model-v2', { inputTokens: 1e6, outputTokens: 1e6 }, prices)).toBe(3);
    expect(prices['gpt-4o']).toEqual({ inputPerMillion: 1, outputPerMillion: 10 });
    expect(DEFAULT_PRICES['gpt-4o']).toEqual({ inputPerMillion: 2.5, outputPerMillion: 10 });
  });

  it('rejects negative or non-numeric prices, naming the field', () => {
    expect(() => mergePrices(DEFAULT_PRICES, { x: { inputPerMillion: -1 } })).toThrow(WeftError);
    try {
      mergePrices(DEFAULT_PRICES, { x: { outputPerMillion: Number.NaN } });
    } catch (error) {
      expect((error as WeftError).location?.field).toBe('prices.x.outputPerMillion');
    }
  });

  it('has every listed model in the default table', () => {
    for (const name of [
      'gpt-4o',
      'gpt-4o-mini',
      'gpt-4.1',
      'gpt-4.1-mini',
      'o3-mini',
      'claude-3-5-haiku',
      'claude-sonnet-4',
      'claude-opus-4',
    ]) {
      expect(DEFAULT_PRICES[name], name).toBeDefined();
    }
  });
});
