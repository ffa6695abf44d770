import { afterEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import type { ChatCall, ToolDeclaration } from '../../src/llm/chat-model.js';
import { simModel } from '../../src/llm/sim-model.js';
import {
  registerSimResponder,
  simResponderFor,
  simResponderPurposes,
  type SimResponder,
} from '../../src/llm/sim-responders.js';

const PURPOSE = 'test-summarise';
const unregister: (() => void)[] = [];
afterEach(() => {
  for (const undo of unregister.splice(0)) undo();
});

function register(purpose: string, responder: SimResponder): void {
  unregister.push(registerSimResponder(purpose, responder));
}

const call = (content: string, extra: Partial<ChatCall> = {}): ChatCall => ({
  messages: [{ role: 'user', content }],
  tag: { purpose: PURPOSE, key: 'k1' },
  ...extra,
});

const lookup: ToolDeclaration = {
  name: 'lookup',
  description: 'looks a word up',
  inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
};

describe('the sim model answers a purpose with its registered responder', () => {
  it('refuses a purpose nothing answers, naming it and how to register one', async () => {
    const error = await simModel('seed=1')
      .generate(call('hello'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WeftError);
    expect((error as WeftError).code).toBe('MODEL_CONFIG');
    expect((error as WeftError).retryable).toBe(false);
    expect((error as WeftError).message).toContain(`no responder for purpose "${PURPOSE}"`);
    expect((error as WeftError).message).toContain(`registerSimResponder("${PURPOSE}"`);
  });

  it('answers with a registered responder, whose random streams are seeded by the call, until it is unregistered', async () => {
    const responder: SimResponder = {
      respond: ({ call: seen, tag, stream }) =>
        `${tag.key}: ${seen.messages[0]?.content} ${stream('pick')().toFixed(6)}`,
    };
    const undo = registerSimResponder(PURPOSE, responder);
    unregister.push(undo);
    const first = await simModel('seed=3').generate(call('hello'));
    const again = await simModel('seed=3').generate(call('hello'));
    const otherSeed = await simModel('seed=4').generate(call('hello'));
    expect(first.text).toMatch(/^k1: hello 0\.\d{6}$/);
    expect(again.text).toBe(first.text);
    expect(otherSeed.text).not.toBe(first.text);
    expect(first.model).toBe('sim');
    expect(first.usage.outputTokens).toBeGreaterThan(0);
    expect(simResponderPurposes()).toContain(PURPOSE);
    undo();
    expect(simResponderFor(PURPOSE)).toBeUndefined();
    await expect(simModel('seed=3').generate(call('hello'))).rejects.toThrow(/no responder for purpose/);
  });

  it('awaits a responder that answers with a promise, and passes on its tool calls', async () => {
    register(PURPOSE, {
      answersTools: true,
      respond: async () => ({ text: '', toolCalls: [{ id: 'call_1', name: 'lookup', args: { word: 'x' } }] }),
    });
    const result = await simModel('seed=1').generate(call('hello', { tools: [lookup] }));
    expect(result.toolCalls).toEqual([{ id: 'call_1', name: 'lookup', args: { word: 'x' } }]);
  });

  it('makes its own seeded tool calls first when the responder does not answer tools, then asks the responder', async () => {
    let asked = 0;
    register(PURPOSE, {
      respond: () => {
        asked++;
        return 'final';
      },
    });
    const model = simModel('seed=1,toolcalls=1');
    const first = await model.generate(call('hello', { tools: [lookup] }));
    expect(first.toolCalls?.[0]?.name).toBe('lookup');
    expect(asked).toBe(0);
    const second = await model.generate({
      ...call('hello', { tools: [lookup] }),
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: '', toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: first.toolCalls![0]!.id, name: 'lookup', content: '{}' },
      ],
    });
    expect(second.text).toBe('final');
    expect(asked).toBe(1);
  });

  it('refuses a reply that is neither text nor { text }', async () => {
    register(PURPOSE, { respond: () => 42 as unknown as string });
    await expect(simModel('seed=1').generate(call('hello'))).rejects.toThrow(
      `the sim responder for purpose "${PURPOSE}" returned neither a string nor { text, toolCalls? }`,
    );
  });

  it('keeps one responder per purpose: a second is refused, the same one again is not', () => {
    const responder: SimResponder = { respond: () => 'a' };
    register(PURPOSE, responder);
    expect(() => registerSimResponder(PURPOSE, responder)).not.toThrow();
    expect(() => registerSimResponder(PURPOSE, { respond: () => 'b' })).toThrow(
      `the sim model already has a responder for purpose "${PURPOSE}"`,
    );
    expect(() => registerSimResponder('', responder)).toThrow('a sim responder needs a purpose');
    expect(() => registerSimResponder('x', {} as SimResponder)).toThrow('has no respond function');
  });
});
