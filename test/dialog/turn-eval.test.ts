import { describe, expect, it } from 'vitest';
import { parseReferenceSessions } from '../../src/dialog/reference-sessions.js';
import { evaluateTurns } from '../../src/dialog/turn-eval.js';
import { WeftError } from '../../src/errors.js';
import { readDialogBlock } from '../../src/dialog/dialog-prompt-tags.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { countingTools, refundPdl } from './dialog-fixtures.js';

const references = parseReferenceSessions(
  JSON.stringify({
    id: 'r1',
    messages: [
      { role: 'user', content: 'Refund O-1, I am a@x.io' },
      { role: 'bot', tool: 'find_customer', args: { email: 'a@x.io' }, result: { customer_id: 'C-1' } },
      { role: 'bot', tool: 'get_order', args: { order_id: 'O-1' }, result: { status: 'delivered' } },
      { role: 'bot', content: 'Delivered. Shall I refund it?' },
      { role: 'user', content: 'What is the weather like?', oow: 'irrelevant_answering/topic_shift' },
      { role: 'bot', content: 'I cannot tell. Shall I refund O-1?' },
    ],
  }),
  'r.jsonl',
);

describe('evaluateTurns', () => {
  it('predicts each move from the reference prefix, with pre-decision guidance, and scores it', async () => {
    const { tools, calls } = countingTools();
    const bot = scriptedModel([
      { text: '', toolCalls: [{ name: 'find_customer', args: { email: 'a@x.io' } }] },
      // the wrong API (with the reference's order_id)
      { text: '', toolCalls: [{ name: 'refund_order', args: { order_id: 'O-1' } }] },
      { text: 'Delivered. Refund?' },
      { text: 'Sunny! Anything else?' },
    ]);
    const judge = scriptedModel([
      { text: '{"consistent": true, "score": 10}' },
      { text: '{"consistent": false, "score": 4}' },
      { text: '{"consistent": true, "score": 9}' },
      { text: 'not json' },
      { text: '{"consistent": false, "score": 3, "reason": "did not lead back"}' },
    ]);
    const report = await evaluateTurns(refundPdl(), references, { model: bot, judge, tools, concurrency: 1 });
    expect(calls).toEqual([]); // nothing is executed
    expect(report.perTurn.map((turn) => [turn.index, turn.turn, turn.oow, turn.consistent])).toEqual([
      [1, 1, undefined, true],
      [2, 1, undefined, false],
      [3, 1, undefined, true],
      [5, 2, 'irrelevant_answering/topic_shift', false],
    ]);
    expect(report).toMatchObject({ turns: 4, errors: 0, passRate: 0.5, toolTurns: 2, simulated: true, calls: 9 });
    // tool: tp find_customer; get_order vs refund_order → fp 1, fn 1: P = R = 1/2
    expect(report.tool).toEqual({ precision: 0.5, recall: 0.5, f1: 0.5 });
    // params: email="a@x.io" and order_id="O-1" are the reference's pairs (the API differs) → P = R = 1
    expect(report.params).toEqual({ precision: 1, recall: 1, f1: 1 });
    expect(report.byOow.oow).toMatchObject({ turns: 1, passRate: 0, toolTurns: 0 });
    expect(report.byOow.none).toMatchObject({ turns: 3, toolTurns: 2 });
    expect(report.byOow.none.passRate).toBeCloseTo(2 / 3, 12);
    // The paper's protocol over the same judgements, by hand: scores 10, 4, 9, 3 → 2 of 4 at 9 or more; one session,
    // so the mean score is its mean, 26 / 4. Tools as above but counted the paper's way (no turn scores 0/0 here);
    // parameters as value sets: {"a@x.io"} and {"O-1"} both match. Only the move right after the out-of-workflow
    // message (index 5) is out of workflow.
    expect(report.perTurn.map((turn) => turn.score)).toEqual([10, 4, 9, 3]);
    expect(report.paper).toMatchObject({
      passRate: 0.5,
      meanScore: 6.5,
      toolPrecision: 0.5,
      toolRecall: 0.5,
      toolF1: 0.5,
      paramsPrecision: 1,
      paramsRecall: 1,
      paramsF1: 1,
      oow: { turns: 1, passRate: 0, meanScore: 3 },
    });
    expect(report.paper.iw.turns).toBe(3);
    expect(report.paper.iw.passRate).toBeCloseTo(2 / 3, 12);
    expect(report.paper.iw.meanScore).toBeCloseTo(23 / 3, 12);
    // The second move's prefix holds the first call and its recorded result; the dependency controller's guidance
    // (refund_order not yet available) is in the prompt.
    const second = bot.calls[1]!;
    expect(second.messages.at(-1)).toMatchObject({
      role: 'tool',
      name: 'find_customer',
      content: '{"customer_id":"C-1"}',
    });
    // find_customer has succeeded in the prefix: only refund_order still waits (for get_order).
    expect(second.system).toContain('- refund_order (needs get_order first)');
    expect(second.system).not.toContain('- get_order (needs');
    expect(bot.calls[0]!.system).toContain('- get_order (needs find_customer first)');
    expect(second.tag).toMatchObject({ purpose: 'converse', key: 'r1/2#1' });
    // The judge saw both moves in tagged blocks.
    expect(readDialogBlock(judge.calls[1]!.messages[0]!.content, 'prediction')).toEqual({
      kind: 'tool',
      name: 'refund_order',
      args: { order_id: 'O-1' },
    });
  });

  it('declares APIs without tools from the PDL; a failing move is recorded; a user error stops', async () => {
    const bot = scriptedModel([{ text: 'ok' }]);
    const judge = scriptedModel([{ text: '{"consistent": true, "score": 9}', repeat: true }]);
    const report = await evaluateTurns(refundPdl(), references, { model: bot, judge, concurrency: 1 });
    // The script has one reply: the other three moves fail with SCRIPT_EXHAUSTED and are left out.
    expect(report).toMatchObject({ turns: 1, errors: 3, passRate: 1 });
    expect(report.perTurn[1]!.error).toMatch(/no reply left|exhausted/i);
    expect(bot.calls[0]!.tools?.map((tool) => tool.name)).toEqual(['find_customer', 'get_order', 'refund_order']);

    const unconfigured = {
      id: 'x',
      kind: 'real' as const,
      generate: async () => {
        throw new WeftError('MODEL_CONFIG', 'no key');
      },
    };
    await expect(evaluateTurns(refundPdl(), references, { model: unconfigured, judge })).rejects.toThrow('no key');
  });

  it.each([0, 1.5])('rejects concurrency %s with BAD_INPUT naming the field, before any call', async (concurrency) => {
    const bot = scriptedModel([]);
    const judge = scriptedModel([]);
    let calls = 0;
    const counting = {
      ...bot,
      generate: (...args: Parameters<typeof bot.generate>) => (calls++, bot.generate(...args)),
    };
    await expect(evaluateTurns(refundPdl(), references, { model: counting, judge, concurrency })).rejects.toMatchObject(
      {
        code: 'BAD_INPUT',
        message: `concurrency expects an integer >= 1, got ${concurrency}`,
        location: { field: 'concurrency' },
      },
    );
    expect(calls).toBe(0);
  });

  it("shows a tool's secret arguments redacted in the report, and scores them with their real values", async () => {
    const { tools } = countingTools();
    const secret = tools.map((tool) => (tool.name === 'find_customer' ? { ...tool, secretArgs: ['email'] } : tool));
    const bot = scriptedModel([{ text: '', toolCalls: [{ name: 'find_customer', args: { email: 'wrong@x.io' } }] }]);
    const judge = scriptedModel([{ text: '{"consistent": false, "score": 2}', repeat: true }]);
    const one = references.map((reference) => ({ ...reference, messages: reference.messages.slice(0, 2) }));
    const report = await evaluateTurns(refundPdl(), one, { model: bot, judge, tools: secret, concurrency: 1 });
    expect(report.perTurn[0]!.reference).toEqual({
      kind: 'tool',
      name: 'find_customer',
      args: { email: '[redacted]' },
    });
    expect(report.perTurn[0]!.prediction).toEqual({
      kind: 'tool',
      name: 'find_customer',
      args: { email: '[redacted]' },
    });
    expect(report.params).toEqual({ precision: 0, recall: 0, f1: 0 });
    expect(JSON.stringify(report)).not.toContain('a@x.io');
  });
});

