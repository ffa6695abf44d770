import { describe, expect, it } from 'vitest';
import { WeftError, isAbortError } from '../../src/errors.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { createLlmAgent } from '../../src/team/llm-agent.js';
import { createLlmRanker } from '../../src/team/llm-ranker.js';
import { optimizeTeam } from '../../src/team/optimize-team.js';
import { runTeam, type Ranker } from '../../src/team/run-team.js';
import type { TeamAgent, TeamQuery, TeamResult } from '../../src/team/team.js';
import type { TeamEvent } from '../../src/team/team-events.js';
import { scriptedAgents, type ScriptTable } from './scripted-agents.js';

const choiceQuery: TeamQuery = {
  question: 'Which planet is largest?',
  choices: ['Mars', 'Jupiter', 'Venus', 'Earth'],
  kind: 'choice',
};
const exactQuery: TeamQuery = { question: 'What is 6 × 7?', kind: 'exact' };

/** A ranker whose model answers once with `reply`; the model is returned to inspect the prompt. */
function scriptedRanker(reply: string) {
  const model = scriptedModel([{ text: reply }]);
  return { model, ranker: createLlmRanker(model) };
}

function expectLayersSumToOne(result: TeamResult): void {
  expect(result.importanceByLayer).toHaveLength(result.layers.length);
  for (const layer of result.importanceByLayer) {
    expect(Math.abs(Object.values(layer).reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-9);
  }
}

function expectScores(actual: Readonly<Record<string, number>>, expected: Record<string, number>): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [agent, value] of Object.entries(expected)) expect(actual[agent]).toBeCloseTo(value, 12);
}

