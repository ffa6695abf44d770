/** An embedding model as WorfEval's similarity uses it; built by the providers that can embed. */

/** Embeds texts: one vector per text, in order, all of one dimension. */
export type EmbedFunction = (texts: string[], signal?: AbortSignal) => Promise<number[][]>;

/** An embedding model behind an EmbedFunction (OpenAI-compatible server, local GGUF, …). */
export interface Embedder {
  /** The model it asks, for names and messages. */
  readonly model: string;
  readonly embed: EmbedFunction;
  /** Frees what it holds. */
  close?(): Promise<void>;
}