describe('evaluateTurns against big input and zero-latency models', () => {
  /** One user message, then `moves` bot replies. */
  const long = (moves: number) =>
    parseReferenceSessions(
      JSON.stringify({
        id: 'long',
        messages: [
          { role: 'user', content: 'hi' },
          ...Array.from({ length: moves }, () => ({ role: 'bot', content: 'a' })),
        ],
      }),
      'long.jsonl',
    );

  it('a timer (as Ctrl-C or SIGTERM would) stops the evaluation: the models never wait, the loop is not starved', async () => {
    const instant = scriptedModel([{ text: '{"consistent": true, "score": 9}', repeat: true }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 0);
    const report = await evaluateTurns(refundPdl(), long(20_000), {
      model: instant,
      judge: instant,
      concurrency: 1,
      signal: controller.signal,
    });
    expect(report.cancelled?.of).toBe(20_000);
    expect(report.perTurn.length).toBeLessThan(1_000);
  });

  it('a session of 30,000 moves does not hold 30,000 prefixes at once', async () => {
    const controller = new AbortController();
    let judged = 0;
    const bot = scriptedModel([{ text: 'a', repeat: true }]);
    const judge = {
      ...scriptedModel([{ text: '{"consistent": true, "score": 9}', repeat: true }]),
      kind: 'scripted' as const,
      async generate() {
        judged += 1;
        if (judged === 3) controller.abort();
        return { text: '{"consistent": true, "score": 9}', usage: { inputTokens: 1, outputTokens: 1 }, model: 'j' };
      },
    };
    const references = long(30_000);
    const before = process.memoryUsage().heapUsed;
    const report = await evaluateTurns(refundPdl(), references, {
      model: bot,
      judge,
      concurrency: 2,
      signal: controller.signal,
    });
    // All prefixes at once are 30,000²/2 message references (3.6 GB); a few at a time are a few megabytes.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(300_000_000);
    expect(report.cancelled).toMatchObject({ of: 30_000 });
  });
});

describe('evaluateTurns with simulated APIs', () => {
  it('a reference call recorded without an answer gets one from the API model; recorded ones keep theirs', async () => {
    const unanswered = parseReferenceSessions(
      JSON.stringify({
        id: 'r2',
        messages: [
          { role: 'user', content: 'Refund O-1, I am a@x.io' },
          { role: 'bot', tool: 'find_customer', args: { email: 'a@x.io' } },
          { role: 'bot', tool: 'get_order', args: { order_id: 'O-1' }, result: { status: 'delivered' } },
          { role: 'bot', content: 'Shall I refund it?' },
        ],
      }),
      'r.jsonl',
    );
    const api = scriptedModel([{ text: '{"status": 200, "data": {"customer_id": "C-77"}}' }]);
    const bot = scriptedModel([{ text: 'ok', repeat: true }]);
    const judge = scriptedModel([{ text: '{"consistent": false, "score": 3}', repeat: true }]);
    const report = await evaluateTurns(refundPdl(), unanswered, {
      model: bot,
      judge,
      simulateApis: true,
      apiModel: api,
      concurrency: 1,
    });
    expect(report.simulatedResults).toBe(1);
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]!.messages[0]!.content).toContain('Customer: Refund O-1, I am a@x.io');
    // The second move's prefix shows the simulated answer as the API's; the third's the recorded one too.
    const prefix = JSON.stringify(bot.calls[1]!.messages);
    expect(prefix).toContain('C-77');
    expect(JSON.stringify(bot.calls[2]!.messages)).toContain('delivered');
    expect(report.calls).toBe(1 + 3 + 3);
    // Without the flag nothing is asked, and the call shows as having answered null.
    const plain = await evaluateTurns(refundPdl(), unanswered, {
      model: scriptedModel([{ text: 'ok', repeat: true }]),
      judge,
      concurrency: 1,
    });
    expect(plain.simulatedResults).toBe(0);
  });
});
