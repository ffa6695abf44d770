/**
 * simulateSessions with the real conversation engine, scripted bot/user/judge models and counting tools: what the
 * report says is checked against what reached the tools.
 */
import { describe, expect, it } from 'vitest';
import { parseProfiles } from '../../src/dialog/profiles.js';
import { simulateSessions } from '../../src/dialog/simulate.js';
import { WeftError } from '../../src/errors.js';
import type { ChatCall, ChatModel } from '../../src/llm/chat-model.js';
import { readDialogBlock } from '../../src/dialog/dialog-prompt-tags.js';
import { createModel } from '../../src/llm/resolve-model.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { countingTools, refundPdl } from './dialog-fixtures.js';

const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, args }] });
const profiles = parseProfiles(
  [
    JSON.stringify({
      id: 'p1',
      persona: 'A customer with a broken kettle',
      details: { email: 'a@x.io', order_id: 'O-1' },
      needs: ['a refund for order O-1'],
      required_apis: ['find_customer', 'get_order', 'refund_order'],
      goals: [{ goal: 'get a refund', apis: ['refund_order'] }],
    }),
    JSON.stringify({ id: 'p2', persona: 'Someone else', goals: ['anything'] }),
  ].join('\n'),
  'p.jsonl',
);

/** A model that answers by a function of the call (for per-session behaviour under concurrency). */
function functionModel(
  answer: (call: ChatCall) => string,
  kind: ChatModel['kind'] = 'real',
): ChatModel & { calls: ChatCall[] } {
  const calls: ChatCall[] = [];
  return {
    id: 'fn:test',
    kind,
    calls,
    async generate(chatCall) {
      calls.push(chatCall);
      return { text: answer(chatCall), usage: { inputTokens: 10, outputTokens: 5 }, model: 'fn' };
    },
  };
}

const userCalls0 = (model: { calls: ChatCall[] }) => model.calls.filter((c) => c.tag?.purpose === 'simulate-user');

