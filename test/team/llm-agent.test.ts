import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { cleanAnswer, extractAnswer, toChoiceLetter } from '../../src/team/extract-answer.js';
import { answerKey, createLlmAgent, readAgentReply, readRatings } from '../../src/team/llm-agent.js';
import type { AgentInput, PeerResponse, TeamQuery } from '../../src/team/team.js';

const choiceQuery: TeamQuery = {
  question: 'Which planet is the largest?',
  choices: ['Mars', 'Jupiter', 'Venus'],
  kind: 'choice',
};
const exactQuery: TeamQuery = { question: 'What is 6 times 7?', kind: 'exact' };

const peers: PeerResponse[] = [
  { agent: 'critic', answer: 'C', text: 'Venus is hot, so it must be big.' },
  { agent: 'physicist', answer: 'B', text: 'Jupiter has 318 Earth masses.' },
  { agent: 'historian', answer: 'B', text: 'Galileo saw its moons.' },
];

describe('createLlmAgent', () => {
  it('asks the question alone at step 1, with one call tagged answer', async () => {
    const model = scriptedModel([{ text: '{"answer": "B", "reasoning": "Jupiter is a gas giant."}' }]);
    const agent = createLlmAgent({ name: 'physicist', prompt: 'You are a careful physicist.', model });
    const response = await agent.respond({ query: choiceQuery, step: 1, peers: [] });
    expect(response).toEqual({
      answer: 'B',
      text: 'Jupiter is a gas giant.',
      ratings: [],
      ratingsParsed: true,
      calls: 1,
    });
    expect(model.calls).toHaveLength(1);
    const call = model.calls[0]!;
    expect(call.system).toContain('You are a careful physicist.');
    const prompt = call.messages[0]!.content;
    // Free-text reasoning, ended by the answer in a fixed form; no JSON asked, and nothing to score yet.
    for (const part of [
      choiceQuery.question,
      '(A) Mars',
      '(B) Jupiter',
      '(C) Venus',
      'Explain your reasoning thoroughly',
      'end your reply with a last line `Answer: (X)`',
    ])
      expect(prompt).toContain(part);
    expect(prompt).not.toContain('score');
    expect(prompt).not.toContain('JSON');
    expect(call.json).toBeUndefined();
    expect(call.tag).toEqual({ purpose: 'answer', key: answerKey('physicist', 1, choiceQuery), attempt: 1 });
  });

  it('reads a free-text reply in the asked form: the answer at the end, the [[…]] scores before it', async () => {
    const reply = [
      'Response 1 argues from temperature, which says nothing about size. Response 2 is mine and still holds.',
      'Response 3 agrees with me. Scores: [[1, 5, 4]]',
      'Jupiter is by far the most massive and largest planet.',
      'Answer: (B)',
    ].join('\n');
    const model = scriptedModel([{ text: reply }]);
    const agent = createLlmAgent({ name: 'physicist', prompt: 'You are a careful physicist.', model });
    const response = await agent.respond({ query: choiceQuery, step: 2, peers });
    expect(response).toEqual({ answer: 'B', text: reply, ratings: [1, 5, 4], ratingsParsed: true, calls: 1 });
  });

  it('does not take the [[…]] scores for an exact answer when no answer line follows them', () => {
    const reply = 'Six sevens are forty-two.\n42\n[[3, 4]]';
    expect(readAgentReply(reply, { kind: 'exact' }, 2)).toMatchObject({ answer: '42', ratings: [3, 4] });
    expect(readAgentReply('Answer: Paris\n[[5, 1]]', { kind: 'text' }, 2)).toMatchObject({ answer: 'Paris' });
  });

  it('shows the peers in the order given, marks its own, and asks for the ratings in the same call', async () => {
    const model = scriptedModel([{ text: '{"answer": "B", "reasoning": "Mass settles it.", "ratings": [1, 5, 4]}' }]);
    const agent = createLlmAgent({ name: 'physicist', prompt: 'You are a careful physicist.', model });
    const input: AgentInput = { query: choiceQuery, step: 2, peers };
    const response = await agent.respond(input);
    expect(response.ratings).toEqual([1, 5, 4]);
    expect(response.ratingsParsed).toBe(true);
    const prompt = model.calls[0]!.messages[0]!.content;
    expect(prompt).toContain(choiceQuery.question);
    const positions = peers.map((peer) => prompt.indexOf(peer.text));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(prompt).toContain('Response 1:\nAnswer: C\nReasoning: Venus is hot, so it must be big.');
    expect(prompt).toContain('Response 2 (your previous response):\nAnswer: B');
    expect(prompt).toContain(
      'score each of the 3 responses above from 1 (poor) to 5 (excellent), in the order they are listed',
    );
    expect(prompt).toContain('e.g. [[4, 2, 5]], before your answer');
    expect(prompt).toContain('examine your own solution and the others step by step');
    expect(model.calls[0]!.tag?.key).toBe(answerKey('physicist', 2, choiceQuery));
  });

  it('reads a free-text reply without re-prompting: still one call', async () => {
    const model = scriptedModel([{ text: 'Jupiter is by far the largest.\nScores: [[2, 5, 5]]\nAnswer: (B)' }]);
    const agent = createLlmAgent({ name: 'x', prompt: 'p', model });
    const response = await agent.respond({ query: choiceQuery, step: 2, peers });
    expect(response).toMatchObject({ answer: 'B', ratings: [2, 5, 5], ratingsParsed: true, calls: 1 });
    expect(model.calls).toHaveLength(1);
  });

  it('falls back to equal ratings, flagged, when the reply has none', async () => {
    const model = scriptedModel([{ text: '{"answer": "Jupiter", "reasoning": "largest"}' }]);
    const agent = createLlmAgent({ name: 'x', prompt: 'p', model });
    const response = await agent.respond({ query: choiceQuery, step: 2, peers });
    expect(response).toMatchObject({ answer: 'B', ratings: [3, 3, 3], ratingsParsed: false, calls: 1 });
  });

  it('keys calls by agent, step and question', () => {
    expect(answerKey('a', 1, exactQuery)).not.toBe(answerKey('a', 2, exactQuery));
    expect(answerKey('a', 1, exactQuery)).not.toBe(answerKey('b', 1, exactQuery));
    expect(answerKey('a', 1, exactQuery)).not.toBe(answerKey('a', 1, choiceQuery));
  });
});

