import { describe, expect, it } from 'vitest';
import { apiTools } from '../../src/dialog/turn-eval.js';
import { paramPairs, summarizeTurns, type TurnReport } from '../../src/dialog/turn-metrics.js';

const base = { session: 's', index: 1, turn: 1 };
const tool = (name: string, args: Record<string, unknown>) => ({ kind: 'tool' as const, name, args });
const reply = (text: string) => ({ kind: 'reply' as const, text });

describe('paramPairs', () => {
  it('pairs top-level names with canonical JSON values (key order does not matter)', () => {
    expect(paramPairs(tool('x', { b: { y: 1, x: [2] }, a: 'A' }))).toEqual(['b={"x":[2],"y":1}', 'a="A"']);
    expect(paramPairs(tool('x', { b: { x: [2], y: 1 } }))).toEqual(paramPairs(tool('x', { b: { y: 1, x: [2] } })));
    expect(paramPairs(reply('hi'))).toEqual([]);
    expect(paramPairs({ kind: 'tool', name: 'x', args: 'not an object' })).toEqual([]);
    expect(paramPairs(undefined)).toEqual([]);
  });
});

describe('summarizeTurns', () => {
  it('hand-computed pass rate, tool and parameter precision/recall/F1', () => {
    const turns: TurnReport[] = [
      // right tool, one of two parameters right, one extra: tool tp; params tp 1, fp 1, fn 1
      {
        ...base,
        reference: tool('refund', { order_id: 'A-1', amount: 20 }),
        prediction: tool('refund', { order_id: 'A-1', amount: 25 }),
        consistent: false,
      },
      // wrong tool: tool fp + fn; params: ref 1 pair, pred 1 pair, same pair → tp 1
      {
        ...base,
        reference: tool('check_order', { order_id: 'A-1' }),
        prediction: tool('cancel_order', { order_id: 'A-1' }),
        consistent: false,
      },
      // a call where the reference replied: tool fp; params fp 1
      {
        ...base,
        reference: reply('Which order?'),
        prediction: tool('check_order', { order_id: 'B' }),
        consistent: false,
      },
      // a reply where the reference called: tool fn; params fn 1
      { ...base, reference: tool('check_order', { order_id: 'C' }), prediction: reply('Sure'), consistent: false },
      // replies both: not a tool turn
      { ...base, reference: reply('Hello'), prediction: reply('Hi'), consistent: true },
      { ...base, reference: tool('x', {}), prediction: tool('x', {}), consistent: true },
      // failed: left out
      { ...base, reference: tool('x', { a: 1 }), consistent: false, error: 'provider down' },
    ];
    const summary = summarizeTurns(turns);
    expect(summary.turns).toBe(6);
    expect(summary.errors).toBe(1);
    expect(summary.passRate).toBeCloseTo(2 / 6, 12);
    expect(summary.toolTurns).toBe(5);
    // tool: tp 2 (refund, x), fp 2 (cancel_order, check_order), fn 2 (check_order ×2)
    expect(summary.tool.precision).toBeCloseTo(0.5, 12);
    expect(summary.tool.recall).toBeCloseTo(0.5, 12);
    expect(summary.tool.f1).toBeCloseTo(0.5, 12);
    // params: tp 2, fp 2 (amount=25, order_id="B"), fn 2 (amount=20, order_id="C")
    expect(summary.params).toEqual({ precision: 0.5, recall: 0.5, f1: 0.5 });
  });

  it('no turns at all: zero pass rate and no tool turns', () => {
    expect(summarizeTurns([])).toMatchObject({ turns: 0, errors: 0, passRate: 0, toolTurns: 0 });
  });
});

describe('apiTools', () => {
  it('uses the given tools by name, in PDL order, and declares the others from the PDL without running them', async () => {
    const given = {
      name: 'check_order',
      description: 'real',
      inputSchema: { type: 'object' },
      source: 'module',
      call: async () => 'ok',
    };
    const tools = apiTools(
      {
        slots: [{ name: 'order_id', desc: 'The order number' }],
        apis: [
          { name: 'refund', desc: 'Refund an order', request: ['order_id', 'amount'], response: [], precondition: [] },
          { name: 'check_order', request: ['order_id'], response: [], precondition: [] },
        ],
      },
      [given],
    );
    expect(tools.map((item) => item.name)).toEqual(['refund', 'check_order']);
    expect(tools[1]).toBe(given);
    expect(tools[0]!.inputSchema).toEqual({
      type: 'object',
      properties: { order_id: { description: 'The order number' }, amount: {} },
    });
    await expect(tools[0]!.call({}, { signal: new AbortController().signal })).rejects.toThrow('never called');
  });
});
