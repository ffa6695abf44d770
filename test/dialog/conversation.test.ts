import { describe, expect, it } from 'vitest';
import type { Controller } from '../../src/dialog/controller.js';
import { createConversation } from '../../src/dialog/conversation.js';
import type { SessionEvent } from '../../src/dialog/session-events.js';
import { WeftError } from '../../src/errors.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { countingTools, refundPdl } from './dialog-fixtures.js';

const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, args }] });
const ofType = <T extends SessionEvent['type']>(events: readonly SessionEvent[], type: T) =>
  events.filter((event): event is Extract<SessionEvent, { type: T }> => event.type === type);

describe('createConversation', () => {
  it('runs a turn: calls in order, a reply ends it, state and events follow', async () => {
    const { tools, calls } = countingTools();
    const model = scriptedModel([
      call('find_customer', { email: 'a@x.io' }),
      call('get_order', { order_id: 'O-1' }),
      { text: 'Thought: order is delivered\nResponse: Your order O-1 is delivered. Shall I refund it?' },
    ]);
    const conversation = await createConversation(refundPdl(), { model, tools });
    const turn = await conversation.send('email: a@x.io, order_id: O-1');
    expect(turn.reply).toBe('Your order O-1 is delivered. Shall I refund it?');
    expect(calls.map((c) => c.name)).toEqual(['find_customer', 'get_order']);
    expect(conversation.state.turn).toBe(1);
    expect(conversation.state.calls.map((c) => [c.name, c.ok])).toEqual([
      ['find_customer', true],
      ['get_order', true],
    ]);
    expect(conversation.state.slots).toMatchObject({ email: 'a@x.io', customer_id: 'C-1', status: 'delivered' });
    const decisions = ofType(turn.events, 'decision');
    expect(decisions.at(-1)?.thought).toBe('order is delivered');
    expect(ofType(turn.events, 'turn-end')[0]).toMatchObject({ actions: 2, rejections: 0, exhausted: false });
    expect(ofType(turn.events, 'tool-call').every((event) => event.preconditionsMet)).toBe(true);
  });

  it('tells every API call the session it is made for (session:<id>), which http tools send as Weft-Scope', async () => {
    const { tools, scopes } = countingTools();
    const model = scriptedModel([call('find_customer', { email: 'a@x.io' }), { text: 'Found you.' }]);
    const conversation = await createConversation(refundPdl(), { model, tools });
    await conversation.send('hi');
    expect(scopes).toEqual([`session:${conversation.sessionId}`]);
  });

  it('refuses a call whose preconditions have not succeeded: the API is never reached and the bot retries', async () => {
    const { tools, calls } = countingTools();
    const model = scriptedModel([
      call('refund_order', { order_id: 'O-1' }),
      call('find_customer', { email: 'a@x.io' }),
      { text: 'Found you.' },
    ]);
    const conversation = await createConversation(refundPdl(), { model, tools });
    const turn = await conversation.send('refund O-1 please');
    expect(calls.map((c) => c.name)).toEqual(['find_customer']);
    const rejected = ofType(turn.events, 'verdict').filter((verdict) => !verdict.accepted);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ controller: 'dependency', action: 'tool:refund_order' });
    expect(rejected[0]?.reason).toContain('find_customer, get_order must succeed first');
    // The retry saw the reason.
    expect(model.calls[1]?.system).toContain('was refused');
    expect(ofType(turn.events, 'turn-end')[0]).toMatchObject({ actions: 1, rejections: 1 });
  });

  it('counts only successful preconditions: a failed call leaves its dependents unavailable', async () => {
    const { tools, calls } = countingTools(['find_customer']);
    const model = scriptedModel([
      call('find_customer', { email: 'a@x.io' }),
      call('get_order', { order_id: 'O-1' }),
      { text: 'Sorry.' },
    ]);
    const conversation = await createConversation(refundPdl(), { model, tools });
    const turn = await conversation.send('hi');
    expect(calls.map((c) => c.name)).toEqual(['find_customer']);
    const result = ofType(turn.events, 'tool-result')[0];
    expect(result).toMatchObject({ ok: false, name: 'find_customer' });
    expect(result?.error).toContain('failed on purpose');
    // The model saw the API's error as the tool result.
    const seen = model.calls[1]?.messages.at(-1);
    expect(seen).toMatchObject({ role: 'tool', isError: true });
    expect(ofType(turn.events, 'verdict').some((v) => !v.accepted && v.action === 'tool:get_order')).toBe(true);
  });

  it('pre-decision guidance lists the APIs not yet available', async () => {
    const { tools } = countingTools();
    const model = scriptedModel([{ text: 'Hello! What is your email?' }]);
    const conversation = await createConversation(refundPdl(), { model, tools });
    const turn = await conversation.send('hi');
    const guidance = ofType(turn.events, 'guidance').find((event) => event.controller === 'dependency');
    expect(guidance?.text).toContain('refund_order (needs find_customer, get_order first)');
    expect(model.calls[0]?.system).toContain('refund_order (needs find_customer, get_order first)');
    expect(model.calls[0]?.system).toContain('<apis>');
  });

  it('refuses the same idempotent API with the same arguments past the repetition limit (key order does not matter)', async () => {
    const { tools, calls } = countingTools([], { idempotent: ['find_customer'] });
    const model = scriptedModel([
      call('find_customer', { email: 'a@x.io', x: 1 }),
      call('find_customer', { x: 1, email: 'a@x.io' }),
      call('find_customer', { email: 'a@x.io', x: 1 }),
      { text: 'ok' },
    ]);
    const conversation = await createConversation(refundPdl(), { model, tools });
    const turn = await conversation.send('hi');
    expect(calls).toHaveLength(2);
    expect(ofType(turn.events, 'verdict').find((v) => !v.accepted)?.controller).toBe('repetition');
  });

  it('without post controllers a violation is executed and recorded as such', async () => {
    const { tools, calls } = countingTools();
    const model = scriptedModel([call('refund_order', { order_id: 'O-1' }), { text: 'Refunded.' }]);
    const conversation = await createConversation(refundPdl(), { model, tools, controllerMode: 'pre-only' });
    const turn = await conversation.send('refund');
    expect(calls.map((c) => c.name)).toEqual(['refund_order']);
    expect(ofType(turn.events, 'tool-call')[0]?.preconditionsMet).toBe(false);
    expect(ofType(turn.events, 'verdict')).toHaveLength(0);
    expect(ofType(turn.events, 'guidance').length).toBeGreaterThan(0);
  });

  it('with no controllers there is neither guidance nor verdicts', async () => {
    const { tools } = countingTools();
    const model = scriptedModel([call('refund_order', { order_id: 'O-1' }), { text: 'Refunded.' }]);
    const conversation = await createConversation(refundPdl(), { model, tools, controllerMode: 'none' });
    const turn = await conversation.send('refund');
    expect(ofType(turn.events, 'guidance')).toHaveLength(0);
    expect(ofType(turn.events, 'verdict')).toHaveLength(0);
  });

  it('ends a turn that used all its actions with an apology, and the session goes on', async () => {
    const { tools } = countingTools();
    const model = scriptedModel([
      call('refund_order', { order_id: 'O-1' }),
      call('refund_order', { order_id: 'O-1' }),
      { text: 'Next turn reply.' },
    ]);
    const conversation = await createConversation(refundPdl(), { model, tools, maxActionsPerTurn: 2 });
    const first = await conversation.send('refund');
    expect(first.reply).toContain('could not finish');
    expect(ofType(first.events, 'turn-end')[0]).toMatchObject({ exhausted: true, rejections: 2, actions: 0 });
    const second = await conversation.send('again');
    expect(second.reply).toBe('Next turn reply.');
  });

  it('refuses a huge or binary message politely and keeps the session intact', async () => {
    const { tools } = countingTools();
    const model = scriptedModel([{ text: 'Hello.' }]);
    const conversation = await createConversation(refundPdl(), { model, tools });
    const huge = await conversation.send('x'.repeat(1_000_000));
    expect(huge.reply).toContain('at most 32,000');
    const junk = await conversation.send('\u0000\u0001\u0002binary\ufffd\ufffd\ufffd');
    expect(junk.reply).toContain('binary');
    expect(conversation.state.turn).toBe(0);
    expect(model.calls).toHaveLength(0);
    expect((await conversation.send('hi')).reply).toBe('Hello.');
    expect(conversation.state.turn).toBe(1);
  });

  it('a model error becomes an apology and the next turn works', async () => {
    const { tools } = countingTools();
    let n = 0;
    const model: ChatModel = {
      id: 'flaky',
      kind: 'real',
      toolCalling: 'native',
      async generate() {
        n++;
        if (n === 1) throw new WeftError('PROVIDER', 'HTTP 500 from the provider');
        return { text: 'Back again.', usage: { inputTokens: 1, outputTokens: 1 }, model: 'flaky' };
      },
    };
    const conversation = await createConversation(refundPdl(), { model, tools });
    const first = await conversation.send('hi');
    expect(first.reply).toContain('went wrong');
    expect(ofType(first.events, 'model-call')[0]?.error).toContain('HTTP 500');
    expect((await conversation.send('hi again')).reply).toBe('Back again.');
  });

  it('steers to closing past the turn limit and then ends the session', async () => {
    const { tools } = countingTools();
    const model = scriptedModel([{ text: 'one', repeat: true }]);
    const conversation = await createConversation(refundPdl({ controllers: { sessionLength: { maxTurns: 2 } } }), {
      model,
      tools,
    });
    await conversation.send('1');
    const second = await conversation.send('2');
    expect(ofType(second.events, 'guidance').some((event) => event.controller === 'session-length')).toBe(true);
    const third = await conversation.send('3');
    expect(third.ended).toBe(true);
    await expect(conversation.send('4')).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });

  it("runs a user's controller and names it in verdicts", async () => {
    const { tools, calls } = countingTools();
    const noRefunds: Controller = {
      name: 'no-refunds-on-sunday',
      post: (action) =>
        action.kind === 'tool' && action.name === 'find_customer'
          ? { accepted: false, reason: 'closed today' }
          : { accepted: true },
    };
    const model = scriptedModel([call('find_customer', { email: 'a' }), { text: 'We are closed.' }]);
    const conversation = await createConversation(refundPdl(), { model, tools, controllers: [noRefunds] });
    const turn = await conversation.send('hi');
    expect(calls).toHaveLength(0);
    expect(ofType(turn.events, 'verdict').find((v) => !v.accepted)).toMatchObject({
      controller: 'no-refunds-on-sunday',
      reason: 'closed today',
    });
  });

  it('refuses a PDL whose APIs have no tools, naming them', async () => {
    const model = scriptedModel([]);
    await expect(createConversation(refundPdl(), { model, tools: [] })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('find_customer, get_order, refund_order'),
    });
  });

  it('refuses a second send while one is running', async () => {
    const { tools } = countingTools();
    const model = scriptedModel([{ text: 'a' }, { text: 'b' }]);
    const conversation = await createConversation(refundPdl(), { model, tools });
    const first = conversation.send('one');
    await expect(conversation.send('two')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await first;
  });
});
