/**
 * An output-token limit on every call, chosen by what the call is for. Without one a runaway model writes until
 * the server's context is full, and the next call then fails with a context-overflow error that hides why.
 * A limit the caller set on the call itself wins.
 */
import type { CallTag, ChatModel, KnownCallPurpose } from './chat-model.js';
import { wrapModel } from './wrap-model.js';

export type CallPurpose = CallTag['purpose'];

/** Limits for the known purposes; a purpose of a caller's own gets `other`'s (withOutputLimit). */
export type OutputTokenLimits = Readonly<Record<KnownCallPurpose, number>>;

/** Generous enough for whole files (execute) and plans, tight where a short verdict or ranking is expected. */
export const DEFAULT_MAX_OUTPUT_TOKENS: OutputTokenLimits = Object.freeze({
  plan: 4096,
  execute: 8192,
  verify: 1024,
  update: 4096,
  // The team ranker reasons step by step over every solution before its choice (as DyLAN's prompts ask).
  rank: 2048,
  answer: 2048,
  worfbench: 2048,
  converse: 2048,
  'simulate-user': 1024,
  judge: 1024,
  solve: 4096,
  distill: 4096,
  'simulate-api': 2048,
  other: 4096,
});

/**
 * The config's `maxOutputTokens`: one number for every purpose, or per purpose with an optional `default` for the
 * rest; what it leaves out keeps `DEFAULT_MAX_OUTPUT_TOKENS`.
 */
export type OutputTokenSetting = number | Readonly<Partial<Record<KnownCallPurpose | 'default', number>>>;

export function outputTokenLimits(setting: OutputTokenSetting | undefined): OutputTokenLimits {
  if (setting === undefined) return DEFAULT_MAX_OUTPUT_TOKENS;
  const purposes = Object.keys(DEFAULT_MAX_OUTPUT_TOKENS) as KnownCallPurpose[];
  if (typeof setting === 'number')
    return Object.freeze(Object.fromEntries(purposes.map((purpose) => [purpose, setting])) as OutputTokenLimits);
  return Object.freeze(
    Object.fromEntries(
      purposes.map((purpose) => [purpose, setting[purpose] ?? setting.default ?? DEFAULT_MAX_OUTPUT_TOKENS[purpose]]),
    ) as OutputTokenLimits,
  );
}

export function withOutputLimit(model: ChatModel, limits: OutputTokenLimits = DEFAULT_MAX_OUTPUT_TOKENS): ChatModel {
  return wrapModel(model, {
    transformCall(call) {
      if (call.maxTokens !== undefined) return call;
      return { ...call, maxTokens: limitFor(limits, call.tag?.purpose ?? 'other') };
    },
  });
}

/** The limit for a purpose: its own when it is a known one, else `other`'s (own keys only: `constructor` is no purpose). */
export function limitFor(limits: OutputTokenLimits, purpose: CallPurpose): number {
  return Object.hasOwn(limits, purpose) ? limits[purpose as KnownCallPurpose] : limits.other;
}
