/**
 * The final-answer parser every variant shares (final-answer.ts): JSON as a whole, in a fence, inside prose, after
 * "the answer is"; repaired JSON; and the prose it refuses, so that a wrong or hedged answer never reads as right.
 */
import { describe, expect, it } from 'vitest';
import { parseFinalAnswer, readWithRepairs } from '../../src/distill/final-answer.js';

const value = (text: string) => {
  const parsed = parseFinalAnswer(text);
  return parsed.ok ? { value: parsed.value, from: parsed.from } : { error: parsed.error };
};

describe('parseFinalAnswer', () => {
  it('reads a reply that is JSON, or one scalar dressed as prose dresses it', () => {
    expect(value('6')).toEqual({ value: 6, from: 'json' });
    expect(value(' {"total": 3} ')).toEqual({ value: { total: 3 }, from: 'json' });
    expect(value('"shipped"')).toEqual({ value: 'shipped', from: 'json' });
    expect(value('null')).toEqual({ value: null, from: 'json' });
    expect(value('6.')).toEqual({ value: 6, from: 'scalar' });
    expect(value('**6**')).toEqual({ value: 6, from: 'scalar' });
    expect(value('`true`')).toEqual({ value: true, from: 'scalar' });
    expect(value('"shipped".')).toEqual({ value: 'shipped', from: 'scalar' });
  });

  it('reads JSON in a fence or inside prose, the value that ends last winning, repaired JSON last', () => {
    expect(value('The sum is below.\n```json\n6\n```')).toMatchObject({ value: 6 });
    expect(value('Final answer: {"total": 3}')).toEqual({ value: { total: 3 }, from: 'embedded' });
    expect(value('The tool gave {"id": 1}; then {"total": 3} is the result')).toMatchObject({ value: { total: 3 } });
    // A repaired value only when nothing parses as written.
    expect(value("Result: {'total': 3,}")).toEqual({ value: { total: 3 }, from: 'repaired' });
    expect(value('{\'x\': 1} and then {"total": 3}')).toMatchObject({ value: { total: 3 } });
  });

  it('reads the scalar after the last "answer" marker, up to the end of its sentence', () => {
    expect(value('I added 1, 2 and 3. The answer is 6.')).toEqual({ value: 6, from: 'prose' });
    expect(value('Final answer: -2.5')).toMatchObject({ value: -2.5 });
    expect(value('**Final Answer:** 1,234.5 — done')).toEqual({ error: expect.any(String) });
    expect(value('**Final Answer:** 1,234.5')).toMatchObject({ value: 1234.5 });
    expect(value('The answer is "not a palindrome". I checked twice.')).toMatchObject({ value: 'not a palindrome' });
    expect(value('answer = `shipped`')).toMatchObject({ value: 'shipped' });
    expect(value('The answer is: true')).toMatchObject({ value: true });
    // A tool result quoted before the answer does not win over it.
    expect(value('get_order returned {"total": 5}. So the answer is 6.')).toMatchObject({ value: 6, from: 'prose' });
    // Only the last marker counts: a correction is taken, an earlier value is not revived.
    expect(value('The answer is 6. Checking again, the answer is 7.')).toMatchObject({ value: 7 });
    expect(value('The answer is 6? No: the answer is not 6.')).toEqual({ error: expect.any(String) });
  });

  it('refuses prose that is not one clear value (wrong answers stay wrong, none turn right)', () => {
    for (const text of [
      'The answer is 6 apples.',
      'The answer is not 6.',
      'The answer is 6 or 7.',
      'The answer is "6" or "7".',
      'The answer is 6, since 2 * 3 = 6',
      'The answer is shipped.',
      'shipped',
      'I could not finish: the tool add failed.',
      'The total is 6.',
      '',
    ])
      expect(value(text), text).toEqual({ error: expect.any(String) });
    // A scalar is JSON: 6 is a number, not the string "6".
    expect(value('The answer is 6.')).toMatchObject({ value: 6 });
    expect(value('The answer is "6".')).toMatchObject({ value: '6' });
  });
});

describe('readWithRepairs', () => {
  it('asks again with the error until a reply reads, at most the bound', async () => {
    const asked: string[] = [];
    const replies = ['still no', 'The answer is 6.'];
    const ask = async (error: string) => {
      asked.push(error);
      return replies.shift() ?? '';
    };
    const read = (text: string) => {
      const parsed = parseFinalAnswer(text);
      return parsed.ok ? { ok: true as const, value: parsed.value } : parsed;
    };
    expect(await readWithRepairs('no idea', read, ask, 2)).toEqual({ ok: true, value: 6 });
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain('no final answer found');
    const failing = await readWithRepairs('no idea', read, async () => 'nope', 1);
    expect(failing).toMatchObject({ ok: false, reply: 'nope' });
  });
});
