import { describe, expect, it } from 'vitest';
import type { ChatCall } from '../../src/llm/chat-model.js';
import { mulberry32 } from '../../src/llm/seeded-random.js';
import { simModel } from '../../src/llm/sim-model.js';
import { parseSimOptions } from '../../src/llm/sim-options.js';
import { majorityAnswer, readTeamPrompt, simRanking, simTeamAnswer } from '../../src/team/sim-team.js';
import { createLlmAgent, readAgentReply } from '../../src/team/llm-agent.js';
import { parseRanking } from '../../src/team/llm-ranker.js';
import type { AgentInput, PeerResponse, TeamQuery } from '../../src/team/team.js';
import { agentUserPrompt, rankerUserPrompt } from '../../src/team/team-prompts.js';

const query: TeamQuery = { question: 'What is six times seven?', kind: 'exact' };
const peer = (agent: string, answer: string): PeerResponse => ({ agent, answer, text: `because ${answer}` });

/** An agent's call as the team engine makes it (T1's prompt layout), for one key. */
function answerCall(key: string, peers: readonly PeerResponse[], q: TeamQuery = query): ChatCall {
  const input: AgentInput = { query: q, step: peers.length === 0 ? 1 : 2, peers };
  return {
    messages: [{ role: 'user', content: agentUserPrompt(input, 'me') }],
    tag: { purpose: 'answer', key, attempt: 1 },
  };
}

interface Reply {
  answer: string;
  reasoning: string;
  ratings?: number[];
}

async function reply(spec: string, call: ChatCall): Promise<Reply> {
  return JSON.parse((await simModel(spec).generate(call)).text) as Reply;
}

async function replies(
  spec: string,
  count: number,
  peers: readonly PeerResponse[] = [],
  q: TeamQuery = query,
): Promise<Reply[]> {
  const model = simModel(spec);
  return Promise.all(
    Array.from(
      { length: count },
      async (_, i) => JSON.parse((await model.generate(answerCall(`k${i}`, peers, q))).text) as Reply,
    ),
  );
}

const share = <T>(items: readonly T[], test: (item: T) => boolean): number => items.filter(test).length / items.length;