describe('runTeam: 4 agents, 3 agree at step 2', () => {
  const table: ScriptTable = {
    alice: ['A', { answer: 'B', ratings: { alice: 1, bob: 5, carol: 2, dave: 2 } }],
    bob: ['B', { answer: 'B', ratings: { alice: 1, bob: 4, carol: 1, dave: 2 } }],
    carol: ['C', { answer: 'B', ratings: { alice: 2, bob: 2, carol: 2, dave: 2 } }],
    dave: ['D', { answer: 'C', ratings: { alice: 5, bob: 1, carol: 1, dave: 1 } }],
  };

  it("stops at step 2 by consensus with the three agents' answer, and scores importance as computed by hand", async () => {
    const agents = scriptedAgents(table);
    const events: TeamEvent[] = [];
    const result = await runTeam({
      agents,
      query: choiceQuery,
      seed: 7,
      stopCheck: 'layer',
      onEvent: (e) => events.push(e),
    });

    expect(result.stopReason).toBe('consensus');
    expect(result.stopCheck).toBe('layer');
    expect(result.stoppedAt).toBe(2);
    expect(result.answer).toBe('B');
    expect(result.calls).toBe(8);
    expect(result.reformation).toBeUndefined();
    expect(result.ratingFallbacks).toBe(0);
    expect(result.layers.map((layer) => layer.map((n) => `${n.agent}:${n.answer}`))).toEqual([
      ['alice:A', 'bob:B', 'carol:C', 'dave:D'],
      ['alice:B', 'bob:B', 'carol:B', 'dave:C'],
    ]);
    // Step 1 alone; step 2 sees all four step-1 responses (its own included), each its own shuffle.
    for (const agent of agents) {
      expect(agent.peersAt(1)).toEqual([]);
      expect([...agent.peersAt(2)].sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
      const node = result.layers[1]!.find((n) => n.agent === agent.name)!;
      expect(node.peers).toEqual(agent.peersAt(2));
      // The ratings stored follow the order the node saw.
      const step2 = table[agent.name]![1] as { ratings: Record<string, number> };
      expect(node.ratings).toEqual(node.peers.map((peer) => step2.ratings[peer]));
    }
    const bobSaw = agents[1]!.inputs[1]!.peers.find((p) => p.agent === 'carol')!;
    expect(bobSaw).toEqual({ agent: 'carol', answer: 'C', text: 'carol says C' });

    // Last layer: alice, bob, carol agree with B → 1/3 each, dave 0.
    // Normalised ratings of layer 1 (alice, bob, carol, dave):
    //   alice 1,5,2,2 /10 → .1, .5, .2, .2     bob 1,4,1,2 /8 → .125, .5, .125, .25     carol 2,2,2,2 /8 → .25 each
    //   (dave's do not matter: I(2, dave) = 0)
    // I(1, alice) = (.1 + .125 + .25)/3 = .475/3    I(1, bob)  = (.5 + .5 + .25)/3 = 1.25/3
    // I(1, carol) = (.2 + .125 + .25)/3 = .575/3    I(1, dave) = (.2 + .25 + .25)/3 = .7/3     (sum 3/3 = 1)
    expectScores(result.importanceByLayer[1]!, { alice: 1 / 3, bob: 1 / 3, carol: 1 / 3, dave: 0 });
    expectScores(result.importanceByLayer[0]!, { alice: 0.475 / 3, bob: 1.25 / 3, carol: 0.575 / 3, dave: 0.7 / 3 });
    expectScores(result.importance, {
      alice: 1 / 3 + 0.475 / 3,
      bob: 1 / 3 + 1.25 / 3,
      carol: 1 / 3 + 0.575 / 3,
      dave: 0.7 / 3,
    });
    expectLayersSumToOne(result);

    expect(events.map((e) => e.type)).toEqual([
      'team-start',
      'layer-start',
      'node',
      'node',
      'node',
      'node',
      'consensus-check',
      'layer-start',
      'node',
      'node',
      'node',
      'node',
      'consensus-check',
      'team-end',
    ]);
    const checks = events.filter(
      (e): e is Extract<TeamEvent, { type: 'consensus-check' }> => e.type === 'consensus-check',
    );
    expect(checks.map((c) => [c.agreeing, c.answered, c.of, c.stop])).toEqual([
      [1, 4, 4, false],
      [3, 4, 4, true],
    ]);
    expect(checks[1]!.answer).toBe('B');
  });

  it('runs on without early stop, and reports the consensus it did not stop on', async () => {
    const longer: ScriptTable = Object.fromEntries(
      Object.entries(table).map(([name, steps]) => [name, [...steps, steps[1]!, { answer: 'B' }]]),
    );
    const events: TeamEvent[] = [];
    const result = await runTeam({
      agents: scriptedAgents(longer),
      query: choiceQuery,
      earlyStop: false,
      reformAt: 0,
      onEvent: (e) => events.push(e),
    });
    expect(result.stoppedAt).toBe(4);
    expect(result.stopReason).toBe('max-steps');
    expect(result.calls).toBe(16);
    // The last check of step 2, after all four answered.
    const check = events.filter((e) => e.type === 'consensus-check' && e.step === 2).at(-1);
    expect(check).toMatchObject({
      agreeing: 3,
      answered: 4,
      stop: false,
      reason: expect.stringContaining('early stop is off'),
    });
  });
});

describe("runTeam: early stop per answer (the authors' code) and per layer", () => {
  // All four agree at step 1.
  const agreeing: ScriptTable = { alice: ['B'], bob: ['B'], carol: ['B'], dave: ['B'] };

  it('per answer: stops after 3 calls, once more than ⌊2·4/3⌋ = 2 agents answered and 3 of 4 agree', async () => {
    const agents = scriptedAgents(agreeing);
    const events: TeamEvent[] = [];
    const result = await runTeam({ agents, query: choiceQuery, seed: 3, onEvent: (e) => events.push(e) });
    expect(result.stopCheck).toBe('answer');
    expect(result.stopReason).toBe('consensus');
    expect(result.stoppedAt).toBe(1);
    expect(result.calls).toBe(3);
    expect(result.answer).toBe('B');
    expect(agents.filter((agent) => agent.inputs.length === 1)).toHaveLength(3);
    // The last layer holds the three that answered, in team order; each agrees → ⅓ each, the fourth has no node.
    const called = events.flatMap((e) => (e.type === 'node' ? [e.node.agent] : []));
    expect(result.layers[0]!.map((n) => n.agent)).toEqual(
      ['alice', 'bob', 'carol', 'dave'].filter((name) => called.includes(name)),
    );
    for (const name of called) expect(result.importance[name]).toBeCloseTo(1 / 3, 12);
    // One check, after the third answer: 3 of 4 agree (3 > ⌊8/3⌋ = 2).
    const checks = events.filter((e) => e.type === 'consensus-check');
    expect(checks).toEqual([
      {
        type: 'consensus-check',
        step: 1,
        agreeing: 3,
        of: 4,
        answered: 3,
        answer: 'B',
        stop: true,
        reason: '3 of 4 agree (3 answered): consensus (more than 2/3)',
      },
    ]);
    expect(events.at(-1)).toEqual({ type: 'team-end', step: 1, reason: 'consensus', answer: 'B', calls: 3 });
  });

  it('per layer: the same team makes all 4 calls before it checks', async () => {
    const agents = scriptedAgents(agreeing);
    const result = await runTeam({ agents, query: choiceQuery, seed: 3, stopCheck: 'layer' });
    expect(result.stopCheck).toBe('layer');
    expect(result.stopReason).toBe('consensus');
    expect(result.calls).toBe(4);
    expect(result.layers[0]!.map((n) => n.agent)).toEqual(['alice', 'bob', 'carol', 'dave']);
  });

  it('per answer: calls one agent at a time, in an order that follows the seed, not the team file', async () => {
    const orders = new Map<number, string[]>();
    for (const seed of [0, 1, 2, 3, 4, 5]) {
      let running = 0;
      let most = 0;
      const order: string[] = [];
      const agents = scriptedAgents({
        alice: [{ answer: 'A', delayMs: 3 }],
        bob: [{ answer: 'B', delayMs: 1 }],
        carol: [{ answer: 'C', delayMs: 2 }],
        dave: [{ answer: 'D' }],
      }).map((agent) => ({
        ...agent,
        async respond(input: Parameters<TeamAgent['respond']>[0], signal?: AbortSignal) {
          running++;
          most = Math.max(most, running);
          order.push(agent.name);
          try {
            return await agent.respond(input, signal);
          } finally {
            running--;
          }
        },
      }));
      const result = await runTeam({ agents, query: choiceQuery, seed, maxSteps: 1 });
      expect(most).toBe(1);
      expect(result.calls).toBe(4);
      orders.set(seed, order);
      // The same seed gives the same order.
      const again: string[] = [];
      await runTeam({
        agents: scriptedAgents({ alice: ['A'], bob: ['B'], carol: ['C'], dave: ['D'] }).map((agent) => ({
          ...agent,
          respond: (input: Parameters<TeamAgent['respond']>[0]) => {
            again.push(agent.name);
            return agent.respond(input);
          },
        })),
        query: choiceQuery,
        seed,
        maxSteps: 1,
      });
      expect(again).toEqual(order);
    }
    expect(new Set([...orders.values()].map((order) => order.join())).size).toBeGreaterThan(1);
  });

  it('per answer follows a given call order, and rejects one that does not name each agent once', async () => {
    const table: ScriptTable = { alice: ['B'], bob: ['B'], carol: ['C'], dave: ['B'] };
    const events: TeamEvent[] = [];
    // carol last: alice, bob and dave agree after 3 calls.
    const last = await runTeam({
      agents: scriptedAgents(table),
      query: choiceQuery,
      callOrder: () => ['dave', 'bob', 'alice', 'carol'],
      onEvent: (e) => events.push(e),
    });
    expect(events.flatMap((e) => (e.type === 'node' ? [e.node.agent] : []))).toEqual(['dave', 'bob', 'alice']);
    expect(last.calls).toBe(3);
    expect(last.layers[0]!.map((n) => n.agent)).toEqual(['alice', 'bob', 'dave']);
    // carol first: the fourth answer is needed.
    const first = await runTeam({
      agents: scriptedAgents(table),
      query: choiceQuery,
      callOrder: () => ['carol', 'dave', 'bob', 'alice'],
    });
    expect(first.calls).toBe(4);
    for (const bad of [
      ['alice', 'bob', 'carol'],
      ['alice', 'bob', 'carol', 'carol'],
      ['alice', 'bob', 'carol', 'eve'],
    ])
      await expect(
        runTeam({ agents: scriptedAgents(table), query: choiceQuery, callOrder: () => bad }),
      ).rejects.toMatchObject({ code: 'BAD_INPUT', location: { field: 'callOrder' } });
  });

  it('per answer with a dissenter: 3 calls when it is called last, else 4; per layer always 4', async () => {
    const table: ScriptTable = { alice: ['B'], bob: ['B'], carol: ['C'], dave: ['B'] };
    const seen = new Set<number>();
    for (let seed = 0; seed < 20; seed++) {
      const events: TeamEvent[] = [];
      const result = await runTeam({
        agents: scriptedAgents(table),
        query: choiceQuery,
        seed,
        maxSteps: 1,
        onEvent: (e) => events.push(e),
      });
      const called = events.flatMap((e) => (e.type === 'node' ? [e.node.agent] : []));
      const carolLast = called.indexOf('carol') === 3 || !called.includes('carol');
      expect(result.calls).toBe(carolLast ? 3 : 4);
      expect(result.stopReason).toBe('consensus');
      seen.add(result.calls);
      const layered = await runTeam({ agents: scriptedAgents(table), query: choiceQuery, seed, stopCheck: 'layer' });
      expect(layered.calls).toBe(4);
    }
    // Both cases occur over these seeds.
    expect([...seen].sort()).toEqual([3, 4]);
  });

  it('after a reformation to 2, checks once both kept agents answered', async () => {
    const table: ScriptTable = {
      a: ['1', '2', '3', '9'],
      b: ['4', '5', '6', '9'],
      c: ['7', '8', '10'],
      d: ['11', '12', '13'],
    };
    const { ranker } = scriptedRanker('{"ranking": ["b", "a"]}');
    const events: TeamEvent[] = [];
    const result = await runTeam({
      agents: scriptedAgents(table),
      query: exactQuery,
      ranker,
      onEvent: (e) => events.push(e),
    });
    expect(result.stoppedAt).toBe(4);
    expect(result.stopReason).toBe('consensus');
    // 4 + 4 + 4 agents, 1 ranker, 2 kept agents.
    expect(result.calls).toBe(15);
    const step4 = events.filter((e) => e.type === 'consensus-check' && e.step === 4);
    expect(step4).toMatchObject([{ agreeing: 2, of: 2, answered: 2, stop: true }]);
  });
});

describe('runTeam: the ranker drops the two wrong agents', () => {
  const table: ScriptTable = {
    algebraist: [
      '42',
      { answer: '42', ratings: { algebraist: 5, geometer: 1, guesser: 1, skeptic: 3 } },
      { answer: '42', ratings: { algebraist: 4, geometer: 4, guesser: 1, skeptic: 1 } },
      // Step 4 after the reformation: the kept agents rate every step-3 answer, the dropped agents' too.
      { answer: '42', ratings: { algebraist: 3, geometer: 1, guesser: 5, skeptic: 1 } },
    ],
    geometer: [
      '41',
      { answer: '42', ratings: { algebraist: 1, geometer: 1, guesser: 1, skeptic: 1 } },
      { answer: '42', ratings: { algebraist: 2, geometer: 2, guesser: 2, skeptic: 2 } },
      { answer: '42.0', ratings: { algebraist: 1, geometer: 1, guesser: 1, skeptic: 1 } },
    ],
    guesser: [
      '7',
      { answer: '7', ratings: { algebraist: 1, geometer: 1, guesser: 1, skeptic: 5 } },
      { answer: '8', ratings: { algebraist: 1, geometer: 1, guesser: 5, skeptic: 1 } },
    ],
    skeptic: [
      '13',
      { answer: '13', ratings: { algebraist: 2, geometer: 2, guesser: 2, skeptic: 2 } },
      { answer: '13', ratings: { algebraist: 1, geometer: 1, guesser: 1, skeptic: 1 } },
    ],
  };

  it('keeps the ranked two after step 3; they agree at step 4; importance as computed by hand', async () => {
    const agents = scriptedAgents(table);
    const { model, ranker } = scriptedRanker('{"ranking": ["geometer", "algebraist"]}');
    const events: TeamEvent[] = [];
    const result = await runTeam({ agents, query: exactQuery, ranker, onEvent: (e) => events.push(e) });

    expect(result.stopReason).toBe('consensus');
    expect(result.stoppedAt).toBe(4);
    // 42 and 42.0 agree; the group's first member gives the answer, and after the reformation the layer is in the
    // ranker's order, so geometer's 42.0 (was 42, algebraist's, by team-file order before the tie fix).
    expect(result.answer).toBe('42.0');
    expect(result.tie).toBeUndefined();
    expect(result.reformation).toEqual({
      afterStep: 3,
      kept: ['geometer', 'algebraist'],
      dropped: ['guesser', 'skeptic'],
      reason: 'LLM ranker: geometer > algebraist',
      fallback: false,
    });
    expect(result.rankerFallbacks).toBe(0);
    expect(result.calls).toBe(4 + 4 + 4 + 1 + 2);
    expect(result.layers.map((layer) => layer.map((n) => n.agent))).toEqual([
      ['algebraist', 'geometer', 'guesser', 'skeptic'],
      ['algebraist', 'geometer', 'guesser', 'skeptic'],
      ['algebraist', 'geometer', 'guesser', 'skeptic'],
      ['geometer', 'algebraist'],
    ]);
    // After the reformation the kept agents read every step-3 response, the dropped agents' too (Eq. 7).
    expect([...agents[0]!.peersAt(4)].sort()).toEqual(['algebraist', 'geometer', 'guesser', 'skeptic']);
    expect([...agents[1]!.peersAt(4)].sort()).toEqual(['algebraist', 'geometer', 'guesser', 'skeptic']);
    expect(agents[2]!.inputs).toHaveLength(3);
    // The ranker read every step-3 response.
    const rankPrompt = model.calls[0]!.messages[0]!.content;
    for (const line of ['Answer: 42', 'Answer: 8', 'Answer: 13', exactQuery.question])
      expect(rankPrompt).toContain(line);
    expect(model.calls[0]!.tag?.purpose).toBe('rank');

    // Eq. 7 by hand, backwards along the edges each node was shown.
    // Layer 4: both kept agents agree with 42 → ½ each.
    // Step-4 ratings of layer 3 (alg, geo, gue, ske): algebraist 3,1,5,1 /10 → .3, .1, .5, .1; geometer 1,1,1,1 → .25
    //   I(3, alg) = .5·.3 + .5·.25 = .275   I(3, geo) = .5·.1 + .5·.25 = .175
    //   I(3, gue) = .5·.5 + .5·.25 = .375   I(3, ske) = .5·.1 + .5·.25 = .175        (sum 1)
    //   (with kept→kept edges only, guesser and skeptic would get 0 here)
    // Step-3 ratings of layer 2: algebraist 4,4,1,1 /10; geometer 2,2,2,2 /8; guesser 1,1,5,1 /8; skeptic 1,1,1,1 /4
    //   I(2, alg) = .275·.4 + .175·.25 + .375·.125 + .175·.25 = .11 + .04375 + .046875 + .04375 = .244375 = I(2, geo)
    //   I(2, gue) = .275·.1 + .175·.25 + .375·.625 + .175·.25 = .0275 + .04375 + .234375 + .04375 = .349375
    //   I(2, ske) = .275·.1 + .175·.25 + .375·.125 + .175·.25 = .0275 + .04375 + .046875 + .04375 = .161875
    // Step-2 ratings of layer 1: alg 5,1,1,3 /10; geo 1,1,1,1 /4; gue 1,1,1,5 /8; ske 2,2,2,2 /8
    //   I(1, alg) = .244375·.5 + .244375·.25 + .349375·.125 + .161875·.25 = .267421875
    //   I(1, geo) = .244375·.1 + .244375·.25 + .349375·.125 + .161875·.25 = .169671875 = I(1, gue)
    //   I(1, ske) = .244375·.3 + .244375·.25 + .349375·.625 + .161875·.25 = .393234375
    expectScores(result.importanceByLayer[3]!, { algebraist: 0.5, geometer: 0.5 });
    expectScores(result.importanceByLayer[2]!, { algebraist: 0.275, geometer: 0.175, guesser: 0.375, skeptic: 0.175 });
    expectScores(result.importanceByLayer[1]!, {
      algebraist: 0.244375,
      geometer: 0.244375,
      guesser: 0.349375,
      skeptic: 0.161875,
    });
    expectScores(result.importanceByLayer[0]!, {
      algebraist: 0.267421875,
      geometer: 0.169671875,
      guesser: 0.169671875,
      skeptic: 0.393234375,
    });
    // Dropped agents keep what they earned, at the reformation step included.
    expectScores(result.importance, {
      algebraist: 1.286796875,
      geometer: 1.089046875,
      guesser: 0.894046875,
      skeptic: 0.730109375,
    });
    expectLayersSumToOne(result);

    const reformationEvent = events.find((e) => e.type === 'reformation');
    expect(reformationEvent).toMatchObject({ calls: 1 });
    expect(events.some((e) => e.type === 'ranker-fallback')).toBe(false);
    expect(events.filter((e) => e.type === 'layer-start').at(-1)).toEqual({
      type: 'layer-start',
      step: 4,
      agents: ['geometer', 'algebraist'],
    });
    expect(events.at(-1)).toEqual({ type: 'team-end', step: 4, reason: 'consensus', answer: '42.0', calls: 15 });
  });

  it('optimises the team by those scores: the dropped guesser, well rated at the reformation step, is chosen', async () => {
    // Totals from the test above (Eq. 7 by hand): algebraist 1.286796875, geometer 1.089046875,
    // guesser .894046875, skeptic .730109375 → the top 3 are algebraist, geometer, guesser.
    // With kept→kept edges after the reformation, guesser and skeptic would earn nothing at step 3 and their
    // totals would be .33515625 and .48203125: skeptic would have been chosen instead.
    const { ranker } = scriptedRanker('{"ranking": ["geometer", "algebraist"]}');
    const result = await optimizeTeam({ pool: scriptedAgents(table), queries: [exactQuery], k: 3, ranker });
    expect(result.chosen).toEqual(['algebraist', 'geometer', 'guesser']);
    expect(result.dropped).toEqual(['skeptic']);
    expect(result.scores.guesser!.total).toBeCloseTo(0.894046875, 12);
    expect(result.scores.skeptic!.total).toBeCloseTo(0.730109375, 12);
    expect(result.calls).toBe(15);
  });

  it('falls back visibly when the ranker reply cannot be parsed: majority agreers kept, counted, reason given', async () => {
    const { ranker } = scriptedRanker('They all have merit; I would not want to choose.');
    const events: TeamEvent[] = [];
    const result = await runTeam({
      agents: scriptedAgents(table),
      query: exactQuery,
      ranker,
      onEvent: (e) => events.push(e),
    });
    expect(result.rankerFallbacks).toBe(1);
    expect(result.reformation?.fallback).toBe(true);
    // Step 3 answers: 42, 42, 8, 13 → the majority 42 is held by algebraist and geometer, in input order.
    expect(result.reformation?.kept).toEqual(['algebraist', 'geometer']);
    expect(result.reformation?.reason).toMatch(
      /^ranker fallback: no ranking found in the reply .*majority answer "42"/,
    );
    expect(result.calls).toBe(15); // the failed ranker call is counted
    const fallback = events.find((e) => e.type === 'ranker-fallback');
    expect(fallback).toEqual({ type: 'ranker-fallback', step: 3, reason: result.reformation?.reason });
  });

  it('falls back when the ranker names an unknown agent', async () => {
    const { ranker } = scriptedRanker('{"ranking": ["geometer", "oracle"]}');
    const result = await runTeam({ agents: scriptedAgents(table), query: exactQuery, ranker });
    expect(result.rankerFallbacks).toBe(1);
    expect(result.reformation?.reason).toContain('"oracle"');
    expect(result.reformation?.kept).toEqual(['algebraist', 'geometer']);
  });

  it('checks the ranking of any ranker: too few active agents falls back too', async () => {
    const ranker: Ranker = {
      rank: async () => ({ ranking: ['skeptic', 'skeptic'], calls: 1, fallback: false, reason: 'custom' }),
    };
    const result = await runTeam({ agents: scriptedAgents(table), query: exactQuery, ranker });
    expect(result.rankerFallbacks).toBe(1);
    expect(result.reformation?.kept).toEqual(['algebraist', 'geometer']);
    expect(result.reformation?.reason).toContain('names fewer than 2 of the active agents');
  });

  it('without a ranker, reforms by the visible majority fallback', async () => {
    const result = await runTeam({ agents: scriptedAgents(table), query: exactQuery });
    expect(result.rankerFallbacks).toBe(1);
    expect(result.reformation).toMatchObject({
      kept: ['algebraist', 'geometer'],
      fallback: true,
      reason: expect.stringContaining('no ranker was given'),
    });
    expect(result.calls).toBe(14);
  });
});

describe('runTeam: nobody agrees', () => {
  // Step s answers: algebraist 1, 11, 21, 31; geometer 2, 12, …; guesser 3, …, 33; skeptic 4, …, 34.
  const distinct = (base: number): string[] => [0, 1, 2, 3].map((step) => String(base + step * 10));
  const table: ScriptTable = {
    algebraist: distinct(1),
    geometer: distinct(2),
    guesser: distinct(3),
    skeptic: distinct(4),
  };

  it("runs to max steps with the reformation and breaks the final tie by the ranker's order", async () => {
    const { model, ranker } = scriptedRanker('{"ranking": ["skeptic", "guesser"]}');
    const result = await runTeam({ agents: scriptedAgents(table), query: exactQuery, ranker });
    expect(model.calls).toHaveLength(1);

    expect(result.stopReason).toBe('max-steps');
    expect(result.stoppedAt).toBe(4);
    expect(result.reformation?.kept).toEqual(['skeptic', 'guesser']);
    // Changed by the tie fix: the kept agents run in the ranker's order (was guesser first, team-file order), so
    // the 1–1 tie goes to the ranker's first choice, skeptic, and is reported as such.
    expect(result.layers[3]!.map((n) => `${n.agent}:${n.answer}`)).toEqual(['skeptic:34', 'guesser:33']);
    expect(result.answer).toBe('34');
    expect(result.tie).toEqual({ answers: ['34', '33'], brokenBy: 'ranker order' });
    expect(result.calls).toBe(15);
    // Equal ratings everywhere. Layer 4: only skeptic agrees with 34 → 1. Skeptic rates all four step-3 answers
    // equally (the kept agents read the dropped agents' answers too) → layer 3: .25 each. Layers 2 and 1: nodes
    // rate four peers equally → .25 each.
    expectScores(result.importanceByLayer[3]!, { guesser: 0, skeptic: 1 });
    expectScores(result.importanceByLayer[2]!, { algebraist: 0.25, geometer: 0.25, guesser: 0.25, skeptic: 0.25 });
    expectScores(result.importanceByLayer[1]!, { algebraist: 0.25, geometer: 0.25, guesser: 0.25, skeptic: 0.25 });
    expectScores(result.importanceByLayer[0]!, { algebraist: 0.25, geometer: 0.25, guesser: 0.25, skeptic: 0.25 });
    expectScores(result.importance, { algebraist: 0.75, geometer: 0.75, guesser: 0.75, skeptic: 1.75 });
    expectLayersSumToOne(result);
  });

  it("without reformation: four layers of four, 16 calls, the first agent's last answer", async () => {
    const result = await runTeam({ agents: scriptedAgents(table), query: exactQuery, reformAt: 0 });
    expect(result.stopReason).toBe('max-steps');
    expect(result.layers.map((l) => l.length)).toEqual([4, 4, 4, 4]);
    expect(result.answer).toBe('31');
    expect(result.tie).toEqual({ answers: ['31', '32', '33', '34'], brokenBy: 'team order' });
    expect(result.calls).toBe(16);
    expect(result.reformation).toBeUndefined();
  });

  it('honours maxSteps', async () => {
    const result = await runTeam({ agents: scriptedAgents(table), query: exactQuery, maxSteps: 2 });
    expect(result.stoppedAt).toBe(2);
    expect(result.stopReason).toBe('max-steps');
    expect(result.calls).toBe(8);
  });
});

describe('runTeam: final answer and ties', () => {
  const table: ScriptTable = {
    a: ['1', '11', '21', { answer: '', text: 'I could not decide' }],
    b: ['2', '12', '22', '32'],
    c: ['3', '13', '23'],
    d: ['4', '14', '24', '34'],
  };

  it('never answers "" when a kept agent answered: an unreadable answer loses the 1–1 split', async () => {
    const { ranker } = scriptedRanker('{"ranking": ["a", "b"]}');
    const events: TeamEvent[] = [];
    const result = await runTeam({
      agents: scriptedAgents(table),
      query: exactQuery,
      ranker,
      onEvent: (e) => events.push(e),
    });
    expect(result.layers[3]!.map((n) => `${n.agent}:${n.answer}`)).toEqual(['a:', 'b:32']);
    expect(result.answer).toBe('32');
    expect(result.tie).toBeUndefined();
    // The credit of the last layer goes to b, whose answer is the final one, not spread over both.
    expectScores(result.importanceByLayer[3]!, { a: 0, b: 1 });
    expectLayersSumToOne(result);
    expect(events.find((e) => e.type === 'consensus-check' && e.step === 4)).toMatchObject({
      agreeing: 1,
      answer: '32',
    });
  });

  it('orders the kept agents by the ranker, so a 1–1 split goes to its first choice, and reports the tie', async () => {
    const { ranker } = scriptedRanker('{"ranking": ["d", "a"]}');
    const tied: ScriptTable = { ...table, a: ['1', '11', '21', '31'] };
    const result = await runTeam({ agents: scriptedAgents(tied), query: exactQuery, ranker });
    expect(result.reformation).toMatchObject({ kept: ['d', 'a'], dropped: ['b', 'c'] });
    expect(result.layers[3]!.map((n) => `${n.agent}:${n.answer}`)).toEqual(['d:34', 'a:31']);
    expect(result.answer).toBe('34');
    expect(result.tie).toEqual({ answers: ['34', '31'], brokenBy: 'ranker order' });
    expectScores(result.importanceByLayer[3]!, { a: 0, d: 1 });
  });

  it('reports a tie broken by team order when no reformation happened, and none on a majority', async () => {
    const split = await runTeam({
      agents: scriptedAgents({ x: ['7', '7'], y: ['8', '8'] }),
      query: exactQuery,
      maxSteps: 2,
    });
    expect(split.answer).toBe('7');
    expect(split.tie).toEqual({ answers: ['7', '8'], brokenBy: 'team order' });
    const clear = await runTeam({
      agents: scriptedAgents({ x: ['7'], y: ['7'], z: ['8'] }),
      query: exactQuery,
      maxSteps: 1,
    });
    expect(clear.tie).toBeUndefined();
  });
});

describe('runTeam: agent failures', () => {
  const failing = (error: unknown, atStep: number): TeamAgent => ({
    name: 'flaky',
    kind: 'llm',
    async respond(input) {
      if (input.step === atStep) throw error;
      return {
        answer: String(input.step),
        text: 't',
        ratings: input.peers.map(() => 3),
        ratingsParsed: true,
        calls: 1,
      };
    },
  });
  const others = (): TeamAgent[] => scriptedAgents({ steady: ['1', '2', '3'], calm: ['4', '5', '6'] });

  it('names the agent and the step, keeping the code, retryability and the cause', async () => {
    const original = new WeftError('PROVIDER', 'provider said 529 overloaded', { retryable: true, retryAfterMs: 500 });
    const error = await runTeam({ agents: [...others(), failing(original, 2)], query: exactQuery, reformAt: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WeftError);
    const wrapped = error as WeftError;
    expect(wrapped.code).toBe('PROVIDER');
    expect(wrapped.message).toBe('team: agent "flaky" failed at step 2: provider said 529 overloaded');
    expect(wrapped.cause).toBe(original);
    expect(wrapped.retryable).toBe(true);
    expect(wrapped.retryAfterMs).toBe(500);
  });

  it('wraps an error that is not a WeftError as INTERNAL', async () => {
    const original = new TypeError('x is undefined');
    const error = (await runTeam({ agents: [failing(original, 1), ...others()], query: exactQuery }).then(
      () => undefined,
      (e: unknown) => e,
    )) as WeftError;
    expect(error).toBeInstanceOf(WeftError);
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toBe('team: agent "flaky" failed at step 1: x is undefined');
    expect(error.cause).toBe(original);
  });

  it('lets aborts through unwrapped', async () => {
    const abort = new WeftError('ABORTED', 'aborted');
    expect(
      await runTeam({ agents: [failing(abort, 1), ...others()], query: exactQuery }).then(
        () => undefined,
        (e: unknown) => e,
      ),
    ).toBe(abort);
    const domAbort = Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
    expect(
      await runTeam({ agents: [failing(domAbort, 1), ...others()], query: exactQuery }).then(
        () => undefined,
        (e: unknown) => e,
      ),
    ).toBe(domAbort);
  });
});

describe('runTeam: ratings', () => {
  it('counts ratings that could not be read and uses equal weights for them', async () => {
    const table: ScriptTable = {
      a: ['1', { answer: '2', unreadableRatings: true }],
      b: ['2', { answer: '2', rawRatings: [5, 1] }], // 2 ratings for 3 peers
      c: ['3', { answer: '2', ratings: { a: 1, b: 9, c: 1 } }], // 9 is clamped to 5
    };
    const events: TeamEvent[] = [];
    const result = await runTeam({ agents: scriptedAgents(table), query: exactQuery, onEvent: (e) => events.push(e) });
    expect(result.stoppedAt).toBe(2);
    expect(result.ratingFallbacks).toBe(2);
    const [a, b, c] = result.layers[1]!;
    expect(a!.ratingsParsed).toBe(false);
    expect(a!.ratings).toEqual([3, 3, 3]);
    expect(b!.ratingsParsed).toBe(false);
    expect(b!.ratings).toEqual([3, 3, 3]);
    expect(c!.ratingsParsed).toBe(true);
    expect(c!.ratings).toEqual(c!.peers.map((p) => (p === 'b' ? 5 : 1)));
    const fallbacks = events.filter((e) => e.type === 'rating-fallback');
    expect(fallbacks).toEqual([
      { type: 'rating-fallback', step: 2, agent: 'a', reason: expect.stringContaining('could not be read') },
      { type: 'rating-fallback', step: 2, agent: 'b', reason: 'expected 3 rating(s), got 2; equal weights used' },
    ]);
    // Layer 2 all agree → 1/3 each. a and b spread equally (1/9 to each peer); c gives b 5/7 and a, c 1/7 each.
    expectScores(result.importanceByLayer[0]!, { a: 2 / 9 + 1 / 21, b: 2 / 9 + 5 / 21, c: 2 / 9 + 1 / 21 });
  });

  it('counts a real LLM agent whose reply has no ratings, with exactly one call per response', async () => {
    const model = scriptedModel([
      { when: '/^You are A[\\s\\S]*Response 1/', text: '{"answer": "7", "reasoning": "checked", "ratings": [5, 4]}' },
      { when: '/^You are B[\\s\\S]*Response 1/', text: 'After reading the others: Answer: 7' },
      { when: 'You are A', text: '{"answer": "7", "reasoning": "a guess"}' },
      { when: 'You are B', text: '{"answer": "8", "reasoning": "another"}' },
    ]);
    const agents = [
      createLlmAgent({ name: 'A', prompt: 'You are A.', model }),
      createLlmAgent({ name: 'B', prompt: 'You are B.', model }),
    ];
    const result = await runTeam({ agents, query: exactQuery });
    expect(result.layers.map((l) => l.map((n) => n.answer))).toEqual([
      ['7', '8'],
      ['7', '7'],
    ]);
    expect(result.stopReason).toBe('consensus');
    expect(result.calls).toBe(4);
    expect(model.calls).toHaveLength(4);
    expect(result.ratingFallbacks).toBe(1);
    expect(result.layers[1]!.map((n) => n.ratingsParsed)).toEqual([true, false]);
  });
});

describe('runTeam: seeded shuffling', () => {
  const table: ScriptTable = Object.fromEntries(
    ['p', 'q', 'r', 's', 't'].map((name, i) => [name, [0, 1, 2].map((step) => `${name}${step}${i}`)]),
  );
  const peerOrders = (result: TeamResult): string[][] =>
    result.layers.flatMap((layer) => layer.map((n) => [...n.peers]));

  it('gives the same peer orders for the same seed, whatever the timing, and different ones for another seed', async () => {
    const run = (seed: number, delays: boolean) => {
      const timed: ScriptTable = delays
        ? Object.fromEntries(
            Object.entries(table).map(([name, steps], i) => [
              name,
              steps.map((s) => ({ answer: s as string, delayMs: ((i * 7) % 5) * 3 })),
            ]),
          )
        : table;
      return runTeam({ agents: scriptedAgents(timed), query: exactQuery, seed, maxSteps: 3, reformAt: 0 });
    };
    const first = peerOrders(await run(1, false));
    expect(peerOrders(await run(1, true))).toEqual(first);
    expect(peerOrders(await run(2, false))).not.toEqual(first);
    // Not the identity everywhere: the orders really are shuffled.
    const identity = ['p', 'q', 'r', 's', 't'];
    expect(first.slice(5).some((order) => order.join() !== identity.join())).toBe(true);
  });
});

describe('runTeam: code', () => {
  it('does not stop on consensus before step 3, and picks the candidate passing the most tests', async () => {
    const codeQuery: TeamQuery = { question: 'Write add(a, b).', kind: 'code' };
    const good = 'def add(a, b):\n    return a + b';
    const bad = 'def add(a, b):\n    return a - b';
    const writers = scriptedAgents({ w1: [bad, bad, bad], w2: [bad, bad, bad], w3: [good, good, good] });
    // A tool: no model calls.
    const runner = scriptedAgents(
      {
        runner: [
          { answer: '' },
          { answer: good, tests: { passed: 3, total: 3 } },
          { answer: good, tests: { passed: 3, total: 3 } },
        ],
      },
      { kind: 'tool', calls: 0 },
    );
    const events: TeamEvent[] = [];
    const result = await runTeam({
      agents: [...writers, ...runner],
      query: codeQuery,
      reformAt: 0,
      maxSteps: 3,
      onEvent: (e) => events.push(e),
    });
    expect(result.stoppedAt).toBe(3);
    expect(result.calls).toBe(9);
    // Two of four write the same wrong code at every step; the tested code wins the vote anyway.
    expect(result.answer).toBe(good);
    // Checked after the 3rd and the 4th answer of each layer; none may stop.
    expect(
      events.filter((e) => e.type === 'consensus-check').map((e) => [e.step, (e as { stop: boolean }).stop]),
    ).toEqual([
      [1, false],
      [1, false],
      [2, false],
      [2, false],
      [3, false],
      [3, false],
    ]);
    expectScores(result.importanceByLayer[2]!, { w1: 0, w2: 0, w3: 0.5, runner: 0.5 });
  });

  it('stops at step 3 when the code agrees from step 1', async () => {
    const code = 'def add(a, b):\n    return a + b';
    const table: ScriptTable = {
      x: [code, code, code, code],
      y: [code, code, code, code],
      z: [code, code, code, code],
    };
    const events: TeamEvent[] = [];
    const result = await runTeam({
      agents: scriptedAgents(table),
      query: { question: 'add', kind: 'code' },
      onEvent: (e) => events.push(e),
    });
    expect(result.stoppedAt).toBe(3);
    expect(result.stopReason).toBe('consensus');
    expect(events.find((e) => e.type === 'consensus-check')).toMatchObject({
      step: 1,
      agreeing: 3,
      stop: false,
      reason: expect.stringContaining('before step 3'),
    });
  });
});

describe('runTeam: control', () => {
  const table: ScriptTable = { a: ['1', '2', '3'], b: ['4', '5', '6'], c: ['7', '8', '9'] };

  it('stops between layers when the signal aborts', async () => {
    const controller = new AbortController();
    const agents = scriptedAgents(table);
    const promise = runTeam({
      agents,
      query: exactQuery,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'consensus-check' && e.step === 1) controller.abort();
      },
    });
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAbortError(error)).toBe(true);
    expect(agents.map((a) => a.inputs.length)).toEqual([1, 1, 1]);
  });

  it('stops at step 1 when every agent answered and they agree', async () => {
    const result = await runTeam({ agents: scriptedAgents({ a: ['(B)'], b: ['b'], c: ['B.'] }), query: choiceQuery });
    expect(result.stoppedAt).toBe(1);
    expect(result.answer).toBe('(B)');
    expect(result.importanceByLayer).toHaveLength(1);
    expectScores(result.importanceByLayer[0]!, { a: 1 / 3, b: 1 / 3, c: 1 / 3 });
  });

  it('does not count empty answers as agreement', async () => {
    const result = await runTeam({
      agents: scriptedAgents({ a: ['', ''], b: ['', ''], c: ['', ''] }),
      query: exactQuery,
      maxSteps: 2,
    });
    expect(result.stopReason).toBe('max-steps');
    expect(result.stoppedAt).toBe(2);
    expectLayersSumToOne(result);
  });

  it('rejects bad options with BAD_INPUT naming the field', async () => {
    const cases: [Parameters<typeof runTeam>[0], string][] = [
      [{ agents: [], query: exactQuery }, 'agents'],
      [
        { agents: [...scriptedAgents({ a: ['1'] }), ...scriptedAgents({ a: ['1'] })], query: exactQuery },
        'agents[1].name',
      ],
      [{ agents: scriptedAgents(table), query: exactQuery, keep: 0 }, 'keep'],
      [{ agents: scriptedAgents(table), query: exactQuery, maxSteps: 1.5 }, 'maxSteps'],
      [{ agents: scriptedAgents(table), query: exactQuery, reformAt: -1 }, 'reformAt'],
    ];
    for (const [options, field] of cases) {
      const error = await runTeam(options).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WeftError);
      expect((error as WeftError).code).toBe('BAD_INPUT');
      expect((error as WeftError).location?.field).toBe(field);
    }
  });
});
