/**
 * Preconditions on results at run time: a call that succeeded but said "no" does not unlock what depends on it.
 * The dependency controller's guidance and refusal name the condition and the value the API returned; the latest
 * successful result is the one that counts; the engine's `preconditionsMet` and the session metrics' violations use
 * the same rule.
 */
import { describe, expect, it } from 'vitest';
import { createConversation } from '../../src/dialog/conversation.js';
import type { Pdl } from '../../src/dialog/pdl.js';
import type { SessionEvent } from '../../src/dialog/session-events.js';
import { countSessionEvents } from '../../src/dialog/session-metrics.js';
import { WeftError } from '../../src/errors.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import type { JsonValue, Tool } from '../../src/tools/tool.js';
import { refundPdl } from './dialog-fixtures.js';

const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, args }] });
const ofType = <T extends SessionEvent['type']>(events: readonly SessionEvent[], type: T) =>
  events.filter((event): event is Extract<SessionEvent, { type: T }> => event.type === type);

const flightPdl = (): Pdl =>
  refundPdl({
    name: 'flight',
    apis: [
      { name: 'check', request: ['date'], response: ['is_air'], precondition: [] },
      {
        name: 'book',
        request: ['date'],
        response: ['booking_id'],
        precondition: ['check'],
        conditions: [{ api: 'check', field: ['is_air'], op: '==', value: 'true' }],
      },
    ],
  });

/** `check` answers from `answers` in turn (an Error is thrown); `book` counts its calls. */
function flightTools(answers: (JsonValue | Error)[]): { tools: Tool[]; booked: JsonValue[] } {
  const booked: JsonValue[] = [];
  const tool = (name: string, call: (args: JsonValue) => JsonValue): Tool => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    source: 'test',
    idempotent: name === 'check',
    async call(args) {
      return call(args);
    },
  });
  return {
    booked,
    tools: [
      tool('check', () => {
        const next = answers.shift() ?? null;
        if (next instanceof Error) throw new WeftError('TOOL', next.message);
        return next;
      }),
      tool('book', (args) => {
        booked.push(args);
        return { booking_id: 'B-1' };
      }),
    ],
  };
}

describe('preconditions on results', () => {
  it('refuses a call after a "no", names the condition and the value, and lets it through after a "yes"', async () => {
    const { tools, booked } = flightTools([{ is_air: 'false' }, { is_air: true }]);
    const model = scriptedModel([
      call('check', { date: 'D1' }),
      call('book', { date: 'D1' }),
      call('check', { date: 'D2' }),
      call('book', { date: 'D2' }),
      { text: 'Booked B-1.' },
    ]);
    const conversation = await createConversation(flightPdl(), { model, tools });
    const turn = await conversation.send('book me a flight');
    expect(booked).toEqual([{ date: 'D2' }]);

    const refused = ofType(turn.events, 'verdict').filter((verdict) => !verdict.accepted);
    expect(refused).toEqual([
      expect.objectContaining({
        controller: 'dependency',
        action: 'tool:book',
        reason:
          'book is not available yet: check.is_air == "true" does not hold: the latest successful check call returned is_air = "false" (the API was not called)',
      }),
    ]);
    // Guidance before the first call says what book needs; after the "no", what the API returned.
    const guidance = ofType(turn.events, 'guidance').map((event) => event.text);
    expect(guidance[0]).toContain('- book (needs check (with is_air == "true") first)');
    expect(guidance[1]).toContain(
      '- book (needs check.is_air == "true", but the latest successful check call returned is_air = "false")',
    );
    // The boolean true of the second answer meets == "true"; the call that ran met its preconditions.
    expect(ofType(turn.events, 'tool-call').map((event) => [event.name, event.preconditionsMet])).toEqual([
      ['check', true],
      ['check', true],
      ['book', true],
    ]);
    expect(countSessionEvents(flightPdl(), conversation.events)).toMatchObject({
      violationsProposed: 1,
      violationsExecuted: 0,
      rejections: 1,
    });
  });

  it('the latest successful result counts: a later "no" withdraws a "yes", a failed call changes nothing', async () => {
    const { tools, booked } = flightTools([
      { is_air: 'true' },
      { is_air: 'false' },
      new Error('down'),
      { is_air: 'true' },
    ]);
    const model = scriptedModel([
      call('check', { date: 'D1' }),
      call('check', { date: 'D2' }),
      call('book', { date: 'D1' }),
      call('check', { date: 'D3' }),
      call('book', { date: 'D1' }),
      call('check', { date: 'D4' }),
      call('book', { date: 'D4' }),
      { text: 'Booked.' },
    ]);
    const conversation = await createConversation(flightPdl(), { model, tools, maxActionsPerTurn: 10 });
    await conversation.send('book');
    expect(booked).toEqual([{ date: 'D4' }]);
    const refusals = ofType(conversation.events, 'verdict').filter((verdict) => !verdict.accepted);
    // Both refusals quote D2's "false": the failed D3 call returned nothing to read.
    expect(refusals.map((verdict) => verdict.reason)).toEqual([
      expect.stringContaining('returned is_air = "false"'),
      expect.stringContaining('returned is_air = "false"'),
    ]);
    expect(countSessionEvents(flightPdl(), conversation.events)).toMatchObject({
      violationsProposed: 2,
      violationsExecuted: 0,
      rejections: 2,
    });
  });

  it('without post controllers the call runs, recorded as a violation by the same rule', async () => {
    const { tools, booked } = flightTools([{ is_air: 'no' }]);
    const model = scriptedModel([call('check', { date: 'D1' }), call('book', { date: 'D1' }), { text: 'Booked.' }]);
    const conversation = await createConversation(flightPdl(), { model, tools, controllerMode: 'pre-only' });
    await conversation.send('book');
    expect(booked).toHaveLength(1);
    expect(ofType(conversation.events, 'tool-call').at(-1)).toMatchObject({ name: 'book', preconditionsMet: false });
    expect(countSessionEvents(flightPdl(), conversation.events)).toMatchObject({
      violationsProposed: 1,
      violationsExecuted: 1,
    });
  });

  it('a result without the field fails the condition, and the refusal says the field is missing', async () => {
    const { tools, booked } = flightTools([{ other: 1 }]);
    const model = scriptedModel([call('check', { date: 'D1' }), call('book', { date: 'D1' }), { text: 'Sorry.' }]);
    const conversation = await createConversation(flightPdl(), { model, tools });
    await conversation.send('book');
    expect(booked).toEqual([]);
    const refused = ofType(conversation.events, 'verdict').find((verdict) => !verdict.accepted);
    expect(refused?.reason).toContain('the latest successful check call returned no is_air');
  });
});
