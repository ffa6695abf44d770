/**
 * The budget of a batch: `simulateSessions` (the bot, the simulated users and the judge all count) and
 * `evaluateTurns` (the bot and the judge). A spent budget stops the batch cleanly: the report covers what finished,
 * names the budget, the usage and what was cut short, and a kept session cut short stays open, marked by the stop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseProfiles } from '../../src/dialog/profiles.js';
import { parseReferenceSessions } from '../../src/dialog/reference-sessions.js';
import { readSessionEvents } from '../../src/dialog/read-session-events.js';
import { sessionStoreOf } from '../../src/dialog/session-store.js';
import { simulateSessions } from '../../src/dialog/simulate.js';
import { evaluateTurns } from '../../src/dialog/turn-eval.js';
import type { ChatCall, ChatModel, ChatResult } from '../../src/llm/chat-model.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { openRunStore } from '../../src/store/open-store.js';
import { countingTools, refundPdl } from './dialog-fixtures.js';
import { hangingModel } from '../runtime/budget-test-helpers.js';

const scratch: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const profiles = parseProfiles(
  [
    JSON.stringify({ id: 'p1', persona: 'A customer', details: { email: 'a@x.io' }, goals: ['get a refund'] }),
    JSON.stringify({ id: 'p2', persona: 'Another customer', goals: ['get a refund'] }),
  ].join('\n'),
  'p.jsonl',
);

/** Answers every call with `text` (per purpose), counting the calls it got. */
function answering(text: (call: ChatCall) => string): ChatModel & { calls: ChatCall[] } {
  const calls: ChatCall[] = [];
  return {
    id: 'fn:test',
    kind: 'scripted',
    calls,
    async generate(call): Promise<ChatResult> {
      calls.push(call);
      return { text: text(call), usage: { inputTokens: 10, outputTokens: 5 }, model: 'fn' };
    },
  };
}

const JUDGED = '{"success": true, "achieved": [0], "reason": "ok"}';

