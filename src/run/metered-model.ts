/**
 * Wraps the run's model: checks every budget before each call (SPEC: max calls, tokens, cost, wall time) and
 * records each call's usage and cost as a `call` event.
 */
import { WeftError } from '../errors.js';
import type { ChatCall, ChatModel, ChatResult } from '../llm/chat-model.js';
import type { WeftEvent } from './events.js';

export interface Budget {
  readonly maxCalls?: number;
  readonly maxTokens?: number;
  readonly maxCostUsd?: number;
  readonly maxWallMs?: number;
}

export interface Meter {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface MeterOptions {
  readonly budget: Budget;
  readonly meter: Meter;
  /** Milliseconds since the run started. */
  readonly now: () => number;
  /** USD for one call's usage. */
  readonly costOf: (result: ChatResult) => number;
  readonly emit: (event: Extract<WeftEvent, { type: 'call' | 'budget' }> extends infer E ? (E extends WeftEvent ? Omit<E, 'at'> : never) : never) => void;
}

export function createMeter(): Meter {
  return { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
}

/** Why the next call would break the budget, or undefined when it may go ahead. */
export function budgetExceeded(budget: Budget, meter: Meter, elapsedMs: number): string | undefined {
  if (budget.maxCalls !== undefined && meter.calls >= budget.maxCalls) return `call budget of ${budget.maxCalls} reached`;
  if (budget.maxTokens !== undefined && meter.inputTokens + meter.outputTokens >= budget.maxTokens) return `token budget of ${budget.maxTokens} reached`;
  if (budget.maxCostUsd !== undefined && meter.costUsd >= budget.maxCostUsd) return `cost budget of $${budget.maxCostUsd} reached`;
  if (budget.maxWallMs !== undefined && elapsedMs >= budget.maxWallMs) return `wall-time budget of ${budget.maxWallMs / 1000}s reached`;
  return undefined;
}

export function meteredModel(model: ChatModel, options: MeterOptions): ChatModel {
  const { meter } = options;
  let reported = false;
  return {
    id: model.id,
    kind: model.kind,
    async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      const exceeded = budgetExceeded(options.budget, meter, options.now());
      if (exceeded) {
        if (!reported) {
          reported = true;
          options.emit({ type: 'budget', calls: meter.calls, tokens: { input: meter.inputTokens, output: meter.outputTokens }, costUsd: meter.costUsd, exceeded });
        }
        throw new WeftError('BUDGET', `Budget exhausted: ${exceeded}`);
      }
      meter.calls += 1;
      const started = options.now();
      const taskId = call.tag?.purpose === 'execute' || call.tag?.purpose === 'verify' ? call.tag.key : undefined;
      const purpose = call.tag?.purpose ?? 'other';
      try {
        const result = await model.generate(call, signal);
        const costUsd = options.costOf(result);
        meter.inputTokens += result.usage.inputTokens;
        meter.outputTokens += result.usage.outputTokens;
        meter.costUsd += costUsd;
        options.emit({
          type: 'call', purpose, model: result.model, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens,
          costUsd, durationMs: options.now() - started, ...(taskId !== undefined ? { taskId } : {}),
        });
        return result;
      } catch (error) {
        options.emit({
          type: 'call', purpose, model: model.id, inputTokens: 0, outputTokens: 0, costUsd: 0, durationMs: options.now() - started,
          error: error instanceof Error ? error.message : String(error), ...(taskId !== undefined ? { taskId } : {}),
        });
        throw error;
      }
    },
  };
}
