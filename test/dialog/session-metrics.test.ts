import { describe, expect, it } from 'vitest';
import type { Pdl } from '../../src/dialog/pdl.js';
import type { SessionEvent } from '../../src/dialog/session-events.js';
import {
  countSessionEvents,
  multisetScores,
  paperScores,
  paperSessionTool,
  setCounts,
  scoresFromCounts,
  setScores,
  summarizeByOow,
  summarizeSessions,
  type SessionReport,
} from '../../src/dialog/session-metrics.js';

describe('tool precision, recall and F1', () => {
  it('over sets: repeats do not count, extra and missing names do', () => {
    // called {a, b, c}, required {a, b, d}: 2 hits, P = 2/3, R = 2/3, F1 = 2/3
    const scores = setScores(['a', 'b', 'a', 'c', 'b'], ['a', 'b', 'd']);
    expect(scores.precision).toBeCloseTo(2 / 3, 12);
    expect(scores.recall).toBeCloseTo(2 / 3, 12);
    expect(scores.f1).toBeCloseTo(2 / 3, 12);
  });

  it('over multisets: each repeat the reference lacks is a false positive', () => {
    // called a×2, b×2, c; required a, b, d: hits a, b = 2 of 5 called, 2 of 3 required
    const scores = multisetScores(['a', 'b', 'a', 'c', 'b'], ['a', 'b', 'd']);
    expect(scores.precision).toBeCloseTo(2 / 5, 12);
    expect(scores.recall).toBeCloseTo(2 / 3, 12);
    // 2PR/(P+R) = 2 · 0.4 · 0.6667 / 1.0667 = 0.5
    expect(scores.f1).toBeCloseTo(0.5, 12);
  });

  it('set and multiset agree when nothing is repeated, and differ as soon as something is', () => {
    expect(multisetScores(['a', 'b'], ['a', 'b'])).toEqual(setScores(['a', 'b'], ['a', 'b']));
    expect(setScores(['a', 'a', 'b'], ['a', 'b']).f1).toBe(1);
    expect(multisetScores(['a', 'a', 'b'], ['a', 'b']).f1).toBeCloseTo(0.8, 12); // P 2/3, R 1
  });

  it('a required API called twice counts twice in the multiset', () => {
    expect(multisetScores(['pay', 'pay'], ['pay', 'pay']).f1).toBe(1);
    expect(multisetScores(['pay'], ['pay', 'pay'])).toEqual({ precision: 1, recall: 0.5, f1: 2 / 3 });
  });

  it('empty sides: nothing called and nothing required is perfect; one side empty scores 0', () => {
    expect(setScores([], [])).toEqual({ precision: 1, recall: 1, f1: 1 });
    expect(setScores([], ['a'])).toEqual({ precision: 0, recall: 0, f1: 0 });
    expect(setScores(['a'], [])).toEqual({ precision: 0, recall: 0, f1: 0 });
    expect(scoresFromCounts(0, 3, 2)).toEqual({ precision: 0, recall: 0, f1: 0 });
  });
});

const pdl: Pick<Pdl, 'apis'> = {
  apis: [
    { name: 'check_order', request: ['order_id'], response: ['status'], precondition: [] },
    { name: 'refund', request: ['order_id'], response: ['refund_id'], precondition: ['check_order'] },
  ],
};

