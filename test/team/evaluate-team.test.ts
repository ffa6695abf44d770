import { describe, expect, it } from 'vitest';
import { evaluateTeam } from '../../src/team/evaluate-team.js';
import type { TeamDatasetItem } from '../../src/team/team-dataset.js';
import type { TeamAgent } from '../../src/team/team.js';

/** An agent whose answer depends on the question only; it rates every peer 3 and answers after `delayMs`. */
function fakeAgent(
  name: string,
  answers: Readonly<Record<string, string>>,
  delayMs: (question: string) => number = () => 0,
): TeamAgent {
  return {
    name,
    kind: 'llm',
    async respond(input) {
      await new Promise((resolve) => setTimeout(resolve, delayMs(input.query.question)));
      const answer = answers[input.query.question] ?? '';
      return { answer, text: answer, ratings: input.peers.map(() => 3), ratingsParsed: true, calls: 1 };
    },
  };
}

const choices = ['p', 'q', 'r', 's'];
const items: TeamDatasetItem[] = [
  { id: 'i1', question: 'one', choices, answer: 'B', line: 1 },
  { id: 'i2', question: 'two', choices, answer: 'C', line: 2 },
  { id: 'i3', question: 'three', choices, answer: 'A', line: 3 },
  { id: 'i4', question: 'four', answer: '42', line: 4 },
];

/*
 * i1: all four say B → consensus at step 1, right (4 calls).
 * i2: a, b say C; c, d say D → 2 of 4 at steps 1 and 2, stop at max steps; the tie goes to C, given first: right (8).
 * i3: a says B, the others D → consensus on D at step 1: wrong (4).
 * i4: all say "42.0", which agrees with "42" as an exact answer: right (4).
 */
function team(delay?: (question: string) => number): TeamAgent[] {
  return [
    fakeAgent('a', { one: 'B', two: 'C', three: 'B', four: '42.0' }, delay),
    fakeAgent('b', { one: 'b', two: 'C', three: 'D', four: '42.0' }, delay),
    fakeAgent('c', { one: 'B', two: 'D', three: 'D', four: '42.0' }, delay),
    fakeAgent('d', { one: 'B', two: 'D', three: 'D', four: '42.0' }, delay),
  ];
}

