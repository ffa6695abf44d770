/** The FlowAgent paper's turn-level figures, computed by hand on turns built here (turn-metrics.ts). */
import { describe, expect, it } from 'vitest';
import { paramValues, summarizePaperTurns, summarizeTurns, type TurnReport } from '../../src/dialog/turn-metrics.js';

const call = (name: string, args: Record<string, unknown>) => ({ kind: 'tool' as const, name, args });
const reply = (text: string) => ({ kind: 'reply' as const, text });

function turn(session: string, index: number, fields: Partial<TurnReport>): TurnReport {
  return { session, index, turn: 1, reference: reply('r'), prediction: reply('p'), consistent: true, ...fields };
}

describe("the paper's turn-level figures", () => {
  const turns: TurnReport[] = [
    // Session A: three moves, scores 10, 8, 9.
    turn('A', 1, {
      reference: call('find', { email: 'a@x.io', n: 1 }),
      prediction: call('find', { mail: 'a@x.io', n: '1' }),
      score: 10,
    }),
    turn('A', 2, { reference: call('book', { id: 'B-1' }), prediction: reply('Which room?'), score: 8 }),
    turn('A', 3, { score: 9, rightAfterOow: true }),
    // Session B: one move, score 3: a call where the reference replied.
    turn('B', 1, { prediction: call('book', { id: 'B-2' }), score: 3, consistent: false }),
    // A failed turn counts nowhere.
    turn('B', 2, { score: 10, error: 'judge down' }),
  ];

  it('pass at 9 or more; mean score over sessions, not over turns', () => {
    const paper = summarizePaperTurns(turns);
    // Passes: 10 and 9 of the four judged turns.
    expect(paper.passRate).toBe(0.5);
    // Session means: A (10 + 8 + 9) / 3 = 9, B 3 → (9 + 3) / 2 = 6 (over turns it would be 30 / 4 = 7.5).
    expect(paper.meanScore).toBe(6);
  });

  it('tool names micro-averaged, 0 where a denominator is 0; parameters as sets of values', () => {
    const paper = summarizePaperTurns(turns);
    // Tools: A1 find/find TP; A2 book/– FN; B1 –/book FP → P 1/2, R 1/2.
    expect(paper.toolCounts).toEqual({ truePositives: 1, falsePositives: 1, falseNegatives: 1 });
    expect(paper.toolF1).toBe(0.5);
    // Values, names ignored, "1" and 1 one value: A1 {a@x.io, 1} vs {a@x.io, 1} → 2 TP; A2 {B-1} vs {} → 1 FN;
    // B1 {} vs {B-2} → 1 FP. P = 2/3, R = 2/3.
    expect(paper.paramsCounts).toEqual({ truePositives: 2, falsePositives: 1, falseNegatives: 1 });
    expect(paper.paramsF1).toBeCloseTo(2 / 3, 12);
    // Weft's pairs keep the names: mail=… is not email=…, and "1" is not 1.
    expect(summarizeTurns(turns).params.precision).toBe(0);
    expect(paramValues(call('x', { a: 'v', b: 'v', c: { k: [1] } }))).toEqual(['v', '{"k":[1]}']);
  });

  it('with no tool move anywhere the paper scores 0, Weft 1 (shown as not applicable)', () => {
    const replies = [turn('C', 1, { score: 9 })];
    expect(summarizePaperTurns(replies)).toMatchObject({ toolF1: 0, paramsF1: 0, passRate: 1, meanScore: 9 });
    expect(summarizeTurns(replies).tool.f1).toBe(1);
    expect(summarizePaperTurns([])).toMatchObject({ passRate: 0, meanScore: 0, toolF1: 0 });
  });
});