describe('readAgentReply', () => {
  it('takes the answer, reasoning and ratings from JSON, also inside prose or a fence', () => {
    const reply = 'Here you go:\n```json\n{"answer": "42", "reasoning": "6·7", "ratings": [4, 2]}\n```';
    expect(readAgentReply(reply, exactQuery, 2)).toEqual({
      answer: '42',
      text: '6·7',
      ratings: [4, 2],
      ratingsParsed: true,
    });
  });

  it('repairs slightly broken JSON', () => {
    expect(readAgentReply("{answer: '42', reasoning: 'six sevens', ratings: [5, 1,]}", exactQuery, 2)).toEqual({
      answer: '42',
      text: 'six sevens',
      ratings: [5, 1],
      ratingsParsed: true,
    });
  });

  it('clamps ratings outside 1–5 and unwraps [[…]]', () => {
    expect(readAgentReply('{"answer": "42", "ratings": [[0, 7, "3"]]}', exactQuery, 3).ratings).toEqual([1, 5, 3]);
  });

  it('rejects ratings of the wrong count or kind', () => {
    expect(readAgentReply('{"answer": "42", "ratings": [5, 4]}', exactQuery, 3)).toMatchObject({
      ratings: [3, 3, 3],
      ratingsParsed: false,
    });
    expect(readAgentReply('{"answer": "42", "ratings": ["good", "bad"]}', exactQuery, 2)).toMatchObject({
      ratingsParsed: false,
    });
    expect(readRatings(undefined, 2)).toBeUndefined();
    expect(readRatings(undefined, 0)).toEqual([]);
  });

  it('does not read a bracketed number in prose as ratings', () => {
    expect(readAgentReply('Response [5] looks off.\n{"answer": "B"}', choiceQuery, 1)).toEqual({
      answer: 'B',
      text: 'Response [5] looks off.\n{"answer": "B"}',
      ratings: [3],
      ratingsParsed: false,
    });
    expect(readAgentReply('I agree with [1] and [2].\nAnswer: 42', exactQuery, 2)).toMatchObject({
      ratings: [3, 3],
      ratingsParsed: false,
    });
  });

  it('reads ratings given explicitly outside the answer object', () => {
    expect(readAgentReply('Response [1] is weak.\nRatings: [2, 5]\nAnswer: 42', exactQuery, 2)).toMatchObject({
      answer: '42',
      ratings: [2, 5],
      ratingsParsed: true,
    });
    expect(readAgentReply('**Scores**: 4, 1\nAnswer: 42', exactQuery, 2)).toMatchObject({
      ratings: [4, 1],
      ratingsParsed: true,
    });
    expect(readAgentReply('{"answer": "42"}\n{"ratings": [1, 3]}', exactQuery, 2)).toMatchObject({
      ratings: [1, 3],
      ratingsParsed: true,
    });
  });

  it('passes the whole reply on when there is no JSON reasoning', () => {
    expect(readAgentReply('I computed it.\nAnswer: 42', exactQuery, 0)).toEqual({
      answer: '42',
      text: 'I computed it.\nAnswer: 42',
      ratings: [],
      ratingsParsed: true,
    });
  });

  it('extracts from the text when the JSON answer names no option', () => {
    expect(readAgentReply('{"answer": "the big one"}\nThe answer is (B).', choiceQuery, 0).answer).toBe('B');
  });
});

