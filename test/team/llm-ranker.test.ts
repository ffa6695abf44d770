import { describe, expect, it } from 'vitest';
import { WeftError, isAbortError } from '../../src/errors.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { createLlmRanker, fallbackRanking, parseRanking } from '../../src/team/llm-ranker.js';
import type { PeerResponse, TeamQuery } from '../../src/team/team.js';

const query: TeamQuery = { question: 'What is 6 times 7?', kind: 'exact' };
const responses: PeerResponse[] = [
  { agent: 'algebraist', answer: '42', text: 'six sevens are 42' },
  { agent: 'geometer', answer: '42', text: 'a 6 by 7 rectangle has 42 squares' },
  { agent: 'guesser', answer: '8', text: 'feels like 8' },
  { agent: 'skeptic', answer: '13', text: 'unlucky' },
];

/** The agents in the order the ranker's prompt shows them, known by their (distinct) texts: no names are shown. */
function shownOrder(prompt: string): string[] {
  return [...prompt.matchAll(/^Solution (\d+):\nAnswer: .*\nReasoning: (.*)$/gm)].map(
    (m) => responses.find((r) => r.text === m[2])!.agent,
  );
}

describe('createLlmRanker', () => {
  it('asks once with the question, every response anonymously and the number to keep, and reads names', async () => {
    const model = scriptedModel([{ text: '{"ranking": ["geometer", "algebraist", "skeptic"]}' }]);
    const result = await createLlmRanker(model).rank(query, responses, 2);
    expect(result).toEqual({
      ranking: ['geometer', 'algebraist', 'skeptic'],
      calls: 1,
      fallback: false,
      reason: 'LLM ranker: geometer > algebraist > skeptic',
    });
    expect(model.calls).toHaveLength(1);
    const call = model.calls[0]!;
    expect(call.tag?.purpose).toBe('rank');
    const prompt = call.messages[0]!.content;
    expect(prompt).toContain(query.question);
    for (const r of responses) {
      expect(prompt).toContain(`\nAnswer: ${r.answer}\nReasoning: ${r.text}`);
      // Anonymous: no agent is named.
      expect(prompt).not.toContain(r.agent);
    }
    expect(prompt).toContain('Choose the best 2 of these 4 solutions. Think it through step by step');
    expect(prompt).toContain('the numbers of the best 2, best first, in square brackets, e.g. [1, 2].');
    expect(call.json).toBeUndefined();
    expect([...shownOrder(prompt)].sort()).toEqual(responses.map((r) => r.agent).sort());
  });

  it('reads numbers as the 1-based positions shown, which are shuffled with a seed', async () => {
    const model = scriptedModel([{ text: 'My ranking: [2, 4]', repeat: true }]);
    const result = await createLlmRanker(model).rank(query, responses, 2);
    const shown = shownOrder(model.calls[0]!.messages[0]!.content);
    expect(result.ranking).toEqual([shown[1], shown[3]]);
    expect(result.fallback).toBe(false);
    // Same seed and question → same order; another seed → the same agents in (here) another order.
    await createLlmRanker(model).rank(query, responses, 2);
    expect(shownOrder(model.calls[1]!.messages[0]!.content)).toEqual(shown);
    const orders = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5]) {
      await createLlmRanker(model, { seed }).rank(query, responses, 2);
      orders.add(shownOrder(model.calls.at(-1)!.messages[0]!.content).join());
    }
    expect(orders.size).toBeGreaterThan(1);
  });

  it('maps the numbers ending a free-text, step-by-step reply back to the agents shown', async () => {
    const reply = [
      'Solution 1 and solution 3 disagree. Let me check each step.',
      'Solution [2] multiplies correctly; so does solution 4, more briefly. Solution 1 guesses.',
      'The best two: [4, 2]',
    ].join('\n');
    const model = scriptedModel([{ text: reply }]);
    const result = await createLlmRanker(model).rank(query, responses, 2);
    const shown = shownOrder(model.calls[0]!.messages[0]!.content);
    expect(result).toMatchObject({ ranking: [shown[3], shown[1]], fallback: false });
  });

  it('falls back visibly on a reply without a ranking', async () => {
    const model = scriptedModel([{ text: 'All of them are fine.' }]);
    const result = await createLlmRanker(model).rank(query, responses, 2);
    expect(result.fallback).toBe(true);
    expect(result.calls).toBe(1);
    expect(result.ranking).toEqual(['algebraist', 'geometer', 'guesser', 'skeptic']);
    expect(result.reason).toBe(
      'ranker fallback: no ranking found in the reply "All of them are fine."; kept the agents agreeing with the majority answer "42", then the rest, in input order',
    );
  });

  it('falls back on unknown agents and on too few', async () => {
    const unknown = await createLlmRanker(scriptedModel([{ text: '{"ranking": ["oracle", "geometer"]}' }])).rank(
      query,
      responses,
      2,
    );
    expect(unknown).toMatchObject({
      fallback: true,
      reason: expect.stringContaining('"oracle", which is not one of the 4 responses'),
    });
    const few = await createLlmRanker(scriptedModel([{ text: '{"ranking": ["geometer", "geometer"]}' }])).rank(
      query,
      responses,
      2,
    );
    expect(few).toMatchObject({ fallback: true, reason: expect.stringContaining('names 1 agent(s), 2 are needed') });
    const outOfRange = await createLlmRanker(scriptedModel([{ text: '[5, 1]' }])).rank(query, responses, 2);
    expect(outOfRange.fallback).toBe(true);
  });

  it('falls back when the call fails, counting it, but lets an abort through', async () => {
    const failing: ChatModel = {
      id: 'x',
      kind: 'real',
      generate: async () => {
        throw new WeftError('PROVIDER', 'overloaded');
      },
    };
    const result = await createLlmRanker(failing).rank(query, responses, 2);
    expect(result).toMatchObject({
      fallback: true,
      calls: 1,
      reason: expect.stringContaining('the ranker call failed: overloaded'),
    });

    const controller = new AbortController();
    controller.abort();
    const error = await createLlmRanker(scriptedModel([{ text: '[1, 2]' }]))
      .rank(query, responses, 2, controller.signal)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isAbortError(error)).toBe(true);
  });
});