describe('countSessionEvents', () => {
  it('counts violations proposed from the state at the decision, executed from tool-call events', () => {
    const events: SessionEvent[] = [
      { type: 'user-message', at: 0, turn: 1, text: 'refund order 7' },
      {
        type: 'model-call',
        at: 1,
        turn: 1,
        attempt: 1,
        model: 'm',
        inputTokens: 5,
        outputTokens: 2,
        costUsd: 0.25,
        ms: 1,
      },
      // refund before check_order: a violation proposed, refused by two controllers (one rejection)
      {
        type: 'decision',
        at: 2,
        turn: 1,
        attempt: 1,
        action: { kind: 'tool', callId: 'c1', name: 'refund', args: {} },
      },
      {
        type: 'verdict',
        at: 3,
        turn: 1,
        attempt: 1,
        controller: 'dependency',
        action: 'tool:refund',
        accepted: false,
        reason: 'x',
      },
      {
        type: 'verdict',
        at: 3,
        turn: 1,
        attempt: 1,
        controller: 'repetition',
        action: 'tool:refund',
        accepted: false,
        reason: 'y',
      },
      {
        type: 'model-call',
        at: 4,
        turn: 1,
        attempt: 2,
        model: 'm',
        inputTokens: 5,
        outputTokens: 2,
        costUsd: 0.25,
        ms: 1,
      },
      {
        type: 'decision',
        at: 5,
        turn: 1,
        attempt: 2,
        action: { kind: 'tool', callId: 'c2', name: 'check_order', args: {} },
      },
      {
        type: 'verdict',
        at: 5,
        turn: 1,
        attempt: 2,
        controller: 'dependency',
        action: 'tool:check_order',
        accepted: true,
      },
      { type: 'tool-call', at: 6, turn: 1, callId: 'c2', name: 'check_order', args: {}, preconditionsMet: true },
      // the first check fails: refund is still unavailable
      { type: 'tool-result', at: 7, turn: 1, callId: 'c2', name: 'check_order', ok: false, error: 'down', ms: 1 },
      {
        type: 'decision',
        at: 8,
        turn: 1,
        attempt: 3,
        action: { kind: 'tool', callId: 'c3', name: 'refund', args: {} },
      },
      // executed anyway (no post controllers): a violation executed
      { type: 'tool-call', at: 9, turn: 1, callId: 'c3', name: 'refund', args: {}, preconditionsMet: false },
      { type: 'tool-result', at: 10, turn: 1, callId: 'c3', name: 'refund', ok: true, result: {}, ms: 1 },
      { type: 'user-message', at: 11, turn: 2, text: 'again' },
      {
        type: 'decision',
        at: 12,
        turn: 2,
        attempt: 1,
        action: { kind: 'tool', callId: 'c4', name: 'check_order', args: {} },
      },
      { type: 'tool-call', at: 13, turn: 2, callId: 'c4', name: 'check_order', args: {}, preconditionsMet: true },
      { type: 'tool-result', at: 14, turn: 2, callId: 'c4', name: 'check_order', ok: true, result: {}, ms: 1 },
      // now check_order has succeeded: no violation
      {
        type: 'decision',
        at: 15,
        turn: 2,
        attempt: 2,
        action: { kind: 'tool', callId: 'c5', name: 'refund', args: {} },
      },
      { type: 'decision', at: 16, turn: 2, attempt: 3, action: { kind: 'reply', text: 'done' } },
      { type: 'bot-reply', at: 17, turn: 2, text: 'done' },
    ];
    expect(countSessionEvents(pdl, events)).toEqual({
      calledApis: ['check_order', 'refund', 'check_order'],
      // Every proposal, refused ones included (c1 was refused, c5 proposed after the last call).
      proposedApis: ['refund', 'check_order', 'refund', 'check_order', 'refund'],
      violationsProposed: 2,
      violationsExecuted: 1,
      rejections: 1,
      turns: 2,
      modelCalls: 2,
      costUsd: 0.5,
    });
  });
});

describe("the FlowAgent paper's session tool scores", () => {
  it('per session: sets of proposed names against required_apis, 0 where a denominator is 0', () => {
    expect(setCounts(['a', 'b', 'a', 'c'], ['a', 'b', 'd'])).toEqual({
      truePositives: 2,
      falsePositives: 1,
      falseNegatives: 1,
    });
    // Nothing required, nothing proposed: the paper scores 0, Weft 1.
    expect(paperSessionTool([], [])).toEqual({
      truePositives: 0,
      falsePositives: 0,
      falseNegatives: 0,
      toolPrecision: 0,
      toolRecall: 0,
      toolF1: 0,
    });
    expect(setScores([], []).f1).toBe(1);
    // No required_apis in the profile: not computable, never a score.
    expect(paperSessionTool(['a'], undefined)).toEqual({
      toolPrecision: null,
      toolRecall: null,
      toolF1: null,
      notComputable: 'the profile lists no required_apis: the tool scores cannot be computed',
    });
    expect(paperScores({ truePositives: 0, falsePositives: 2, falseNegatives: 0 })).toEqual({
      precision: 0,
      recall: 0,
      f1: 0,
    });
  });

  it("micro-averaged over sessions, beside Weft's macro mean over called APIs (computed by hand)", () => {
    // A: required {a, b}, proposed a, b and c (c refused, never called), called a and b.
    // B: required {a, b, d}, proposed and called a.
    // C: nothing required (an explicit []), nothing proposed.
    // D: the profile has no required_apis.
    const reports = [
      scored({ id: 'A', calledApis: ['a', 'b'], proposedApis: ['a', 'b', 'c'] }, ['a', 'b']),
      scored({ id: 'B', calledApis: ['a'], proposedApis: ['a'] }, ['a', 'b', 'd']),
      scored({ id: 'C' }, []),
      scored({ id: 'D', calledApis: ['a'], proposedApis: ['a'] }, undefined),
    ];
    const summary = summarizeSessions(reports);
    // Paper: TP = 2 + 1 + 0 = 3, FP = 1 + 0 + 0 = 1, FN = 0 + 2 + 0 = 2 (D left out).
    expect(summary.paper.toolCounts).toEqual({ truePositives: 3, falsePositives: 1, falseNegatives: 2 });
    expect(summary.paper.toolPrecision).toBeCloseTo(3 / 4, 12);
    expect(summary.paper.toolRecall).toBeCloseTo(3 / 5, 12);
    // 2 · 0.75 · 0.6 / 1.35
    expect(summary.paper.toolF1).toBeCloseTo(2 / 3, 12);
    expect(summary.paper.toolSessions).toBe(3);
    expect(summary.paper.note).toBe(
      '1 of 4 finished sessions left out of the tool scores: their profiles list no required_apis',
    );
    // Weft: per session over the called APIs — A 1, B (P 1, R 1/3) 0.5, C 1 (nothing asked, nothing done) — then
    // the mean; D has none.
    expect(reports.map((report) => report.toolF1)).toEqual([1, 0.5, 1, null]);
    expect(summary.toolF1).toBeCloseTo(2.5 / 3, 12);
    expect(summary.toolSessions).toBe(3);
    // With no profile listing required_apis, neither protocol gives a tool score.
    const none = summarizeSessions([reports[3]!]);
    expect(none.toolF1).toBeNull();
    expect(none.paper).toMatchObject({ toolF1: null, toolPrecision: null, toolRecall: null, toolSessions: 0 });
    expect(none.paper.note).toMatch(/cannot be computed/);
  });

  it("counts the model calls and cost of simulated API answers as the session's", () => {
    const counts = countSessionEvents(pdl, [
      {
        type: 'tool-result',
        at: 0,
        turn: 1,
        callId: 'c',
        name: 'check_order',
        ok: true,
        result: {},
        ms: 1,
        simulation: { model: 'm', calls: 2, inputTokens: 10, outputTokens: 3, costUsd: 0.5 },
      },
    ]);
    expect(counts).toMatchObject({ modelCalls: 2, costUsd: 0.5 });
  });
});

