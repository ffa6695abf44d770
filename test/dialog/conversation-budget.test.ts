/**
 * A conversation's budget (calls, tokens, cost, wall time): a spent one stops the turn with a located BUDGET error,
 * the transcript so far stays in the store marked by a `budget-stop` event, the session stays open with the turn
 * pending, and a resumed session counts on from the calls its log records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createConversation } from '../../src/dialog/conversation.js';
import { readSessionEvents } from '../../src/dialog/read-session-events.js';
import type { SessionEvent } from '../../src/dialog/session-events.js';
import { type SessionStore, sessionStoreOf } from '../../src/dialog/session-store.js';
import { transcriptOf } from '../../src/dialog/transcript.js';
import type { ChatModel, ChatResult } from '../../src/llm/chat-model.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { RunStore } from '../../src/store/run-store.js';
import { countingTools, refundPdl } from './dialog-fixtures.js';
import { hangingModel, refusal } from '../runtime/budget-test-helpers.js';

const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, args }] });

let home: string;
let store: RunStore;
let sessions: SessionStore;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'weft-dialog-budget-'));
  store = await openRunStore({ home });
  sessions = sessionStoreOf(store);
});
afterEach(async () => {
  vi.useRealTimers();
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

async function storedEvents(sessionId: string): Promise<SessionEvent[]> {
  return readSessionEvents(sessions, sessionId);
}

/** A model that answers every call with `text`, reporting `tokens` input tokens and the model name `model`. */
function fixedModel(text: string, tokens: number, model: string): ChatModel & { calls: number } {
  const counted = {
    id: `test:${model}`,
    kind: 'real' as const,
    calls: 0,
    async generate(): Promise<ChatResult> {
      counted.calls += 1;
      return { text, usage: { inputTokens: tokens, outputTokens: 1 }, model };
    },
  };
  return counted;
}