describe('parseRanking', () => {
  const shown = ['b', 'a', 'c'];
  it('accepts names in any case, "agent x", numbers and numeric strings', () => {
    expect(parseRanking('{"ranking": ["A", "agent c"]}', shown, 2)).toEqual({ ok: true, ranking: ['a', 'c'] });
    expect(parseRanking('{"top": [3, "1"]}', shown, 2)).toEqual({ ok: true, ranking: ['c', 'b'] });
    expect(parseRanking('["c", "b", "a"]', shown, 2)).toEqual({ ok: true, ranking: ['c', 'b', 'a'] });
  });

  it('reads numbers with a 0 as 0-based', () => {
    expect(parseRanking('{"ranking": [0, 2]}', shown, 2)).toEqual({ ok: true, ranking: ['b', 'c'] });
  });

  it('prefers a {"ranking": …} object to bracketed numbers or names in the prose before it', () => {
    expect(parseRanking('Response [2] is best, then [1].\n{"ranking": [2, 1]}', shown, 2)).toEqual({
      ok: true,
      ranking: ['a', 'b'],
    });
    expect(parseRanking('Agent "c" [3] is clearly wrong.\n{"ranking": ["b","a"]}', shown, 2)).toEqual({
      ok: true,
      ranking: ['b', 'a'],
    });
    expect(parseRanking('[3] looks weak.\n```json\n{"ranking": ["a", "b"]}\n```', shown, 2)).toEqual({
      ok: true,
      ranking: ['a', 'b'],
    });
    // Bare arrays still count when there is no ranking object.
    expect(parseRanking('Best first: [3, 1]', shown, 2)).toEqual({ ok: true, ranking: ['c', 'b'] });
    expect(parseRanking('Best first: [3, 1]. Response [2] was weakest.', shown, 2)).toEqual({
      ok: true,
      ranking: ['c', 'b'],
    });
  });

  it('takes the last ranking object by position, fenced or not', () => {
    const fencedLast = 'First thought: {"ranking": ["a", "b"]}\nOn reflection:\n```json\n{"ranking": ["c", "b"]}\n```';
    expect(parseRanking(fencedLast, shown, 2)).toEqual({ ok: true, ranking: ['c', 'b'] });
    const plainLast = '```json\n{"ranking": ["a", "b"]}\n```\nOn reflection: {"ranking": ["c", "a"]}';
    expect(parseRanking(plainLast, shown, 2)).toEqual({ ok: true, ranking: ['c', 'a'] });
    // `ranking` beats the other keys wherever they are.
    expect(parseRanking('{"ranking": ["a", "c"]} {"top": ["b", "c"]}', shown, 2)).toEqual({
      ok: true,
      ranking: ['a', 'c'],
    });
  });

  it('asks for no more than there are', () => {
    expect(parseRanking('{"ranking": ["a"]}', ['a'], 2)).toEqual({ ok: true, ranking: ['a'] });
  });
});

describe('fallbackRanking', () => {
  it("puts the majority's agents first, then the rest, each in input order", () => {
    const input: PeerResponse[] = [
      { agent: 'p', answer: 'A', text: '' },
      { agent: 'q', answer: 'B', text: '' },
      { agent: 'r', answer: 'b', text: '' },
      { agent: 's', answer: 'C', text: '' },
    ];
    expect(fallbackRanking({ kind: 'choice' }, input)).toEqual({ ranking: ['q', 'r', 'p', 's'], majority: 'B' });
    // A tie: the answer given first wins.
    expect(fallbackRanking({ kind: 'choice' }, input.slice(0, 2)).ranking).toEqual(['p', 'q']);
  });

  it('never keeps an agent without an answer before one with an answer', () => {
    const input: PeerResponse[] = ['', 'B', 'C', 'D'].map((answer, i) => ({ agent: 'abcd'[i]!, answer, text: '' }));
    expect(fallbackRanking({ kind: 'choice' }, input)).toEqual({ ranking: ['b', 'c', 'd', 'a'], majority: 'B' });
  });

  it('says so in the reason when agents without an answer were ranked last', async () => {
    const input: PeerResponse[] = ['', 'B', 'C', 'D'].map((answer, i) => ({ agent: 'abcd'[i]!, answer, text: '' }));
    const result = await createLlmRanker(scriptedModel([{ text: 'no idea' }])).rank(
      { question: 'q', kind: 'choice' },
      input,
      2,
    );
    expect(result.ranking.slice(0, 2)).toEqual(['b', 'c']);
    expect(result.reason).toMatch(/majority answer "B", then the rest, in input order, those without an answer last$/);
  });
});
