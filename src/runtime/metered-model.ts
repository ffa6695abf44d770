/**
 * Wraps an engine's model: checks every budget before each call (docs/algorithms.md#budgets) and
 * records each call as a `model-call` event with its reply, usage and cost. Without a budget it only counts. Calls are numbered per (purpose, key,
 * attempt); a resumed run passes the recorded replies as `replay`, and a call found there is answered from the
 * log: never repeated, never charged twice.
 */
import type { CallTag, ChatCall, ChatModel, ChatResult } from '../llm/chat-model.js';
import { redactModelSpec, requestedModelName } from '../llm/model-spec.js';
import { type ChatSpan, startChatSpan, telemetryProvider } from '../llm/telemetry.js';
import { wrapModel } from '../llm/wrap-model.js';
import { budgetGate, type Budget, type BudgetGate, type Meter } from './budget.js';
import type { MeterEmit } from './meter-events.js';

export interface MeterOptions {
  readonly budget: Budget;
  readonly meter: Meter;
  /** Milliseconds since the run started. */
  readonly now: () => number;
  /**
   * USD for one call's usage. `modelId` is the spec of the model that made the call (absent for a call made
   * elsewhere, whose `result.model` is then the model the spec asked for).
   */
  readonly costOf: (result: ChatResult, modelId?: string) => number;
  /** Receives each call and the spending of a budget; absent = counting only. */
  readonly emit?: MeterEmit;
  /** Recorded replies by `callKey`, from an earlier part of the same run. */
  readonly replay?: ReadonlyMap<string, ChatResult>;
  /** The arguments of a tool call as the log records them (secret ones redacted); default as they are. */
  readonly redactToolArgs?: (name: string, args: unknown) => unknown;
  /**
   * Whether each call opens a `chat` span (default true: a run's model is traced here). False where the caller's
   * model is already traced (the CLI's `tracedModel`), so a call is not traced twice.
   */
  readonly trace?: boolean;
  /**
   * The task a call serves, by its tag, for its `model-call` event and span (`taskId`). The engine that tags the
   * calls knows (a run: its subtasks' execute and verify calls, run/subtask-of-call.ts); absent, no call names one.
   */
  readonly taskOf?: (tag: Pick<CallTag, 'purpose' | 'key'>) => string | undefined;
}

/** A reply's tool calls as a `model-call` event records them. */
export function recordedToolCalls(
  result: Pick<ChatResult, 'toolCalls'>,
  redact: MeterOptions['redactToolArgs'],
): { toolCalls: { id: string; name: string; args: unknown }[] } | Record<string, never> {
  if (!result.toolCalls || result.toolCalls.length === 0) return {};
  return {
    toolCalls: result.toolCalls.map((call) => ({
      id: call.id,
      name: call.name,
      args: redact ? redact(call.name, call.args) : call.args,
    })),
  };
}

/** Identifies a call within a run: what it was for, for which subtask and attempt, and its number among those. */
export function callKey(
  purpose: string,
  key: string | undefined,
  attempt: number | undefined,
  sequence: number,
): string {
  return JSON.stringify([purpose, key ?? null, attempt ?? null, sequence]);
}

export interface CallIdentity {
  readonly purpose: CallTag['purpose'];
  /** `sequence`, and `key`/`attempt` when the call has them: what a `model-call` event records. */
  readonly identity: { readonly sequence: number; readonly key?: string; readonly attempt?: number };
  /** The call with `tag.sequence` set, for seeded models. */
  readonly tagged: ChatCall;
  /** Its `callKey`, for replay. */
  readonly key: string;
}

/**
 * Numbers calls per (purpose, key, attempt): the identity a run's log records and a resume replays by. One
 * sequencer per model wrapper, so the numbering follows the order in which one run makes its calls.
 */
export function callSequencer(): (call: ChatCall) => CallIdentity {
  const sequences = new Map<string, number>();
  return (call) => {
    const purpose = call.tag?.purpose ?? 'other';
    const series = JSON.stringify([purpose, call.tag?.key ?? null, call.tag?.attempt ?? null]);
    const sequence = sequences.get(series) ?? 0;
    sequences.set(series, sequence + 1);
    const tag = { ...(call.tag ?? { purpose: 'other' as const }), sequence };
    return {
      purpose,
      identity: {
        sequence,
        ...(tag.key !== undefined ? { key: tag.key } : {}),
        ...(tag.attempt !== undefined ? { attempt: tag.attempt } : {}),
      },
      tagged: { ...call, tag },
      key: callKey(purpose, call.tag?.key, call.tag?.attempt, sequence),
    };
  };
}

/** A call made elsewhere (e.g. by a queue worker), as it is reported back to the run. */
export interface RemoteCall {
  readonly purpose: NonNullable<ChatCall['tag']>['purpose'];
  readonly key?: string;
  readonly attempt?: number;
  readonly sequence: number;
  readonly text?: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly model: string;
  readonly durationMs: number;
  readonly error?: string;
  /** The tools the model asked to call (already redacted). */
  readonly toolCalls?: readonly { readonly id: string; readonly name: string; readonly args: unknown }[];
}

