/**
 * The contract every model provider implements. Imports nothing: everything in Weft points down to it.
 */

export interface ChatMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/**
 * What a call is for. Real providers ignore it; the `sim:` model uses it to answer in the right shape, and
 * `key` (e.g. a subtask id) makes its seeded randomness independent of scheduling order.
 */
export interface CallTag {
  readonly purpose: 'plan' | 'execute' | 'verify' | 'update' | 'rank' | 'answer' | 'worfbench' | 'other';
  readonly key?: string;
  readonly attempt?: number;
  /**
   * The n-th call (from 0) with this purpose, key and attempt, e.g. a re-prompt after bad JSON. Set by the run's
   * recorder so that replayed and seeded calls line up after a resume.
   */
  readonly sequence?: number;
  /**
   * The transport retry of this same call (1 for the first retry), set by `withRetries`; absent on the first try.
   * The `sim:` model draws a retry's latency and provider error anew, as a real provider's would be.
   */
  readonly retry?: number;
}

export interface ChatCall {
  readonly system?: string;
  readonly messages: readonly ChatMessage[];
  /**
   * The most output tokens the reply may have (`max_tokens` / `max_completion_tokens` on the wire). Models made
   * by `createModel` fill it in by the call's purpose when it is unset (output-limit.ts).
   */
  readonly maxTokens?: number;
  readonly temperature?: number;
  /** Ask for JSON. Providers with a JSON mode or grammar may use `schema`; the caller still validates. */
  readonly json?: { readonly schema?: Record<string, unknown>; readonly name?: string };
  readonly tag?: CallTag;
}

export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface ChatResult {
  readonly text: string;
  readonly usage: Usage;
  /** The provider's model name as it answered. */
  readonly model: string;
}

export interface ChatModel {
  /** The model spec string it was made from, e.g. `openai:gpt-4o-mini`. */
  readonly id: string;
  /** `real`, or `scripted`/`sim` so output can label non-real runs as such. */
  readonly kind: 'real' | 'scripted' | 'sim';
  generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult>;
}