describe('simulateSessions', () => {
  it('with controllers: a premature refund is proposed, refused, never executed; the judge scores the session', async () => {
    const { tools, calls } = countingTools();
    const bot = scriptedModel([
      call('refund_order', { order_id: 'O-1' }),
      call('find_customer', { email: 'a@x.io' }),
      call('get_order', { order_id: 'O-1' }),
      call('refund_order', { order_id: 'O-1' }),
      { text: 'Your refund RF-1 is on its way.' },
    ]);
    const user = scriptedModel([{ text: 'Refund order O-1 please, email a@x.io' }, { text: '[END]' }]);
    const judge = scriptedModel([{ text: '```json\n{"success": true, "achieved": [0], "reason": "refunded"}\n```' }]);
    const report = await simulateSessions(refundPdl(), {
      profiles: profiles.slice(0, 1),
      model: bot,
      userModel: user,
      judge,
      tools,
    });
    expect(calls.map((c) => c.name)).toEqual(['find_customer', 'get_order', 'refund_order']);
    expect(report.perSession).toEqual([
      {
        id: 'p1#1',
        profile: 'p1',
        oow: [],
        success: true,
        progress: 1,
        achieved: [0],
        toolF1: 1,
        toolF1Multiset: 1,
        calledApis: ['find_customer', 'get_order', 'refund_order'],
        // The refused early refund is a proposal: the paper's tool F1 counts it (a set: once).
        proposedApis: ['refund_order', 'find_customer', 'get_order', 'refund_order'],
        paper: {
          truePositives: 3,
          falsePositives: 0,
          falseNegatives: 0,
          toolPrecision: 1,
          toolRecall: 1,
          toolF1: 1,
        },
        violationsProposed: 1,
        violationsExecuted: 0,
        rejections: 1,
        turns: 1,
        calls: 8,
        costUsd: 0,
        ended: 'user',
        judgeReason: 'refunded',
      },
    ]);
    expect(report).toMatchObject({ sessions: 1, errors: 0, success: 1, violationsExecuted: 0, simulated: true });
    expect(report.byOow.none.sessions).toBe(1);
    // The judge saw the goals and the API calls with their outcome.
    const prompt = judge.calls[0]!.messages[0]!.content;
    expect(readDialogBlock(prompt, 'api-calls')).toEqual([
      { name: 'find_customer', ok: true },
      { name: 'get_order', ok: true },
      { name: 'refund_order', ok: true },
    ]);
  });

  it('without controllers the same proposal is executed, and the report counts it as an executed violation', async () => {
    const { tools, calls } = countingTools();
    const bot = scriptedModel([call('refund_order', { order_id: 'O-1' }), { text: 'Refunded.' }]);
    const user = scriptedModel([{ text: 'Refund O-1' }, { text: '[END]' }]);
    const judge = scriptedModel([{ text: '{"success": false, "achieved": []}' }]);
    const report = await simulateSessions(refundPdl(), {
      profiles: profiles.slice(0, 1),
      model: bot,
      userModel: user,
      judge,
      tools,
      controllerMode: 'none',
    });
    expect(calls.map((c) => c.name)).toEqual(['refund_order']);
    expect(report.perSession[0]).toMatchObject({
      violationsProposed: 1,
      violationsExecuted: 1,
      rejections: 0,
      calledApis: ['refund_order'],
      success: false,
      progress: 0,
    });
    // set F1: 1 of 1 called is required, 1 of 3 required called → P 1, R 1/3, F1 0.5
    expect(report.perSession[0]!.toolF1).toBeCloseTo(0.5, 12);
    expect(report.violationsExecuted).toBe(1);
  });

  it('injects tagged out-of-workflow turns, seeded per session, cycles profiles, stops at the turn limit', async () => {
    const { tools } = countingTools();
    const bot = functionModel(() => 'What else can I do for you?');
    const user = functionModel(() => 'Tell me a joke.');
    const judge = functionModel(() => '{"success": false, "achieved": []}');
    const options = {
      profiles,
      model: bot,
      userModel: user,
      judge,
      tools,
      oow: 0.5,
      sessions: 5,
      maxTurns: 6,
      seed: 3,
    };
    const report = await simulateSessions(refundPdl(), options);
    expect(report.perSession.map((session) => session.id)).toEqual(['p1#1', 'p2#1', 'p1#2', 'p2#2', 'p1#3']);
    expect(report.perSession.every((session) => session.ended === 'turn-limit' && session.turns === 6)).toBe(true);
    const injected = report.perSession.reduce((sum, session) => sum + session.oow.length, 0);
    expect(injected).toBeGreaterThan(5);
    expect(injected).toBeLessThan(25);
    // Every injected turn's user call carried an <oow> block, and no other did; never the first (it opens the request).
    expect(userCalls0(user).filter((c) => c.messages.length === 1 && readDialogBlock(c.system!, 'oow'))).toEqual([]);
    const userCalls = user.calls.filter((c) => c.tag?.purpose === 'simulate-user');
    expect(userCalls.filter((c) => readDialogBlock(c.system!, 'oow') !== undefined)).toHaveLength(injected);
    // Each session lands in the group of every category it had, or in none.
    for (const group of ['intent_switching', 'procedure_jumping', 'irrelevant_answering'] as const)
      expect(report.byOow[group]!.sessions).toBe(
        report.perSession.filter((session) => session.oow.some((tag) => tag.startsWith(`${group}/`))).length,
      );
    expect(report.byOow.none.sessions).toBe(report.perSession.filter((session) => session.oow.length === 0).length);
    // Same seed, same draws; another seed, other draws.
    const again = await simulateSessions(refundPdl(), options);
    expect(again.perSession.map((session) => session.oow)).toEqual(report.perSession.map((session) => session.oow));
    const other = await simulateSessions(refundPdl(), { ...options, seed: 4 });
    expect(other.perSession.map((session) => session.oow)).not.toEqual(report.perSession.map((session) => session.oow));
  });

  it('--oow 1 tags every turn but the first, --oow 0 none; a user who never says [END] stops at the turn limit', async () => {
    const { tools } = countingTools();
    const bot = functionModel(() => 'What else can I do for you?');
    const user = functionModel(() => 'Tell me a joke.');
    const judge = functionModel(() => '{"success": false, "achieved": []}');
    const base = { profiles, model: bot, userModel: user, judge, tools, sessions: 4, maxTurns: 5 };
    const always = await simulateSessions(refundPdl(), { ...base, oow: 1 });
    expect(always.perSession.map((session) => [session.oow.length, session.turns, session.ended])).toEqual(
      Array.from({ length: 4 }, () => [4, 5, 'turn-limit']),
    );
    expect(always.byOow.none.sessions).toBe(0);
    const never = await simulateSessions(refundPdl(), { ...base, oow: 0 });
    expect(never.perSession.every((session) => session.oow.length === 0 && session.turns === 5)).toBe(true);
    expect(never.byOow.none.sessions).toBe(4);
  });

  it('a user message the engine refuses is no out-of-workflow move, and the user model is not resent megabytes', async () => {
    const { tools } = countingTools();
    const bot = functionModel(() => 'What else can I do for you?');
    const user = functionModel(() => 'y'.repeat(2_000_000));
    const judge = functionModel(() => '{"success": false, "achieved": []}');
    const report = await simulateSessions(refundPdl(), {
      profiles: profiles.slice(0, 1),
      model: bot,
      userModel: user,
      judge,
      tools,
      oow: 1,
      maxTurns: 4,
    });
    expect(report.perSession[0]).toMatchObject({ oow: [], turns: 0, ended: 'turn-limit' });
    expect(bot.calls).toHaveLength(0);
    const last = userCalls0(user).at(-1)!;
    const sent = last.messages.reduce((sum, message) => sum + message.content.length, 0);
    expect(sent).toBeLessThan(20_000);
  });

  it('a failing session is recorded with its error and the batch goes on; a user error stops the batch', async () => {
    const { tools } = countingTools();
    const bot = functionModel(() => 'Hello.');
    const judge = functionModel(() => '{"success": true, "achieved": [0]}');
    const flaky = functionModel((c) => {
      if (c.tag?.key === 'p2#1') throw new WeftError('PROVIDER', 'the user model is down');
      return '[END]';
    });
    const flakyReport = await simulateSessions(refundPdl(), { profiles, model: bot, userModel: flaky, judge, tools });
    expect(flakyReport.perSession.map((session) => [session.id, session.error])).toEqual([
      ['p1#1', undefined],
      ['p2#1', 'the user model is down'],
    ]);
    expect(flakyReport).toMatchObject({ sessions: 2, errors: 1, success: 1 });

    const unconfigured = functionModel(() => {
      throw new WeftError('MODEL_CONFIG', 'OPENAI_API_KEY is not set');
    });
    await expect(
      simulateSessions(refundPdl(), { profiles, model: bot, userModel: unconfigured, judge, tools }),
    ).rejects.toThrow('OPENAI_API_KEY is not set');
    // The bot's failures are absorbed by the engine (an apology); the simulation still sees them.
    const talker = functionModel(() => 'Hello.');
    const error = await simulateSessions(refundPdl(), {
      profiles,
      model: unconfigured,
      userModel: talker,
      judge,
      tools,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WeftError);
    expect(error).toMatchObject({ code: 'MODEL_CONFIG', message: 'OPENAI_API_KEY is not set' });
    const down = functionModel(() => {
      throw new WeftError('PROVIDER', 'HTTP 503');
    });
    const report = await simulateSessions(refundPdl(), { profiles, model: down, userModel: talker, judge, tools });
    expect(report.perSession.map((session) => session.error)).toEqual([
      "the bot's model failed: PROVIDER: HTTP 503",
      "the bot's model failed: PROVIDER: HTTP 503",
    ]);
    expect(report.errors).toBe(2);
  });

  it('an abort stops the batch: the report covers the finished sessions and says cancelled', async () => {
    const { tools } = countingTools();
    const controller = new AbortController();
    let users = 0;
    const user = functionModel(() => {
      users += 1;
      if (users === 4) controller.abort();
      return '[END]';
    });
    const model = functionModel(() => '{"success": true, "achieved": [0]}');
    const report = await simulateSessions(refundPdl(), {
      profiles,
      model,
      userModel: user,
      judge: model,
      tools,
      sessions: 1_000,
      concurrency: 1,
      signal: controller.signal,
    });
    expect(report.cancelled).toEqual({ finished: report.perSession.length, of: 1_000 });
    expect(report.perSession.length).toBeGreaterThanOrEqual(3);
    expect(report.perSession.length).toBeLessThanOrEqual(4);
    expect(users).toBeLessThan(6);
  });

  it('zero-latency models do not starve the event loop: a timer (as a signal handler would) can stop the batch', async () => {
    const { tools } = countingTools();
    const instant = functionModel(() => '[END]');
    const judge = functionModel(() => '{"success": true, "achieved": [0]}');
    const controller = new AbortController();
    // Ctrl-C and SIGTERM reach the process as event-loop callbacks, as a timer does.
    setTimeout(() => controller.abort(), 0);
    const report = await simulateSessions(refundPdl(), {
      profiles,
      model: instant,
      userModel: instant,
      judge,
      tools,
      sessions: 100_000,
      concurrency: 1,
      signal: controller.signal,
    });
    expect(report.cancelled?.of).toBe(100_000);
    expect(report.perSession.length).toBeLessThan(1_000);
  });

  it('with sim models in every role, the same seeds repeat every session, whatever the order they finish in', async () => {
    const run = async (concurrency: number) => {
      const { tools, calls } = countingTools();
      const report = await simulateSessions(refundPdl(), {
        profiles,
        model: await createModel('sim:seed=1,violate=0.3'),
        userModel: await createModel('sim:seed=2'),
        judge: await createModel('sim:seed=3,noise=0.1'),
        tools,
        sessions: 24,
        oow: 0.3,
        concurrency,
      });
      return { report, calls: calls.length };
    };
    const first = await run(8);
    const second = await run(3);
    expect(second.report.perSession).toEqual(first.report.perSession);
    expect(second.calls).toBe(first.calls);
    expect(first.report.violationsProposed).toBeGreaterThan(0);
    expect(first.report.violationsExecuted).toBe(0);
  });

  it('refuses bad options before starting', async () => {
    const { tools } = countingTools();
    const model = functionModel(() => '[END]');
    const base = { profiles, model, userModel: model, judge: model, tools };
    await expect(simulateSessions(refundPdl(), { ...base, oow: 1.5 })).rejects.toThrow('probability between 0 and 1');
    await expect(simulateSessions(refundPdl(), { ...base, sessions: 0 })).rejects.toThrow('sessions');
    await expect(simulateSessions(refundPdl(), { ...base, sessions: 100_001 })).rejects.toThrow('at most 100000');
    await expect(simulateSessions(refundPdl(), { ...base, profiles: [] })).rejects.toThrow('no profiles');
    expect(model.calls).toHaveLength(0);
  });

  it.each([0, 2.5])(
    'rejects concurrency %s with BAD_INPUT naming the field, as every engine does',
    async (concurrency) => {
      const { tools } = countingTools();
      const model = functionModel(() => '[END]');
      await expect(
        simulateSessions(refundPdl(), { profiles, model, userModel: model, judge: model, tools, concurrency }),
      ).rejects.toMatchObject({
        code: 'BAD_INPUT',
        message: `concurrency expects an integer >= 1, got ${concurrency}`,
        location: { field: 'concurrency' },
      });
      expect(model.calls).toHaveLength(0);
    },
  );
});