describe('sim team answers', () => {
  it('is deterministic per (seed, key) and differs across keys and seeds', async () => {
    const peers = [peer('a', 'correct'), peer('b', 'wrong-2'), peer('me', 'wrong-1')];
    const first = await reply('accuracy=0.5,seed=3', answerCall('q/a/1', peers));
    expect(await reply('accuracy=0.5,seed=3', answerCall('q/a/1', peers))).toEqual(first);
    const across = await replies('accuracy=0.5,seed=3', 40, peers);
    expect(new Set(across.map((r) => JSON.stringify(r))).size).toBeGreaterThan(5);
    const otherSeed = await replies('accuracy=0.5,seed=4', 40, peers);
    expect(otherSeed).not.toEqual(across);
  });

  it('is right with probability accuracy at step 1, and wrong answers are wrong-1..3', async () => {
    for (const accuracy of [0.3, 0.75]) {
      const answers = (await replies(`accuracy=${accuracy},seed=11`, 3000)).map((r) => r.answer);
      // Binomial standard deviation is below 0.009 here: 0.035 is four of them.
      expect(Math.abs(share(answers, (a) => a === 'correct') - accuracy)).toBeLessThan(0.035);
      expect(answers.filter((a) => a !== 'correct').every((a) => /^wrong-[123]$/.test(a))).toBe(true);
      expect(new Set(answers)).toEqual(new Set(['correct', 'wrong-1', 'wrong-2', 'wrong-3']));
    }
  });

  it("a wrong agent follows the peers' majority with probability follow", async () => {
    const majorityRight = [peer('a', 'correct'), peer('b', 'correct'), peer('c', 'wrong-3')];
    const never = await replies('accuracy=0.4,follow=0,seed=5', 3000, majorityRight);
    expect(Math.abs(share(never, (r) => r.answer === 'correct') - 0.4)).toBeLessThan(0.035);
    const always = await replies('accuracy=0.4,follow=1,seed=5', 500, majorityRight);
    expect(always.every((r) => r.answer === 'correct')).toBe(true);
    // 0.4 right on its own, plus half of the 0.6 wrong ones following: 0.7.
    const half = await replies('accuracy=0.4,follow=0.5,seed=5', 3000, majorityRight);
    expect(Math.abs(share(half, (r) => r.answer === 'correct') - 0.7)).toBeLessThan(0.035);
    // It follows a wrong majority just as readily, and never leaves a right answer of its own.
    const majorityWrong = [peer('a', 'wrong-2'), peer('b', 'wrong-2'), peer('c', 'correct')];
    const misled = await replies('accuracy=0.4,follow=1,seed=5', 1000, majorityWrong);
    expect(misled.every((r) => r.answer === 'correct' || r.answer === 'wrong-2')).toBe(true);
    expect(Math.abs(share(misled, (r) => r.answer === 'correct') - 0.4)).toBeLessThan(0.06);
  });

  it('rates right peers 4-5 and wrong ones 1-2 when informed, noisy otherwise; one rating per peer, in order', async () => {
    const peers = [peer('a', 'wrong-1'), peer('b', 'correct'), peer('me', '')];
    const informed = await replies('accuracy=1,seed=2', 200, peers);
    for (const r of informed) {
      expect(r.ratings).toHaveLength(3);
      expect([4, 5]).toContain(r.ratings![1]);
      expect([1, 2]).toContain(r.ratings![0]);
      expect([1, 2]).toContain(r.ratings![2]);
    }
    const noisy = await replies('accuracy=0.6,seed=2', 2000, peers);
    const mean = (index: number) => noisy.reduce((sum, r) => sum + r.ratings![index]!, 0) / noisy.length;
    // Expected: right 0.6·4.5 + 0.4·3 = 3.9, wrong 0.6·1.5 + 0.4·3 = 2.1.
    expect(Math.abs(mean(1) - 3.9)).toBeLessThan(0.1);
    expect(Math.abs(mean(0) - 2.1)).toBeLessThan(0.1);
    expect(
      noisy.flatMap((r) => r.ratings!).every((rating) => Number.isInteger(rating) && rating >= 1 && rating <= 5),
    ).toBe(true);
    // Step 1 shows no peers and carries no ratings.
    expect((await replies('accuracy=1,seed=2', 1))[0]).toEqual({ answer: 'correct', reasoning: 'sim: worked it out' });
  });

  it("answers multiple choice with the letter of the option `correct`, and reads peers' letters as options", async () => {
    const choiceQuery: TeamQuery = {
      question: 'Pick one.',
      choices: ['wrong-1', 'correct', 'wrong-2'],
      kind: 'choice',
    };
    const own = await replies('accuracy=0.5,follow=0,seed=9', 600, [], choiceQuery);
    expect(new Set(own.map((r) => r.answer))).toEqual(new Set(['A', 'B', 'C']));
    expect(Math.abs(share(own, (r) => r.answer === 'B') - 0.5)).toBeLessThan(0.07);
    const peers = [peer('a', 'B'), peer('b', 'B'), peer('c', 'C')];
    const following = await replies('accuracy=0,follow=1,seed=9', 50, peers, choiceQuery);
    expect(following.every((r) => r.answer === 'B')).toBe(true);
    const informed = await replies('accuracy=1,seed=9', 20, peers, choiceQuery);
    expect(informed.every((r) => r.ratings![0]! >= 4 && r.ratings![2]! <= 2)).toBe(true);
  });

  it('works through the team agent: the engine reads its answer and ratings', async () => {
    const agent = createLlmAgent({ name: 'me', prompt: 'You are careful.', model: simModel('accuracy=1,seed=1') });
    const response = await agent.respond({ query, step: 2, peers: [peer('a', 'correct'), peer('b', 'wrong-3')] });
    expect(response).toMatchObject({ answer: 'correct', ratingsParsed: true, calls: 1 });
    expect(response.ratings[0]).toBeGreaterThanOrEqual(4);
    expect(response.ratings[1]).toBeLessThanOrEqual(2);
  });

  it('badjson cuts an answer inside its ratings: the answer stays readable, the ratings do not', async () => {
    const peers = [peer('a', 'correct'), peer('b', 'wrong-3'), peer('c', 'correct')];
    const model = simModel('accuracy=1,badjson=1,seed=4');
    for (let i = 0; i < 30; i++) {
      const text = (await model.generate(answerCall(`k${i}`, peers))).text;
      expect(JSON.parse.bind(JSON, text)).toThrow();
      expect(readAgentReply(text, query, peers.length)).toMatchObject({ answer: 'correct', ratingsParsed: false });
    }
    // Without peers there are no ratings to cut.
    expect(JSON.parse((await model.generate(answerCall('k0', []))).text)).toEqual({
      answer: 'correct',
      reasoning: 'sim: worked it out',
    });
  });
});

