import { describe, expect, it } from 'vitest';
import { formatError } from '../../src/errors.js';
import { parseReferenceSessions } from '../../src/dialog/reference-sessions.js';
import { turnCases } from '../../src/dialog/turn-eval.js';
import { thrownError } from './thrown-error.js';

const session = {
  id: 'r1',
  profile: 'p1',
  messages: [
    { role: 'user', content: 'I want to return order A-1' },
    { role: 'bot', tool: 'check_order', args: { order_id: 'A-1' }, result: { status: 'delivered' } },
    { role: 'bot', content: 'It was delivered. Why do you return it?' },
    { role: 'user', content: 'Actually, what are your opening hours?', oow: 'irrelevant_answering/topic_shift' },
    { role: 'bot', content: 'We are open 9 to 5. Why do you return it?' },
    { role: 'user', content: 'Broken.' },
    { role: 'bot', tool: 'create_return', args: { order_id: 'A-1', reason: 'broken' }, ok: false, result: 'no stock' },
  ],
};

/** What parsing `text` as a reference sessions file throws. */
const referenceError = (text: string) => thrownError(() => parseReferenceSessions(text, 'r.jsonl'));

describe('parseReferenceSessions', () => {
  it('reads user messages with OOW tags, tool moves (args default {}, ok default true) and replies', () => {
    const [read] = parseReferenceSessions(
      `${JSON.stringify(session)}\n${JSON.stringify({ id: 'r2', messages: [{ role: 'bot', tool: 'x' }] })}`,
      'r.jsonl',
    );
    expect(read!.messages).toStrictEqual([
      { role: 'user', content: 'I want to return order A-1' },
      {
        role: 'bot',
        kind: 'tool',
        tool: 'check_order',
        args: { order_id: 'A-1' },
        result: { status: 'delivered' },
        ok: true,
      },
      { role: 'bot', kind: 'reply', content: 'It was delivered. Why do you return it?' },
      {
        role: 'user',
        content: 'Actually, what are your opening hours?',
        oow: { category: 'irrelevant_answering', subtype: 'topic_shift' },
      },
      { role: 'bot', kind: 'reply', content: 'We are open 9 to 5. Why do you return it?' },
      { role: 'user', content: 'Broken.' },
      {
        role: 'bot',
        kind: 'tool',
        tool: 'create_return',
        args: { order_id: 'A-1', reason: 'broken' },
        result: 'no stock',
        ok: false,
      },
    ]);
    expect(read!.profile).toBe('p1');
    expect(read!.line).toBe(1);
  });

  it('locates every problem in every line', () => {
    const lines = [
      JSON.stringify({ id: 'a', messages: [{ role: 'user', content: 'hi' }] }),
      JSON.stringify({
        id: 'b',
        messages: [
          { role: 'customer', content: 'hi' },
          { role: 'user', content: 'x', oow: 'a/b/c/d/e/f/g/h/' },
          { role: 'bot', tool: 'check', args: [1], ok: 'yes' },
          { role: 'bot', content: 'ok', tool_args: {} },
        ],
      }),
      JSON.stringify({ id: 'b', mesages: [] }),
    ];
    expect(formatError(referenceError(lines.join('\n')))).toBe(
      [
        'r.jsonl: invalid reference sessions file: 8 problems',
        '  - r.jsonl:1:11 messages: the session has no bot move to evaluate',
        '  - r.jsonl:2:24 messages[0].role: "role" must be "user" or "bot", got "customer"',
        '  - r.jsonl:2:87 messages[1].oow: "oow" must be "category/subtype" or "category" (e.g. "intent_switching/detail_switching"), got a string',
        '  - r.jsonl:2:142 messages[2].args: "args" must be an object of parameter values',
        '  - r.jsonl:2:153 messages[2].ok: "ok" must be true or false',
        '  - r.jsonl:2:194 messages[3].tool_args: unknown field "tool_args"; allowed fields: role, content',
        '  - r.jsonl:3:11 mesages: unknown field "mesages" (did you mean "messages"?); allowed fields: id, profile, messages',
        '  - r.jsonl:3:1 messages: missing "messages"',
      ].join('\n'),
    );
  });
});

describe('turnCases (teacher forcing)', () => {
  it('gives each bot move the reference prefix, recorded results as tool messages, OOW turns tagged', () => {
    const [reference] = parseReferenceSessions(JSON.stringify(session), 'r.jsonl');
    const cases = turnCases(reference!);
    expect(cases.map((item) => [item.index, item.turn, item.oow, item.prefix.length])).toEqual([
      [1, 1, undefined, 1],
      [2, 1, undefined, 3],
      [4, 2, 'irrelevant_answering/topic_shift', 5],
      [6, 3, undefined, 7],
    ]);
    expect(cases[1]!.prefix).toStrictEqual([
      { role: 'user', content: 'I want to return order A-1' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'ref_1', name: 'check_order', args: { order_id: 'A-1' } }] },
      { role: 'tool', toolCallId: 'ref_1', name: 'check_order', content: '{"status":"delivered"}' },
    ]);
    expect(cases[3]!.reference).toEqual({
      kind: 'tool',
      name: 'create_return',
      args: { order_id: 'A-1', reason: 'broken' },
    });
    expect(cases[2]!.reference).toEqual({ kind: 'reply', text: 'We are open 9 to 5. Why do you return it?' });
  });
});

describe('failed calls in references', () => {
  it('an "error" marks the call failed and is what the bot sees; "ok": true with an error is refused', () => {
    const [reference] = parseReferenceSessions(
      JSON.stringify({
        id: 'r',
        messages: [
          { role: 'user', content: 'book it' },
          { role: 'bot', tool: 'book', args: { slot: 'S-1' }, error: 'HTTP 409: the slot is taken' },
          { role: 'bot', content: 'That slot was just taken.' },
        ],
      }),
      'r.jsonl',
    );
    expect(reference!.messages[1]).toMatchObject({ ok: false, error: 'HTTP 409: the slot is taken' });
    expect(turnCases(reference!)[1]!.prefix.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'ref_1',
      name: 'book',
      content: 'HTTP 409: the slot is taken',
      isError: true,
    });
    expect(
      formatError(referenceError('{"id": "r", "messages": [{"role": "bot", "tool": "x", "ok": true, "error": "no"}]}')),
    ).toContain('messages[0].error: a call with "ok": true has no "error"');
  });
});