describe('evaluateTeam', () => {
  it('measures accuracy, calls per query and early stops on hand-computed items', async () => {
    // Checked per layer, so every layer makes all four calls; per answer below.
    const result = await evaluateTeam({
      agents: team(),
      items,
      options: { maxSteps: 2, reformAt: 0, stopCheck: 'layer' },
    });
    expect(result).toStrictEqual({
      accuracy: 0.75,
      correct: 3,
      total: 4,
      callsPerQuery: 5,
      calls: 20,
      earlyStops: 3,
      meanStop: 1.25,
      failed: 0,
      ratingFallbacks: 0,
      rankerFallbacks: 0,
      perItem: [
        { id: 'i1', answer: 'B', expected: 'B', correct: true, calls: 4, stoppedAt: 1, stopReason: 'consensus' },
        { id: 'i2', answer: 'C', expected: 'C', correct: true, calls: 8, stoppedAt: 2, stopReason: 'max-steps' },
        { id: 'i3', answer: 'D', expected: 'A', correct: false, calls: 4, stoppedAt: 1, stopReason: 'consensus' },
        { id: 'i4', answer: '42.0', expected: '42', correct: true, calls: 4, stoppedAt: 1, stopReason: 'consensus' },
      ],
    });
    // Checked per answer (the default): where all four agree, the third answer already makes 3 of 4.
    const perAnswer = await evaluateTeam({ agents: team(), items, options: { maxSteps: 2, reformAt: 0 } });
    // (b's "b" may come first in i1 when a was not called: compared in upper case.)
    expect(perAnswer.perItem.map((item) => [item.id, item.calls, item.answer.toUpperCase()])).toStrictEqual([
      ['i1', 3, 'B'],
      ['i2', 8, 'C'],
      ['i3', perAnswer.perItem[2]!.calls, 'D'],
      ['i4', 3, '42.0'],
    ]);
    // i3 (a says B, the others D) stops after 3 calls when a is called last, else after 4.
    expect([3, 4]).toContain(perAnswer.perItem[2]!.calls);
  });

  it('rejects a bad concurrency with BAD_INPUT naming the field, as every engine does', async () => {
    await expect(
      evaluateTeam({ agents: team(() => 0), items, options: { maxSteps: 2, reformAt: 0 }, concurrency: 0 }),
    ).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: 'concurrency expects an integer >= 1, got 0',
      location: { field: 'concurrency' },
    });
  });

  it('keeps the dataset order when items finish out of order, and reports progress', async () => {
    const delays: Record<string, number> = { one: 40, two: 0, three: 25, four: 5 };
    const progress: [number, string][] = [];
    const result = await evaluateTeam({
      agents: team((question) => delays[question]!),
      items,
      options: { maxSteps: 2, reformAt: 0 },
      concurrency: 4,
      onProgress: ({ done, item }) => progress.push([done, item.id]),
    });
    expect(result.perItem.map((item) => item.id)).toStrictEqual(['i1', 'i2', 'i3', 'i4']);
    expect(progress.map(([done]) => done)).toStrictEqual([1, 2, 3, 4]);
    expect(progress.map(([, id]) => id).sort()).toStrictEqual(['i1', 'i2', 'i3', 'i4']);
    expect(progress[3]![1]).toBe('i1');
  });

  it('judges code with tests by running them, not by likeness to the reference solution', async () => {
    const tests = 'assert.equal(add(1, 2), 3);\nassert.equal(add(2, 2), 4);';
    const codeItems: TeamDatasetItem[] = [
      { id: 'good', question: 'add, good', answer: 'function add(a, b) { return b + a; }', tests, line: 1 },
      { id: 'bad', question: 'add, bad', answer: 'function add(a, b) { return b + a; }', tests, line: 2 },
    ];
    const coder = fakeAgent('coder', {
      'add, good': 'const add = (x, y) => x + y;',
      'add, bad': 'function add(a, b) { return a * b; }',
    });
    const result = await evaluateTeam({
      agents: [coder],
      items: codeItems,
      answerKind: 'code',
      options: { maxSteps: 1 },
    });
    expect(result.perItem.map((item) => [item.id, item.correct, item.tests])).toStrictEqual([
      ['good', true, { passed: 2, total: 2 }],
      ['bad', false, { passed: 1, total: 2 }],
    ]);
    expect(result.accuracy).toBe(0.5);
  });

  it('records an item whose run fails, counts it as wrong, and finishes the others', async () => {
    const flaky: TeamAgent = {
      name: 'e',
      kind: 'llm',
      async respond(input) {
        if (input.query.question === 'three') throw new Error('provider down');
        return { answer: 'B', text: 'B', ratings: input.peers.map(() => 3), ratingsParsed: true, calls: 1 };
      },
    };
    const result = await evaluateTeam({
      agents: [...team(), flaky],
      items,
      options: { maxSteps: 1, stopCheck: 'layer' },
    });
    expect(result).toMatchObject({ total: 4, failed: 1, correct: 3 });
    expect(result.perItem[2]).toMatchObject({
      id: 'i3',
      answer: '',
      expected: 'A',
      correct: false,
      calls: 0,
      stopReason: 'failed',
    });
    expect(result.perItem[2]!.error).toContain('provider down');
    // Calls per query and the mean stop are over the three finished items (5 calls each).
    expect(result.callsPerQuery).toBe(5);
    expect(result.meanStop).toBe(1);
  });

  it('stops when aborted and reports the items finished so far, saying it was cancelled', async () => {
    const controller = new AbortController();
    const delays: Record<string, number> = { one: 200, two: 0, three: 200, four: 5 };
    const run = evaluateTeam({
      agents: team((question) => delays[question]!),
      items,
      options: { maxSteps: 2, reformAt: 0 },
      concurrency: 4,
      signal: controller.signal,
      onProgress: ({ done }) => {
        if (done === 2) controller.abort();
      },
    });
    const result = await run;
    expect(result.cancelled).toStrictEqual({ finished: 2, of: 4 });
    expect(result.perItem.map((item) => item.id)).toStrictEqual(['i2', 'i4']);
    expect(result.total).toBe(2);
  });

  it('reports nothing finished when aborted before any item finished', async () => {
    const controller = new AbortController();
    const run = evaluateTeam({
      agents: team(() => 50),
      items,
      options: { maxSteps: 2, reformAt: 0 },
      signal: controller.signal,
    });
    controller.abort();
    const result = await run;
    expect(result).toMatchObject({ cancelled: { finished: 0, of: 4 }, total: 0, perItem: [] });
  });

  it('gives zero rates for no items', async () => {
    const result = await evaluateTeam({ agents: team(), items: [] });
    expect(result).toMatchObject({ accuracy: 0, callsPerQuery: 0, meanStop: 0, total: 0, perItem: [] });
  });
});
