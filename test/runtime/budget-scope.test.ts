/**
 * The engine runtime's budget scope: several models spend one budget, the spent one is named as the caller names
 * it, usage goes on from what was charged, and the wall-time deadline aborts a call in flight.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isWeftError } from '../../src/errors.js';
import type { ChatCall, ChatModel, ChatResult } from '../../src/llm/chat-model.js';
import { checkBudget, createBudgetScope } from '../../src/runtime/budget-scope.js';
import { refusal } from './budget-test-helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Answers every call at once with `tokens` input and 1 output token, reporting `model` as its name. */
function answering(id: string, tokens = 10, model = 'test'): ChatModel & { calls: number } {
  const counted = {
    id,
    kind: 'scripted' as const,
    calls: 0,
    async generate(): Promise<ChatResult> {
      counted.calls += 1;
      return { text: 'ok', usage: { inputTokens: tokens, outputTokens: 1 }, model };
    },
  };
  return counted;
}

/** A model that never answers: its call ends only when its signal aborts. */
function hanging(): ChatModel & { started: number; aborted: number } {
  const model = {
    id: 'test:hanging',
    kind: 'scripted' as const,
    started: 0,
    aborted: 0,
    generate(_call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      model.started += 1;
      return new Promise((_resolve, reject) => {
        signal?.addEventListener(
          'abort',
          () => {
            model.aborted += 1;
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
  };
  return model;
}

const CALL: ChatCall = { messages: [{ role: 'user', content: 'hi' }] };

describe('a budget scope', () => {
  it('charges every model it wraps to one call budget and names the spent budget as the caller does', async () => {
    const scope = createBudgetScope({ budget: { maxCalls: 3 }, fields: { maxCalls: '--max-calls' } });
    const bot = answering('test:bot');
    const judge = answering('test:judge');
    await scope.metered(bot).generate(CALL);
    await scope.metered(judge).generate(CALL);
    await scope.metered(bot).generate(CALL);
    expect(scope.stop()).toBeUndefined();
    expect(await refusal(scope.metered(judge).generate(CALL))).toEqual({
      code: 'BUDGET',
      message: 'Budget exhausted: call budget of 3 reached',
      field: '--max-calls',
    });
    // The refused call never reached the model.
    expect(bot.calls + judge.calls).toBe(3);
    expect(scope.stop()).toMatchObject({
      budget: 'maxCalls',
      field: '--max-calls',
      usage: { calls: 3, tokens: { input: 30, output: 3 }, costUsd: 0 },
    });
    scope.close();
  });

  it('stops on tokens, and on cost priced by the caller or by the built-in prices', async () => {
    const tokens = createBudgetScope({ budget: { maxTokens: 25 } });
    const model = tokens.metered(answering('test:a', 12));
    await model.generate(CALL);
    await model.generate(CALL);
    expect(await refusal(model.generate(CALL))).toMatchObject({ code: 'BUDGET', field: 'budget.maxTokens' });
    expect(tokens.stop()?.budget).toBe('maxTokens');

    const priced = createBudgetScope({ budget: { maxCostUsd: 0.5 } });
    const paid = priced.metered(answering('test:b'), () => 0.3);
    await paid.generate(CALL);
    await paid.generate(CALL);
    expect(await refusal(paid.generate(CALL))).toMatchObject({ code: 'BUDGET', field: 'budget.maxCostUsd' });
    expect(priced.usage().costUsd).toBeCloseTo(0.6);

    // gpt-4o at $2.50 per million input tokens: 1M input tokens cost $2.50, over a $1 budget.
    const listed = createBudgetScope({ budget: { maxCostUsd: 1 } });
    const gpt = listed.metered(answering('openai:gpt-4o', 1_000_000, 'gpt-4o'));
    await gpt.generate(CALL);
    expect(await refusal(gpt.generate(CALL))).toMatchObject({ code: 'BUDGET', field: 'budget.maxCostUsd' });
    expect(listed.usage().costUsd).toBeGreaterThan(2.5);
  });

  it('counts on from what was charged before (a resumed session)', async () => {
    const scope = createBudgetScope({ budget: { maxCalls: 4 } });
    scope.charge({ calls: 3, inputTokens: 100, outputTokens: 5, costUsd: 0 });
    const model = scope.metered(answering('test:a'));
    await model.generate(CALL);
    expect(await refusal(model.generate(CALL))).toMatchObject({ code: 'BUDGET' });
    expect(scope.usage()).toMatchObject({ calls: 4, tokens: { input: 110, output: 6 } });
  });

  it('aborts a call in flight when the wall time passes, and the call fails with the budget, not as a cancel', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const scope = createBudgetScope({ budget: { maxWallMs: 5_000 }, fields: { maxWallMs: '--timeout' } });
    const model = hanging();
    const call = scope.metered(model).generate(CALL);
    expect(model.started).toBe(1);
    vi.advanceTimersByTime(5_000);
    expect(await refusal(call)).toEqual({
      code: 'BUDGET',
      message: 'Budget exhausted: wall-time budget of 5s reached',
      field: '--timeout',
    });
    expect(model.aborted).toBe(1);
    expect(scope.signal?.aborted).toBe(true);
    expect(scope.stop()).toMatchObject({ budget: 'maxWallMs', field: '--timeout' });
  });

  it("keeps the caller's own cancel a cancel", async () => {
    const scope = createBudgetScope({ budget: { maxWallMs: 60_000 } });
    const cancel = new AbortController();
    const call = scope.metered(hanging()).generate(CALL, cancel.signal);
    cancel.abort();
    const error = await call.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isWeftError(error) && error.code === 'BUDGET').toBe(false);
    expect(scope.stop()).toBeUndefined();
    scope.close();
  });

  it('refuses budgets that are not positive numbers, naming the field', () => {
    expect(() => checkBudget({ maxCalls: 0 }, { maxCalls: '--max-calls' })).toThrow(/--max-calls/);
    expect(() => checkBudget({ maxTokens: 1.5 })).toThrow(/budget\.maxTokens/);
    expect(() => checkBudget({ maxCostUsd: Number.NaN })).toThrow(/budget\.maxCostUsd/);
    expect(() => createBudgetScope({ budget: { maxWallMs: -1 } })).toThrow(/budget\.maxWallMs/);
    expect(() => checkBudget({ maxCalls: 2, maxCostUsd: 0.01, maxWallMs: 10 })).not.toThrow();
  });
});
