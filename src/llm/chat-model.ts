/**
 * The contract every model provider implements. Imports nothing: everything in Weft points down to it.
 */

/**
 * A tool as a model is offered it: what native tool calling sends (OpenAI's `tools`, Anthropic's
 * `tools`) and what the prompted fallback writes into the prompt for models without native tools.
 */
export interface ToolDeclaration {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (an object schema). */
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** A tool call a model asked for. */
export interface ToolCallRequest {
  /** The provider's id for it (OpenAI `call_…`, Anthropic `toolu_…`); `call_<n>` where the model gives none. */
  readonly id: string;
  readonly name: string;
  /**
   * The arguments as the model sent them, parsed from JSON text where the wire carries text. Text that does not
   * parse stays a string, so the tool loop can show the model its mistake instead of failing the call.
   */
  readonly args: unknown;
}

/**
 * One message of a conversation. `assistant` messages may carry the tool calls the model made; each call's result
 * comes back as a `tool` message naming the call's id (Anthropic's providers fold consecutive ones into one user
 * message of `tool_result` blocks).
 */
export type ChatMessage =
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls?: readonly ToolCallRequest[] }
  | {
      readonly role: 'tool';
      readonly toolCallId: string;
      /** The tool's name (Ollama and the prompted fallback need it; OpenAI and Anthropic go by the id). */
      readonly name: string;
      /** The result as text (JSON for JSON results), or the error the agent should see. */
      readonly content: string;
      readonly isError?: boolean;
    };

/**
 * The purposes Weft's own engines tag their calls with. A purpose is any string (a library user's engine names its
 * own); these are the known ones, with what each call is for.
 */
export const CALL_PURPOSES = Object.freeze({
  /** Flow's planner: a task → a workflow of subtasks. */
  plan: 'plan',
  /** Flow's agent carrying out one subtask. */
  execute: 'execute',
  /** Flow's check of one subtask's output. */
  verify: 'verify',
  /** Flow's plan update after failures. */
  update: 'update',
  /** A DyLAN team's listwise ranker. */
  rank: 'rank',
  /** A DyLAN team member answering (and rating its peers). */
  answer: 'answer',
  /** A WorfBench workflow generation (`weft eval worfbench`). */
  worfbench: 'worfbench',
  /** The bot of a conversational procedure deciding its next action. */
  converse: 'converse',
  /** A simulated user playing a profile (`weft simulate`). */
  simulateUser: 'simulate-user',
  /** A judge scoring a session or a turn (`weft simulate`, `weft dialog eval`). */
  judge: 'judge',
  /** Distillation's execute stage: an agent solving one instance with business tools (`weft solve`). */
  solve: 'solve',
  /** Distillation's summarize stage: building a workflow from traces with graph tools only (`weft distill`). */
  distill: 'distill',
  /** A model answering in place of an API that is only declared (`--simulate-apis`, a `kind: simulated` tool). */
  simulateApi: 'simulate-api',
  /** Anything else, and untagged calls (the run's judge uses it with key `task-check`). */
  other: 'other',
} as const);

export type KnownCallPurpose = (typeof CALL_PURPOSES)[keyof typeof CALL_PURPOSES];

/**
 * What a call is for. Real providers ignore it; the `sim:` model answers with the responder registered for its
 * purpose (src/llm/sim-responders.ts), and `key` (e.g. a subtask id) makes its seeded randomness independent of
 * scheduling order.
 */
export interface CallTag {
  /** One of CALL_PURPOSES, or a purpose of the caller's own (`string & {}` keeps the known ones as completions). */
  readonly purpose: KnownCallPurpose | (string & {});
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
  /**
   * Tools the model may call. A model given tools answers with text, with `toolCalls`, or both; every ChatModel
   * that `createModel` builds handles them (natively, or through the prompted fallback).
   */
  readonly tools?: readonly ToolDeclaration[];
  /** `auto` (default): the model decides; `required`: it must call one; `none`: it must not. */
  readonly toolChoice?: 'auto' | 'required' | 'none';
  readonly tag?: CallTag;
  /**
   * Hears the reply as it arrives, for display only: the result (or, for a cut stream, the error's
   * `partialText`) still carries the whole text. Providers that stream (OpenAI and compatible servers, Ollama)
   * call it per piece; the others once with the whole text. Wrappers pass it on; `withRetries` sends a
   * `discard` before a retry so text shown from the failed try is not silently shown twice.
   */
  readonly onStream?: (event: StreamEvent) => void;
}

/** A piece of a streamed reply, or word that the text shown so far (`chars` characters) was thrown away. */
export type StreamEvent =
  | { readonly kind: 'delta'; readonly text: string }
  | { readonly kind: 'discard'; readonly chars: number };

export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface ChatResult {
  readonly text: string;
  readonly usage: Usage;
  /** The provider's model name as it answered. */
  readonly model: string;
  /** The tools the model asked to call, in order (absent or empty: none). */
  readonly toolCalls?: readonly ToolCallRequest[];
}

export interface ChatModel {
  /** The model spec string it was made from, e.g. `openai:gpt-4o-mini`. */
  readonly id: string;
  /** `real`, or `scripted`/`sim` so output can label non-real runs as such. */
  readonly kind: 'real' | 'scripted' | 'sim';
  /**
   * How it calls tools: `native` through the provider's API (and `scripted:`/`sim:`, which answer tools
   * themselves), `prompted` by answering a JSON object in its text (parsed by the fallback, prompted-tools.ts).
   * Absent: the model ignores `tools`; `createModel` wraps such models in the prompted fallback. Wrappers must
   * pass it on (see withTimeout).
   */
  readonly toolCalling?: 'native' | 'prompted';
  generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult>;
}