describe('a conversation with a budget', () => {
  it('stops at the call budget with the transcript kept, and a resumed session counts on from its log', async () => {
    const { tools, calls } = countingTools();
    const first = await createConversation(refundPdl(), {
      model: scriptedModel([
        { text: 'What is your email?' },
        call('find_customer', { email: 'a@x.io' }),
        { text: 'never reached' },
      ]),
      tools,
      store: sessions,
      budget: { maxCalls: 2 },
      budgetFields: { maxCalls: '--max-calls' },
    });
    expect((await first.send('I want a refund')).reply).toBe('What is your email?');
    expect(await refusal(first.send('email: a@x.io'))).toEqual({
      code: 'BUDGET',
      message: 'Budget exhausted: call budget of 2 reached',
      field: '--max-calls',
    });
    // The API call made before the stop is kept; the session is open with the cut turn pending.
    expect(calls.map((c) => c.name)).toEqual(['find_customer']);
    expect(first.pendingTurn).toBe(true);
    expect(first.budget?.usage()).toMatchObject({ calls: 2 });
    // A message after the stop is refused, not recorded.
    expect(await refusal(first.send('hello?'))).toMatchObject({ code: 'BUDGET', field: '--max-calls' });
    await first.close();
    expect(await sessions.getSession(first.sessionId)).toMatchObject({ status: 'open', turns: 2 });
    const events = await storedEvents(first.sessionId);
    const stops = events.filter((event) => event.type === 'budget-stop');
    expect(stops).toEqual([
      expect.objectContaining({
        turn: 2,
        budget: 'maxCalls',
        field: '--max-calls',
        exceeded: 'call budget of 2 reached',
        calls: 2,
      }),
    ]);
    const transcript = transcriptOf(events);
    expect(transcript.entries.filter((entry) => entry.role === 'user').map((entry) => entry.text)).toEqual([
      'I want a refund',
      'email: a@x.io',
    ]);
    expect(transcript.entries.at(-1)).toMatchObject({ role: 'budget', field: '--max-calls' });

    // Resumed with a budget of 3: the log's 2 calls count, so one more call finishes the cut turn, and no more.
    const bot = scriptedModel([{ text: 'Which order?' }, { text: 'never reached' }]);
    const again = await createConversation(refundPdl(), {
      model: bot,
      tools,
      store: sessions,
      sessionId: first.sessionId,
      budget: { maxCalls: 3 },
    });
    expect(again.budget?.usage().calls).toBe(2);
    expect((await again.continueTurn()).reply).toBe('Which order?');
    expect(await refusal(again.send('order_id: O-1'))).toMatchObject({
      code: 'BUDGET',
      message: 'Budget exhausted: call budget of 3 reached',
      field: 'budget.maxCalls',
    });
    expect(bot.calls).toHaveLength(1);
    await again.close();
  });

  it('stops at the token budget', async () => {
    const { tools } = countingTools();
    const model = fixedModel('Hello.', 600, 'test');
    const conversation = await createConversation(refundPdl(), {
      model,
      tools,
      store: sessions,
      budget: { maxTokens: 1_000 },
    });
    await conversation.send('hi');
    await conversation.send('hi again');
    expect(await refusal(conversation.send('and again'))).toMatchObject({ code: 'BUDGET', field: 'budget.maxTokens' });
    expect(model.calls).toBe(2);
    expect((await storedEvents(conversation.sessionId)).at(-1)).toMatchObject({
      type: 'budget-stop',
      budget: 'maxTokens',
      inputTokens: 1_200,
    });
    await conversation.close();
  });

  it('stops at the cost budget, priced by the model that answered', async () => {
    const { tools } = countingTools();
    // gpt-4o: $2.50 per million input tokens, so each call costs over $2.50.
    const model = fixedModel('Hello.', 1_000_000, 'gpt-4o');
    const conversation = await createConversation(refundPdl(), {
      model,
      tools,
      store: sessions,
      budget: { maxCostUsd: 4 },
    });
    await conversation.send('hi');
    await conversation.send('hi again');
    expect(await refusal(conversation.send('and again'))).toMatchObject({
      code: 'BUDGET',
      field: 'budget.maxCostUsd',
    });
    expect(model.calls).toBe(2);
    expect(conversation.budget?.stop()?.usage.costUsd).toBeGreaterThan(4);
    await conversation.close();
  });

  it("counts the simulated APIs' calls", async () => {
    const { tools } = countingTools();
    const apiModel = fixedModel('{"status": 200, "data": {"customer_id": "C-1"}}', 10, 'test');
    const conversation = await createConversation(refundPdl(), {
      model: scriptedModel([call('find_customer', { email: 'a@x.io' }), { text: 'never reached' }]),
      // find_customer only declared: a model answers it.
      tools: tools.map((tool) => (tool.name === 'find_customer' ? { ...tool, declaredOnly: true } : tool)),
      simulateApis: true,
      apiModel,
      store: sessions,
      budget: { maxCalls: 2 },
    });
    expect(await refusal(conversation.send('email: a@x.io'))).toMatchObject({ code: 'BUDGET' });
    expect(apiModel.calls).toBe(1);
    const events = await storedEvents(conversation.sessionId);
    expect(events.find((event) => event.type === 'tool-result')).toMatchObject({ name: 'find_customer', ok: true });
    expect(events.at(-1)).toMatchObject({ type: 'budget-stop', calls: 2 });
    await conversation.close();
  });

  it('aborts the call in flight at the deadline and stops the turn', async () => {
    const { tools } = countingTools();
    const hanging = hangingModel();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const conversation = await createConversation(refundPdl(), {
      model: hanging,
      tools,
      store: sessions,
      budget: { maxWallMs: 30_000 },
      budgetFields: { maxWallMs: '--timeout' },
    });
    const turn = refusal(conversation.send('hello'));
    for (let i = 0; i < 1_000 && hanging.started === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(hanging.started).toBe(1);
    vi.advanceTimersByTime(30_000);
    expect(await turn).toEqual({
      code: 'BUDGET',
      message: 'Budget exhausted: wall-time budget of 30s reached',
      field: '--timeout',
    });
    expect(hanging.aborted).toBe(1);
    const events = await storedEvents(conversation.sessionId);
    // The user's message is kept; the turn has no reply (it is pending), and the stop is recorded last.
    const types = events.map((event) => event.type);
    expect(types).toContain('user-message');
    expect(types).not.toContain('bot-reply');
    expect(types.at(-1)).toBe('budget-stop');
    expect(events.at(-1)).toMatchObject({ budget: 'maxWallMs', field: '--timeout' });
    await conversation.close();
  });

  it('refuses a bad budget before it creates a session, naming the field', async () => {
    const { tools } = countingTools();
    await expect(
      createConversation(refundPdl(), {
        model: scriptedModel([]),
        tools,
        store: sessions,
        budget: { maxCalls: 0 },
      }),
    ).rejects.toThrow(/budget\.maxCalls/);
    expect(await sessions.listSessions()).toEqual([]);
  });
});