describe('extractAnswer', () => {
  it('finds choice letters in the usual forms', () => {
    expect(extractAnswer('Let me think. The answer is (C).', choiceQuery)).toBe('C');
    expect(extractAnswer('Answer: B', choiceQuery)).toBe('B');
    expect(extractAnswer('Final: \\boxed{B}', choiceQuery)).toBe('B');
    expect(extractAnswer('Between (A) and (B), I pick (B)', choiceQuery)).toBe('B');
    expect(extractAnswer('Jupiter', choiceQuery)).toBe('B');
    expect(extractAnswer('The answer is a matter of taste.', choiceQuery)).toBe('');
    // D is not an option of a three-option question.
    expect(extractAnswer('Answer: D', choiceQuery)).toBe('');
  });

  it('finds exact answers', () => {
    expect(extractAnswer('so x = \\boxed{\\frac{1}{2}} overall', exactQuery)).toBe('\\frac{1}{2}');
    expect(extractAnswer('Working...\nFinal answer: 42.', exactQuery)).toBe('42');
    expect(extractAnswer('After checking, the answer is 42. Done.', exactQuery)).toBe('42');
    expect(extractAnswer('lots of work\n\n  42  \n', exactQuery)).toBe('42');
  });

  it('takes the last code fence for code and the text after Answer: for text', () => {
    expect(extractAnswer('first\n```python\nx = 1\n```\nthen\n```python\nx = 2\n```', { kind: 'code' })).toBe('x = 2');
    expect(extractAnswer('Some thoughts.\nAnswer: The sky is blue\nbecause of scattering.', { kind: 'text' })).toBe(
      'The sky is blue\nbecause of scattering.',
    );
    expect(extractAnswer('plain text', { kind: 'text' })).toBe('plain text');
  });
});

describe('toChoiceLetter and cleanAnswer', () => {
  it('maps labels and option texts to letters', () => {
    expect(
      ['B', 'b', '(b)', 'B. Jupiter', 'Option B', 'jupiter', ' "Jupiter." '].map((a) =>
        toChoiceLetter(a, choiceQuery.choices),
      ),
    ).toEqual(['B', 'B', 'B', 'B', 'B', 'B', 'B']);
    expect(toChoiceLetter('Saturn', choiceQuery.choices)).toBe('');
    expect(toChoiceLetter('E', choiceQuery.choices)).toBe('');
  });

  it('cleans JSON answers', () => {
    expect(cleanAnswer('\\boxed{42}', exactQuery)).toBe('42');
    expect(cleanAnswer('```js\nf()\n```', { kind: 'code' })).toBe('f()');
  });
});
