/**
 * A model whose every call is a `chat {model}` span (llm/telemetry.ts), for the commands that call a model outside a
 * run (`weft solve`, `distill`, `chat`, `team`, …): a run's calls get theirs from its meter. Without a registered
 * SDK the spans are no-ops, so wrapping costs next to nothing.
 */
import type { CallTag, ChatModel, ChatResult } from './chat-model.js';
import { redactModelSpec, requestedModelName } from './model-spec.js';
import { startChatSpan, telemetryProvider } from './telemetry.js';
import { wrapModel } from './wrap-model.js';

export interface TracedModelOptions {
  /** USD for one call's usage (`weft.cost_usd`); not recorded when not given. */
  readonly costOf?: (result: ChatResult, modelId?: string) => number;
  /** How the log shows tool arguments (secret ones redacted): content attributes show them the same way. */
  readonly redactToolArgs?: (name: string, args: unknown) => unknown;
  /** The task a call serves, by its tag (`weft.task.id`); the engine that tags the calls knows (run: subtaskOfCall). */
  readonly taskOf?: (tag: CallTag) => string | undefined;
}

export function tracedModel(model: ChatModel, options: TracedModelOptions = {}): ChatModel {
  // The name the provider is asked for; a spec without one (`sim:…`) by its provider, never its options or key.
  // Parsed once: a model's id does not change, and a spec that is no spec costs a suggestion on every parse.
  const requested = requestedModelName(model.id);
  const name = requested ?? telemetryProvider(model.id);
  return wrapModel(model, {
    async wrapGenerate({ call, signal, next }) {
      const taskId = call.tag === undefined ? undefined : options.taskOf?.(call.tag);
      const span = startChatSpan({
        model: name,
        provider: telemetryProvider(model.id),
        purpose: call.tag?.purpose ?? 'other',
        ...(taskId !== undefined ? { taskId } : {}),
        ...(call.tag?.attempt !== undefined ? { attempt: call.tag.attempt } : {}),
        call,
        ...(options.redactToolArgs ? { redactToolArgs: options.redactToolArgs } : {}),
      });
      try {
        const result = await span.run(() => next(call, signal));
        span.succeed(
          result,
          options.costOf?.(result, model.id),
          requested ?? redactModelSpec(result.model || model.id),
        );
        return result;
      } catch (error) {
        span.fail(error);
        throw error;
      }
    },
  });
}