/** A report with the tool scores a session of these calls and this profile gets (both protocols). */
function scored(overrides: Partial<SessionReport>, required: readonly string[] | undefined): SessionReport {
  const called = overrides.calledApis ?? [];
  const proposed = overrides.proposedApis ?? [];
  return session({
    ...overrides,
    toolF1: required ? setScores(called, required).f1 : null,
    toolF1Multiset: required ? multisetScores(called, required).f1 : null,
    paper: paperSessionTool(proposed, required),
  });
}

function session(overrides: Partial<SessionReport>): SessionReport {
  return {
    id: 'p#1',
    profile: 'p',
    oow: [],
    success: true,
    progress: 1,
    achieved: [0],
    toolF1: 1,
    toolF1Multiset: 1,
    calledApis: [],
    proposedApis: [],
    paper: paperSessionTool([], []),
    violationsProposed: 0,
    violationsExecuted: 0,
    rejections: 0,
    turns: 4,
    calls: 10,
    costUsd: 0.1,
    ...overrides,
  };
}

describe('summaries', () => {
  const sessions = [
    session({ id: 'a', success: true, progress: 1, toolF1: 1, toolF1Multiset: 0.5, turns: 4, calls: 10 }),
    session({
      id: 'b',
      oow: ['intent_switching/cancellation', 'procedure_jumping/go_back', 'intent_switching/detail_switching'],
      success: false,
      progress: 0.5,
      toolF1: 0.5,
      toolF1Multiset: 0.25,
      violationsProposed: 2,
      violationsExecuted: 1,
      rejections: 1,
      turns: 6,
      calls: 20,
      costUsd: 0.3,
    }),
    session({
      id: 'c',
      oow: ['intent_switching/cancellation'],
      success: false,
      progress: 0,
      toolF1: 0,
      toolF1Multiset: 0,
      violationsExecuted: 2,
      turns: 1,
      calls: 2,
      costUsd: 0.05,
      error: 'provider down',
    }),
  ];

  it('means over finished sessions; violation totals and cost over all of them', () => {
    const summary = summarizeSessions(sessions);
    expect(summary).toMatchObject({
      sessions: 3,
      errors: 1,
      success: 0.5,
      progress: 0.75,
      toolF1: 0.75,
      toolF1Multiset: 0.375,
      violationsProposed: 2,
      violationsExecuted: 3,
      rejections: 1,
      turns: 5,
      calls: 15,
    });
    expect(summary.costUsd).toBeCloseTo(0.45, 12);
  });

  it('a session counts once under each category it had an injected turn of, and under none when it had none', () => {
    const byOow = summarizeByOow(sessions);
    expect(byOow.none.sessions).toBe(1);
    expect(byOow.intent_switching!.sessions).toBe(2);
    expect(byOow.procedure_jumping!.sessions).toBe(1);
    expect(byOow.irrelevant_answering).toMatchObject({ sessions: 0, success: 0, progress: 0 });
    expect(byOow.intent_switching).toMatchObject({ errors: 1, success: 0, progress: 0.5, violationsExecuted: 3 });
  });
});
