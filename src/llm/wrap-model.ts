/**
 * Model middleware: one way to wrap a ChatModel (tracing, metering, recording, scoping, …) instead of a hand-written
 * object per wrapper, after the Vercel AI SDK's `wrapLanguageModel`. A wrapper written as middleware cannot forget to
 * pass on the inner model's id, kind or `toolCalling`, which hand-written ones have to copy one by one.
 */
import type { ChatCall, ChatModel, ChatResult } from './chat-model.js';

/** Calls the next layer (the model a middleware wraps), with the call and signal it chooses. */
export type GenerateNext = (call: ChatCall, signal?: AbortSignal) => Promise<ChatResult>;

export interface WrapGenerateOptions {
  /** The call, as `transformCall` left it. */
  readonly call: ChatCall;
  readonly signal?: AbortSignal | undefined;
  readonly next: GenerateNext;
  /** The model this middleware wraps (the next layer), e.g. for its id. */
  readonly model: ChatModel;
}

export interface ModelMiddleware {
  /** Rewrites the call before `wrapGenerate` (or, without one, before the wrapped model) sees it. */
  readonly transformCall?: (call: ChatCall, model: ChatModel) => ChatCall;
  /** Runs the generation; calls `next` zero or more times. Without it, the call goes straight to the wrapped model. */
  readonly wrapGenerate?: (options: WrapGenerateOptions) => Promise<ChatResult>;
  /** Overrides of what the wrapped model reports; absent ones keep the wrapped model's. */
  readonly id?: string;
  readonly kind?: ChatModel['kind'];
  readonly toolCalling?: NonNullable<ChatModel['toolCalling']>;
}

/**
 * `model` wrapped in `middleware`, the first one outermost: `wrapModel(m, a, b)` runs a's `transformCall` and
 * `wrapGenerate` first, whose `next` reaches b, whose `next` reaches `m`. With no middleware, `model` itself.
 */
export function wrapModel(model: ChatModel, ...middleware: readonly ModelMiddleware[]): ChatModel {
  return middleware.reduceRight<ChatModel>((inner, layer) => wrapOne(inner, layer), model);
}

function wrapOne(inner: ChatModel, layer: ModelMiddleware): ChatModel {
  const next: GenerateNext = (call, signal) => inner.generate(call, signal);
  const toolCalling = layer.toolCalling ?? inner.toolCalling;
  return {
    id: layer.id ?? inner.id,
    kind: layer.kind ?? inner.kind,
    ...(toolCalling ? { toolCalling } : {}),
    // Async so a transform that throws rejects the promise, as every model's failures do.
    async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      const transformed = layer.transformCall ? layer.transformCall(call, inner) : call;
      if (!layer.wrapGenerate) return inner.generate(transformed, signal);
      return layer.wrapGenerate({ call: transformed, signal, next, model: inner });
    },
  };
}