describe('a simulate batch with a budget', () => {
  it('stops at the call budget: the finished sessions are reported, the cut one is kept open and marked', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-batch-budget-'));
    scratch.push(home);
    const store = await openRunStore({ home });
    try {
      const sessions = sessionStoreOf(store);
      const { tools } = countingTools();
      // Each session: user, bot, user ([END]), judge = 4 calls. A budget of 6 finishes one session and cuts the next.
      let said = 0;
      const user = answering(() => (said++ % 2 === 0 ? 'Hello, I want a refund' : '[END]'));
      const bot = answering(() => 'Sure, what is your email?');
      const judge = answering(() => JUDGED);
      const report = await simulateSessions(refundPdl(), {
        profiles,
        sessions: 4,
        concurrency: 1,
        model: bot,
        userModel: user,
        judge,
        tools,
        store: sessions,
        budget: { maxCalls: 6 },
        budgetFields: { maxCalls: '--max-calls' },
      });
      expect(user.calls.length + bot.calls.length + judge.calls.length).toBe(6);
      expect(report.perSession.map((session) => session.id)).toEqual(['p1#1']);
      expect(report.budget?.usage.calls).toBe(6);
      const stopped = report.budget?.stopped;
      expect(stopped).toMatchObject({
        budget: 'maxCalls',
        field: '--max-calls',
        exceeded: 'call budget of 6 reached',
        finished: 1,
        of: 4,
      });
      expect(stopped?.unfinished).toHaveLength(1);
      const cut = stopped?.unfinished[0] as string;
      expect(await sessions.getSession(cut)).toMatchObject({ status: 'open' });
      const events = await readSessionEvents(sessions, cut);
      expect(events.filter((event) => event.type === 'user-message')).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: 'budget-stop', budget: 'maxCalls', calls: 6 });
      // Only two sessions were started: the batch started none after the stop.
      expect(await sessions.listSessions()).toHaveLength(2);
    } finally {
      await store.close();
    }
  });

  it("counts the simulated users' and the judge's calls", async () => {
    const { tools } = countingTools();
    // The user leaves at once: the session's only calls are the user's and the judge's.
    const user = answering(() => '[END]');
    const bot = answering(() => 'never asked');
    const judge = answering(() => JUDGED);
    const report = await simulateSessions(refundPdl(), {
      profiles: profiles.slice(0, 1),
      sessions: 2,
      concurrency: 1,
      model: bot,
      userModel: user,
      judge,
      tools,
      budget: { maxCalls: 3 },
    });
    expect(bot.calls).toHaveLength(0);
    // Session 1: user + judge; session 2: user, then its judge is refused.
    expect(user.calls).toHaveLength(2);
    expect(judge.calls).toHaveLength(1);
    expect(report.perSession).toHaveLength(1);
    expect(report.budget?.stopped).toMatchObject({
      budget: 'maxCalls',
      field: 'budget.maxCalls',
      unfinished: ['p1#2'],
    });
  });

  it('stops at the token and cost budgets', async () => {
    const { tools } = countingTools();
    const byTokens = await simulateSessions(refundPdl(), {
      profiles: profiles.slice(0, 1),
      sessions: 3,
      concurrency: 1,
      model: answering(() => 'Hi'),
      userModel: answering(() => '[END]'),
      judge: answering(() => JUDGED),
      tools,
      // 15 tokens a call: a session (user + judge) is 30.
      budget: { maxTokens: 40 },
    });
    expect(byTokens.perSession).toHaveLength(1);
    expect(byTokens.budget?.stopped).toMatchObject({
      budget: 'maxTokens',
      usage: { tokens: { input: 30, output: 15 } },
    });

    const byCost = await simulateSessions(refundPdl(), {
      profiles: profiles.slice(0, 1),
      sessions: 3,
      concurrency: 1,
      model: answering(() => 'Hi'),
      userModel: answering(() => '[END]'),
      judge: answering(() => JUDGED),
      tools,
      costOf: () => 0.01,
      budget: { maxCostUsd: 0.035 },
    });
    expect(byCost.perSession).toHaveLength(2);
    expect(byCost.budget?.stopped?.budget).toBe('maxCostUsd');
    expect(byCost.budget?.usage.costUsd).toBeCloseTo(0.04);
  });

  it('at the deadline, aborts the call in flight and reports the time budget', async () => {
    const { tools } = countingTools();
    const hanging = hangingModel();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const running = simulateSessions(refundPdl(), {
      profiles: profiles.slice(0, 1),
      sessions: 2,
      model: hanging,
      userModel: answering(() => 'Hello'),
      judge: answering(() => JUDGED),
      tools,
      budget: { maxWallMs: 10_000 },
      budgetFields: { maxWallMs: '--timeout' },
    });
    for (let i = 0; i < 1_000 && hanging.started < 2; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(hanging.started).toBe(2);
    vi.advanceTimersByTime(10_000);
    const report = await running;
    expect(hanging.aborted).toBe(2);
    expect(report.perSession).toEqual([]);
    expect(report.budget?.stopped).toMatchObject({
      budget: 'maxWallMs',
      field: '--timeout',
      exceeded: 'wall-time budget of 10s reached',
      unfinished: ['p1#1', 'p1#2'],
    });
  });

  it('refuses a bad budget naming the field', async () => {
    const { tools } = countingTools();
    const model = scriptedModel([]);
    await expect(
      simulateSessions(refundPdl(), {
        profiles,
        model,
        userModel: model,
        judge: model,
        tools,
        budget: { maxCostUsd: -1 },
        budgetFields: { maxCostUsd: '--max-cost' },
      }),
    ).rejects.toThrow(/--max-cost/);
  });
});

describe('a turn-level evaluation with a budget', () => {
  const references = parseReferenceSessions(
    JSON.stringify({
      id: 'r1',
      messages: [
        { role: 'user', content: 'Refund O-1, I am a@x.io' },
        { role: 'bot', tool: 'find_customer', args: { email: 'a@x.io' }, result: { customer_id: 'C-1' } },
        { role: 'bot', tool: 'get_order', args: { order_id: 'O-1' }, result: { status: 'delivered' } },
        { role: 'bot', content: 'Delivered. Shall I refund it?' },
      ],
    }),
    'r.jsonl',
  );

  it("stops when the bot's and the judge's calls spend it, reporting the moves that finished", async () => {
    const { tools } = countingTools();
    const bot = answering(() => 'A reply.');
    const judge = answering(() => '{"consistent": true, "score": 10}');
    const report = await evaluateTurns(refundPdl(), references, {
      model: bot,
      judge,
      tools,
      concurrency: 1,
      budget: { maxCalls: 3 },
      budgetFields: { maxCalls: '--max-calls' },
    });
    // Move 1: bot + judge; move 2: bot, then its judge is refused; move 3 never starts.
    expect(bot.calls).toHaveLength(2);
    expect(judge.calls).toHaveLength(1);
    expect(report.perTurn.map((turn) => turn.index)).toEqual([1]);
    expect(report.budget).toMatchObject({
      limits: { maxCalls: 3 },
      usage: { calls: 3 },
      stopped: { budget: 'maxCalls', field: '--max-calls', finished: 1, of: 3, unfinished: ['r1/2'] },
    });
  });
});