/** Charges a call made elsewhere to the meter and records it as a `model-call` event, like one made here. */
export function recordRemoteCall(
  call: RemoteCall,
  options: Pick<MeterOptions, 'meter' | 'costOf' | 'emit' | 'taskOf'>,
): void {
  const { meter } = options;
  const costUsd =
    call.error === undefined
      ? options.costOf({
          text: call.text ?? '',
          usage: { inputTokens: call.inputTokens, outputTokens: call.outputTokens },
          model: call.model,
        })
      : 0;
  meter.calls += 1;
  meter.inputTokens += call.inputTokens;
  meter.outputTokens += call.outputTokens;
  meter.costUsd += costUsd;
  const taskId = options.taskOf?.({ purpose: call.purpose, ...(call.key !== undefined ? { key: call.key } : {}) });
  options.emit?.({
    type: 'model-call',
    purpose: call.purpose,
    model: call.model,
    inputTokens: call.inputTokens,
    outputTokens: call.outputTokens,
    costUsd,
    durationMs: call.durationMs,
    sequence: call.sequence,
    ...(call.key !== undefined ? { key: call.key } : {}),
    ...(call.attempt !== undefined ? { attempt: call.attempt } : {}),
    ...(call.error !== undefined ? { error: call.error } : { text: call.text ?? '' }),
    ...(call.error === undefined && call.toolCalls && call.toolCalls.length > 0
      ? { toolCalls: call.toolCalls.map((c) => ({ ...c })) }
      : {}),
    ...(taskId !== undefined ? { taskId } : {}),
  });
}

/**
 * The model a `model-call` event records: the one the spec asked for, not the name the server answered with (llama.cpp
 * answers with its file path) nor the spec itself (whose URL may carry a key).
 */
export function callModelName(modelId: string, reported?: string): string {
  return requestedModelName(modelId) ?? reported ?? redactModelSpec(modelId);
}

/** A span that records nothing, for a meter whose calls are traced elsewhere. */
function untracedSpan(): ChatSpan {
  return { run: (work) => work(), succeed() {}, fail() {} };
}

export function meteredModel(
  model: ChatModel,
  options: MeterOptions,
  gate: BudgetGate = budgetGate(options),
): ChatModel {
  const { meter } = options;
  const identify = callSequencer();
  // A model's id does not change: parse it once, not three times a call (a spec that is no spec costs a suggestion).
  let requested: { readonly name: string | undefined } | undefined;
  const requestedName = (): string | undefined => (requested ??= { name: requestedModelName(model.id) }).name;
  const nameOf = (reported?: string): string => requestedName() ?? reported ?? redactModelSpec(model.id);
  return wrapModel(model, {
    async wrapGenerate({ call, signal, next }) {
      const { purpose, identity, tagged, key } = identify(call);
      const recorded = options.replay?.get(key);
      if (recorded) return recorded;
      gate.admit();
      meter.calls += 1;
      const started = options.now();
      const taskId = call.tag === undefined ? undefined : options.taskOf?.(call.tag);
      const span = (options.trace === false ? untracedSpan : startChatSpan)({
        // The name the provider is asked for; a spec without one (`sim:…`, `local:…`) by its provider, not its options.
        model: requestedName() ?? telemetryProvider(model.id),
        provider: telemetryProvider(model.id),
        purpose,
        ...(taskId !== undefined ? { taskId } : {}),
        ...(identity.attempt !== undefined ? { attempt: identity.attempt } : {}),
        call,
        ...(options.redactToolArgs ? { redactToolArgs: options.redactToolArgs } : {}),
      });
      try {
        const result = await span.run(() => next(tagged, signal));
        const costUsd = options.costOf(result, model.id);
        span.succeed(result, costUsd, nameOf(result.model));
        meter.inputTokens += result.usage.inputTokens;
        meter.outputTokens += result.usage.outputTokens;
        meter.costUsd += costUsd;
        options.emit?.({
          type: 'model-call',
          purpose,
          model: nameOf(result.model),
          inputTokens: result.usage.inputTokens,
          outputTokens: result.usage.outputTokens,
          costUsd,
          durationMs: options.now() - started,
          ...identity,
          text: result.text,
          ...recordedToolCalls(result, options.redactToolArgs),
          ...(taskId !== undefined ? { taskId } : {}),
        });
        return result;
      } catch (error) {
        span.fail(error);
        options.emit?.({
          type: 'model-call',
          purpose,
          model: nameOf(),
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
          durationMs: options.now() - started,
          error: error instanceof Error ? error.message : String(error),
          ...identity,
          ...(taskId !== undefined ? { taskId } : {}),
        });
        throw error;
      }
    },
  });
}
