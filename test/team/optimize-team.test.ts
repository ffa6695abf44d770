import { describe, expect, it } from 'vitest';
import { WeftError, isAbortError } from '../../src/errors.js';
import { optimizeTeam } from '../../src/team/optimize-team.js';
import type { Ranker } from '../../src/team/run-team.js';
import type { TeamAgent, TeamQuery } from '../../src/team/team.js';

/** An agent with a fixed answer that rates each peer by name from a table chosen by the question. */
function fakeAgent(
  name: string,
  answer: string,
  ratings: (question: string) => Readonly<Record<string, number>>,
): TeamAgent & { questions: string[] } {
  const questions: string[] = [];
  return {
    name,
    kind: 'llm',
    questions,
    async respond(input) {
      questions.push(input.query.question);
      const table = ratings(input.query.question);
      return {
        answer,
        text: `${name}: ${answer}`,
        ratings: input.peers.map((peer) => table[peer.agent]!),
        ratingsParsed: true,
        calls: 1,
      };
    },
  };
}

const choices = ['w', 'x', 'y', 'z'];
const q1: TeamQuery = { question: 'q1', choices, kind: 'choice' };
const q2: TeamQuery = { question: 'q2', choices, kind: 'choice' };

describe('optimizeTeam', () => {
  /*
   * alpha and beta always answer A (right), gamma B and delta C. Two layers, no reformation; no layer reaches
   * consensus (2 of 4), so both layers run and the final answer is A.
   * Layer 2: alpha and beta agree with A → ½ each. Every rater gives the same ratings, summing to 10:
   *   q1: alpha 5, beta 3, gamma 1, delta 1 → layer 1 = (½ + ½) × rating / 10 = .5, .3, .1, .1
   *   q2: alpha 2, beta 5, gamma 2, delta 1 → .2, .5, .2, .1
   * Totals: alpha ½ + .5 + ½ + .2 = 1.7, beta 1.8, gamma .3, delta .2.
   */
  const table = (question: string) =>
    question === 'q1' ? { alpha: 5, beta: 3, gamma: 1, delta: 1 } : { alpha: 2, beta: 5, gamma: 2, delta: 1 };
  const pool = () => [
    fakeAgent('gamma', 'B', table),
    fakeAgent('alpha', 'A', table),
    fakeAgent('delta', 'C', table),
    fakeAgent('beta', 'A', table),
  ];

  it('sums importance over the queries and picks the top k, best first', async () => {
    const agents = pool();
    const result = await optimizeTeam({ pool: agents, queries: [q1, q2], k: 2, run: { maxSteps: 2, reformAt: 0 } });
    expect(result.chosen).toStrictEqual(['beta', 'alpha']);
    expect(result.dropped).toStrictEqual(['gamma', 'delta']);
    const expected = { alpha: 1.7, beta: 1.8, gamma: 0.3, delta: 0.2 };
    for (const [agent, total] of Object.entries(expected)) {
      expect(result.scores[agent]!.total).toBeCloseTo(total, 12);
      expect(result.scores[agent]!.mean).toBeCloseTo(total / 2, 12);
      expect(result.scores[agent]!.queries).toBe(2);
    }
    expect(result.calls).toBe(16);
    expect(result.callsPerQuery).toBe(8);
    expect(result.perQuery.map((q) => [q.query.question, q.answer, q.calls, q.stoppedAt])).toStrictEqual([
      ['q1', 'A', 8, 2],
      ['q2', 'A', 8, 2],
    ]);
    expect(result.perQuery[0]!.importance.alpha).toBeCloseTo(1.0, 12);
    expect(result.perQuery[1]!.importance.beta).toBeCloseTo(1.0, 12);
    // Every agent answered both questions at both steps.
    expect(agents.map((agent) => agent.questions.length)).toStrictEqual([4, 4, 4, 4]);
  });

  it('stops starting queries once a budget is spent, lists them as not run, and scores what finished', async () => {
    const agents = pool();
    // The fourth agent's model refuses from the second query on: that query fails with the budget's error.
    const budgeted = agents.map((agent) =>
      agent.name !== 'beta'
        ? agent
        : {
            ...agent,
            async respond(input: Parameters<TeamAgent['respond']>[0]) {
              if (input.query.question !== 'q1')
                throw new WeftError('BUDGET', 'Budget exhausted: call budget of 8 reached');
              return agent.respond(input);
            },
          },
    );
    const queries = [q1, q2, { ...q1, question: 'q3' }, { ...q2, question: 'q4' }];
    const result = await optimizeTeam({
      pool: budgeted,
      queries,
      k: 2,
      run: { maxSteps: 2, reformAt: 0 },
      concurrency: 1,
    });
    expect(result.perQuery.map((query) => query.query.question)).toStrictEqual(['q1']);
    expect(result.failed.map((failure) => failure.index)).toStrictEqual([1, 2, 3]);
    const spent = 'team: agent "beta" failed at step 1: Budget exhausted: call budget of 8 reached';
    expect(result.failed[0]!.error).toBe(spent);
    expect(result.failed[2]!.error).toBe(`not run: ${spent}`);
    // q3 and q4 were never put to any agent.
    expect(agents.find((agent) => agent.name === 'alpha')!.questions.filter((q) => q === 'q3' || q === 'q4')).toEqual(
      [],
    );
    expect(result.scores.alpha!.queries).toBe(1);
  });

  it('breaks ties by the pool order', async () => {
    // Everyone rates the right agents 5 and the wrong ones 1: alpha and beta 11/12 each, gamma and delta 1/12.
    const even = () => ({ alpha: 5, beta: 5, gamma: 1, delta: 1 });
    const agents = [
      fakeAgent('gamma', 'B', even),
      fakeAgent('beta', 'A', even),
      fakeAgent('delta', 'C', even),
      fakeAgent('alpha', 'A', even),
    ];
    const result = await optimizeTeam({ pool: agents, queries: [q1], k: 3, run: { maxSteps: 2, reformAt: 0 } });
    expect(result.chosen).toStrictEqual(['beta', 'alpha', 'gamma']);
    expect(result.dropped).toStrictEqual(['delta']);
    expect(result.scores.beta!.total).toBeCloseTo(11 / 12, 12);
    expect(result.scores.gamma!.total).toBeCloseTo(1 / 12, 12);
  });

  it("passes the ranker and run settings to the engine and counts the ranker's calls", async () => {
    const ranked: string[][] = [];
    const ranker: Ranker = {
      async rank(_query, responses) {
        ranked.push(responses.map((r) => r.agent));
        return { ranking: ['beta', 'alpha'], calls: 1, fallback: false, reason: 'test ranker' };
      },
    };
    // Reform after step 1 keeping beta and alpha; they agree at step 2 (2 of 2) and stop there.
    const result = await optimizeTeam({
      pool: pool(),
      queries: [q1],
      k: 2,
      ranker,
      run: { maxSteps: 4, reformAt: 1, keep: 2 },
    });
    expect(ranked).toStrictEqual([['gamma', 'alpha', 'delta', 'beta']]);
    expect(result.perQuery[0]).toMatchObject({ stoppedAt: 2, calls: 4 + 1 + 2 });
    // Layer 2 has only alpha and beta (½ each), and they read all four step-1 answers, rating them 5, 3, 1, 1
    // (/10): alpha ½ + .5 = 1, beta ½ + .3 = .8; the dropped gamma and delta .1 each from step 1.
    expect(result.scores.alpha!.total).toBeCloseTo(1, 12);
    expect(result.scores.beta!.total).toBeCloseTo(0.8, 12);
    expect(result.scores.gamma!.total).toBeCloseTo(0.1, 12);
    expect(result.scores.delta!.total).toBeCloseTo(0.1, 12);
    expect(result.chosen).toStrictEqual(['alpha', 'beta']);
  });

  it('rejects k larger than the pool, k below 1 and no queries with BAD_INPUT', async () => {
    const error = await optimizeTeam({ pool: pool(), queries: [q1], k: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftError);
    expect(error).toMatchObject({
      code: 'BAD_INPUT',
      message: 'k = 5 is larger than the pool (4 agents): the optimised team is chosen from the pool',
      location: { field: 'k' },
    });
    await expect(optimizeTeam({ pool: pool(), queries: [q1], k: 0 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: 'k expects an integer >= 1, got 0',
      location: { field: 'k' },
    });
    await expect(optimizeTeam({ pool: pool(), queries: [q1], k: 1.5 })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(optimizeTeam({ pool: pool(), queries: [], k: 2 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: 'no sample queries to optimise the team on',
    });
  });

  it('leaves a failed query out of the scores, lists it, and scores the others', async () => {
    const broken: TeamAgent = {
      name: 'epsilon',
      kind: 'llm',
      async respond(input) {
        if (input.query.question === 'q1') throw new Error('provider down');
        return { answer: 'D', text: 'D', ratings: input.peers.map(() => 3), ratingsParsed: true, calls: 1 };
      },
    };
    const errors: (string | undefined)[] = [];
    const result = await optimizeTeam({
      pool: [...pool(), broken],
      queries: [q1, q2],
      k: 2,
      run: { maxSteps: 1 },
      onProgress: (p) => errors.push(p.error),
    });
    expect(result.failed).toHaveLength(1);
    expect(result.failed[0]).toMatchObject({ index: 0 });
    expect(result.failed[0]!.error).toContain('provider down');
    expect(errors.filter((error) => error !== undefined)).toHaveLength(1);
    expect(result.perQuery.map((q) => q.query.question)).toStrictEqual(['q2']);
    // One finished query: means are over it alone; alpha and beta agree on A, the biggest group of one step.
    expect(result.scores.alpha).toMatchObject({ queries: 1 });
    expect(result.scores.alpha!.mean).toBeCloseTo(result.scores.alpha!.total, 12);
    expect(result.callsPerQuery).toBe(5);
  });

  it('chooses nobody when no query finishes', async () => {
    const down: TeamAgent = { name: 'down', kind: 'llm', respond: () => Promise.reject(new Error('provider down')) };
    const result = await optimizeTeam({ pool: [down, ...pool()], queries: [q1, q2], k: 2, run: { maxSteps: 1 } });
    expect(result).toMatchObject({ chosen: [], calls: 0, callsPerQuery: 0 });
    expect(result.failed.map((failure) => failure.index)).toStrictEqual([0, 1]);
  });

  it.each([0, 1.5])(
    'rejects concurrency %s with BAD_INPUT naming the field, before any query runs',
    async (concurrency) => {
      const agents = pool();
      await expect(optimizeTeam({ pool: agents, queries: [q1], k: 2, concurrency })).rejects.toMatchObject({
        code: 'BAD_INPUT',
        message: `concurrency expects an integer >= 1, got ${concurrency}`,
        location: { field: 'concurrency' },
      });
      expect(agents.every((agent) => agent.questions.length === 0)).toBe(true);
    },
  );

  it('stops with the abort error when aborted, recording nothing', async () => {
    const controller = new AbortController();
    const slow: TeamAgent = {
      name: 'slow',
      kind: 'llm',
      respond: (_input, signal) =>
        new Promise((_, reject) =>
          signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))),
        ),
    };
    const run = optimizeTeam({ pool: [slow, ...pool()], queries: [q1], k: 1, signal: controller.signal });
    controller.abort();
    const error = await run.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(isAbortError(error)).toBe(true);
  });

  it('reports progress per query', async () => {
    const seen: [number, number, number][] = [];
    await optimizeTeam({
      pool: pool(),
      queries: [q1, q2],
      k: 1,
      run: { maxSteps: 1 },
      concurrency: 1,
      onProgress: (p) => seen.push([p.done, p.total, p.index]),
    });
    expect(seen).toStrictEqual([
      [1, 2, 0],
      [2, 2, 1],
    ]);
  });
});