describe('sim ranker', () => {
  const responses = [peer('w1', 'wrong-1'), peer('r1', 'correct'), peer('w2', 'wrong-2'), peer('r2', 'correct')];
  const rankCall = (key: string): ChatCall => ({
    messages: [{ role: 'user', content: rankerUserPrompt(query, responses, 2) }],
    tag: { purpose: 'rank', key, attempt: 1 },
  });
  const rankingOf = async (spec: string, key: string) => {
    const text = (await simModel(spec).generate(rankCall(key))).text;
    const parsed = parseRanking(
      text,
      responses.map((r) => r.agent),
      2,
    );
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.ranking;
  };
  const rightFirst = (ranking: readonly string[]) =>
    new Set(ranking.slice(0, 2)).size === 2 && ranking.slice(0, 2).every((name) => name.startsWith('r'));

  it('ranks every agent shown, by name, right answers first when accuracy is 1', async () => {
    for (let i = 0; i < 50; i++) {
      const ranking = await rankingOf('accuracy=1,seed=3', `q${i}`);
      expect([...ranking].sort()).toEqual(['r1', 'r2', 'w1', 'w2']);
      expect(rightFirst(ranking)).toBe(true);
    }
    expect(await rankingOf('accuracy=1,seed=3', 'q7')).toEqual(await rankingOf('accuracy=1,seed=3', 'q7'));
  });

  it('puts right answers first with probability accuracy (plus chance)', async () => {
    const rankings = await Promise.all(
      Array.from({ length: 3000 }, (_, i) => rankingOf('accuracy=0.6,seed=3', `q${i}`)),
    );
    // A random order of 4 puts both right ones first with probability 1/6: 0.6 + 0.4/6.
    expect(Math.abs(share(rankings, rightFirst) - (0.6 + 0.4 / 6))).toBeLessThan(0.035);
  });

  it('badjson gives a ranking the engine cannot use (its fallback is then visible)', async () => {
    const text = (await simModel('badjson=1,seed=3').generate(rankCall('q1'))).text;
    expect(
      parseRanking(
        text,
        responses.map((r) => r.agent),
        2,
      ).ok,
    ).toBe(false);
  });
});

describe('sim team helpers', () => {
  it('readTeamPrompt reads options, peer blocks (inline and fenced answers) and ranker blocks', () => {
    const text = [
      'Question:',
      'Which?',
      '',
      'Options:',
      '(A) correct',
      '(B) wrong-1',
      '',
      "The team's latest responses to this question (in random order):",
      '',
      'Response 1:',
      'Answer: B',
      'Reasoning: hmm',
      '',
      'Response 2 (your previous response):',
      'Answer: (none given)',
      '',
      'Response 3:',
      'Answer:',
      '```',
      'line one',
      'line two',
      '```',
      'Reasoning: code',
      '',
      'Solution 4:',
      'Answer: A',
    ].join('\n');
    expect(readTeamPrompt(text)).toEqual({
      question: 'Which?',
      options: new Map([
        ['A', 'correct'],
        ['B', 'wrong-1'],
      ]),
      responses: [
        { id: '1', answer: 'wrong-1' },
        { id: '2', answer: '' },
        { id: '3', answer: 'line one\nline two' },
        { id: '4', answer: 'correct' },
      ],
    });
  });

  it('majorityAnswer takes the most frequent answer and breaks ties among the tied only', () => {
    const random = mulberry32(1);
    expect(majorityAnswer(['x', 'y', 'y'], random)).toBe('y');
    const tied = new Set(Array.from({ length: 50 }, () => majorityAnswer(['x', 'y', 'z', 'x', 'y'], random)));
    expect(tied).toEqual(new Set(['x', 'y']));
  });

  it('simTeamAnswer and simRanking are pure functions of their random sources', () => {
    const streams = (seed: number) => ({
      answer: mulberry32(seed),
      wrong: mulberry32(seed + 1),
      follow: mulberry32(seed + 2),
      ratings: mulberry32(seed + 3),
    });
    const skill = { accuracy: 0.5, follow: 0.5 };
    expect(simTeamAnswer(['correct', 'wrong-1'], skill, streams(8))).toEqual(
      simTeamAnswer(['correct', 'wrong-1'], skill, streams(8)),
    );
    const entries = [
      { id: 'a', answer: 'wrong-1' },
      { id: 'b', answer: 'correct' },
    ];
    expect(simRanking(entries, 1, mulberry32(4))).toEqual(['b', 'a']);
    expect(simRanking(entries, 0.5, mulberry32(4))).toEqual(simRanking(entries, 0.5, mulberry32(4)));
  });

  it('follow is a sim option: a probability, shown in the id only when not the default', () => {
    expect(parseSimOptions('follow=0.8').follow).toBe(0.8);
    expect(parseSimOptions('').follow).toBe(0.5);
    expect(() => parseSimOptions('follow=1.5')).toThrow(/follow/);
    expect(simModel('seed=7').id).not.toContain('follow');
    expect(simModel('follow=0.25,seed=7').id).toContain('follow=0.25');
  });
});
