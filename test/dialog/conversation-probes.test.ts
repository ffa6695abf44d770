import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConversation } from '../../src/dialog/conversation.js';
import { readSessionEvents } from '../../src/dialog/read-session-events.js';
import { sessionStoreOf } from '../../src/dialog/session-store.js';
import type { ChatCall, ChatModel, ChatResult } from '../../src/llm/chat-model.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { RunStore } from '../../src/store/run-store.js';
import type { JsonValue } from '../../src/tools/tool.js';
import { countingTools, refundPdl } from './dialog-fixtures.js';

/** A model that answers from a list of results, then with a plain reply. */
function listModel(results: Partial<ChatResult>[]): ChatModel & { prompts: string[]; calls: ChatCall[] } {
  const prompts: string[] = [];
  const calls: ChatCall[] = [];
  let index = 0;
  return {
    id: 'probe',
    kind: 'scripted',
    toolCalling: 'native',
    prompts,
    calls,
    async generate(call) {
      calls.push(call);
      prompts.push(`${call.system}\n${JSON.stringify(call.messages)}`);
      const next = results[index++] ?? { text: 'Done.' };
      return { text: '', usage: { inputTokens: 1, outputTokens: 1 }, model: 'probe', ...next };
    },
  };
}
const toolCall = (name: string, args: unknown, id = `c${Math.random()}`) => ({
  toolCalls: [{ id, name, args }],
});

let home: string;
let store: RunStore;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'weft-dialog-probe-'));
  store = await openRunStore({ home });
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

const stored = async (sessionId: string) => readSessionEvents(sessionStoreOf(store), sessionId);

describe('conversation under hostile model output', () => {
  it('refuses tool arguments nested a million deep: the API is not called, the turn and the session go on', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    const { tools, calls } = countingTools();
    const model = listModel([toolCall('find_customer', { email: deep }), { text: 'What is your email?' }]);
    const conversation = await createConversation(refundPdl(), { model, tools, store: sessionStoreOf(store) });
    const turn = await conversation.send('hi');
    expect(turn.reply).toBe('What is your email?');
    expect(calls).toEqual([]);
    const decision = turn.events.find((event) => event.type === 'decision');
    expect(decision).toMatchObject({ action: { kind: 'tool', name: 'find_customer' } });
    expect(JSON.stringify(decision)).toContain('[not recorded: the arguments nest deeper than 32 levels');
    expect(model.prompts[1]).toContain('nest deeper than 32 levels');
    expect((await stored(conversation.sessionId)).at(-1)).toMatchObject({ type: 'turn-end', rejections: 1 });
    expect((await conversation.send('a@x.io')).reply).toBe('Done.');
  });

  it('refuses 10 MB of tool arguments without storing them', async () => {
    const { tools, calls } = countingTools();
    const model = listModel([toolCall('find_customer', { email: 'x'.repeat(10_000_000) }), { text: 'ok' }]);
    const conversation = await createConversation(refundPdl(), { model, tools, store: sessionStoreOf(store) });
    expect((await conversation.send('hi')).reply).toBe('ok');
    expect(calls).toEqual([]);
    expect(JSON.stringify(await stored(conversation.sessionId)).length).toBeLessThan(20_000);
    expect(model.prompts[1]).toContain('10,000,012 bytes of JSON; at most 64,000');
  });

  it('cuts a 10 MB reply and thought to a readable size', async () => {
    const { tools } = countingTools();
    const model = listModel([{ text: `Thought: ${'t'.repeat(5_000_000)}\nResponse: ${'y'.repeat(10_000_000)}` }]);
    const conversation = await createConversation(refundPdl(), { model, tools, store: sessionStoreOf(store) });
    const turn = await conversation.send('hi');
    expect(turn.reply.length).toBeLessThan(65_000);
    expect(turn.reply).toMatch(/… \[cut: 9,936,000 more characters\]$/);
    expect(JSON.stringify(await stored(conversation.sessionId)).length).toBeLessThan(200_000);
  });

  it('takes one call of a reply with a thousand, and answers a name that is no API with the API list', async () => {
    const { tools, calls } = countingTools();
    const many = {
      toolCalls: Array.from({ length: 1000 }, (_, i) => ({ id: `c${i}`, name: 'find_customer', args: { email: 'a' } })),
    };
    const model = listModel([many, toolCall('__proto__', {}), { text: 'ok' }]);
    const conversation = await createConversation(refundPdl(), { model, tools, controllerMode: 'none' });
    const turn = await conversation.send('hi');
    expect(calls).toHaveLength(1);
    const results = turn.events.filter((event) => event.type === 'tool-result');
    expect(results.map((event) => event.ok)).toEqual([true, false]);
    expect(results[1]).toMatchObject({ error: expect.stringContaining('no API named __proto__; the APIs are') });
  });
});

describe('secret arguments', () => {
  it('are in no stored event, not even in an API error quoting them, and repeats of a call with a secret are caught', async () => {
    const secret = 'ada.lovelace@secret.example';
    const reached: unknown[] = [];
    const { tools } = countingTools();
    const guarded = tools.map((tool) =>
      tool.name === 'find_customer'
        ? {
            ...tool,
            secretArgs: ['email'],
            async call(args: unknown) {
              reached.push(args);
              throw new Error(`no customer with email ${(args as { email: string }).email}`);
            },
          }
        : tool,
    );
    const same = () => toolCall('find_customer', { email: secret });
    const model = listModel([same(), same(), same(), { text: 'I could not find you.' }]);
    const conversation = await createConversation(refundPdl(), { model, tools: guarded, store: sessionStoreOf(store) });
    const turn = await conversation.send(`my email is ${secret.length}`);
    expect(turn.reply).toBe('I could not find you.');
    expect(reached).toHaveLength(2);
    const refused = turn.events.filter((event) => event.type === 'verdict' && !event.accepted);
    expect(refused).toEqual([expect.objectContaining({ controller: 'repetition', action: 'tool:find_customer' })]);
    const kept = JSON.stringify(await stored(conversation.sessionId));
    expect(kept).not.toContain(secret);
    expect(kept).toContain('no customer with email [redacted]');
  });
});

describe('secret arguments in text that did not parse', () => {
  it('are not recorded: the arguments of a tool with secrets that are not an object are redacted whole', async () => {
    const { tools } = countingTools();
    const guarded = tools.map((tool) => (tool.name === 'find_customer' ? { ...tool, secretArgs: ['email'] } : tool));
    const broken = '{"email": "ada.lovelace@secret.example", ';
    const model = listModel([toolCall('find_customer', broken), { text: 'Could you repeat that?' }]);
    const conversation = await createConversation(refundPdl(), { model, tools: guarded, store: sessionStoreOf(store) });
    await conversation.send('hi');
    const kept = JSON.stringify(await stored(conversation.sessionId));
    expect(kept).toContain('[redacted] (not a JSON object)');
    expect(kept).not.toContain('ada.lovelace');
  });
});

describe('user messages', () => {
  it('a lone surrogate is kept as U+FFFD, so the history sent to the provider is well-formed text', async () => {
    const { tools } = countingTools();
    const model = listModel([{ text: 'Hello!' }, { text: 'Yes?' }]);
    const conversation = await createConversation(refundPdl(), { model, tools, store: sessionStoreOf(store) });
    expect((await conversation.send('hi \ud83d there')).reply).toBe('Hello!');
    await conversation.send('and \ude00 again \ud83d\ude00');
    const users = (await stored(conversation.sessionId)).flatMap((event) =>
      event.type === 'user-message' ? [event.text] : [],
    );
    expect(users).toEqual(['hi \ufffd there', 'and \ufffd again \ud83d\ude00']);
    const sent = model.calls[1]?.messages.map((message) => message.content).join('\n') ?? '';
    expect(sent).toContain('hi \ufffd there');
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(sent)).toBe(false);
  });
});

describe('a send aborted in the middle of an API call', () => {
  it('continueTurn on the same conversation records the call as interrupted, never repeats it, and the history is whole', async () => {
    const { tools } = countingTools();
    const abort = new AbortController();
    let reached = 0;
    const hanging = tools.map((tool) =>
      tool.name === 'find_customer'
        ? {
            ...tool,
            call: () => {
              reached++;
              abort.abort();
              return new Promise<JsonValue>(() => {});
            },
          }
        : tool,
    );
    const model = listModel([toolCall('find_customer', { email: 'a' }, 'c-1'), { text: 'Let me check again later.' }]);
    const conversation = await createConversation(refundPdl(), { model, tools: hanging, store: sessionStoreOf(store) });
    await expect(conversation.send('email a', { signal: abort.signal })).rejects.toThrow();
    expect(conversation.pendingTurn).toBe(true);
    const turn = await conversation.continueTurn();
    expect(turn.reply).toBe('Let me check again later.');
    expect(reached).toBe(1);
    expect(turn.events[0]).toMatchObject({ type: 'tool-result', callId: 'c-1', ok: false });
    expect((turn.events[0] as { error?: string }).error).toContain('not repeated');
    expect(model.calls[1]?.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c-1', isError: true });
  });
});

describe('tools that misbehave', () => {
  it('a thrown plain object, null-prototype object or 5 MB string becomes a short API error the bot is shown', async () => {
    const thrown: unknown[] = [{ code: 42 }, Object.create(null), 'e'.repeat(5_000_000)];
    const { tools } = countingTools();
    let n = 0;
    const throwing = tools.map((tool) => ({
      ...tool,
      async call() {
        throw thrown[n++];
      },
    }));
    const model = listModel([
      toolCall('find_customer', { email: 'a' }),
      toolCall('find_customer', { email: 'b' }),
      toolCall('find_customer', { email: 'c' }),
      { text: 'Sorry.' },
    ]);
    const conversation = await createConversation(refundPdl(), {
      model,
      tools: throwing,
      store: sessionStoreOf(store),
    });
    const turn = await conversation.send('hi');
    expect(turn.reply).toBe('Sorry.');
    const errors = turn.events.flatMap((event) => (event.type === 'tool-result' ? [event.error ?? ''] : []));
    expect(errors[0]).toBe('find_customer: threw {"code":42}');
    expect(errors[1]).toBe('find_customer: threw {}');
    expect(errors[2]).toMatch(/^find_customer: e{2000}… \[cut: 5,000,000 characters\]$/);
  });

  it('a result nested 1,000 deep does not break the turn', async () => {
    const { tools } = countingTools();
    let deep: JsonValue = 'bottom';
    for (let i = 0; i < 1000; i++) deep = { a: deep };
    const deepTools = tools.map((tool) => ({ ...tool, call: async () => deep }));
    const model = listModel([toolCall('find_customer', { email: 'a' }), { text: 'Found.' }]);
    const conversation = await createConversation(refundPdl(), {
      model,
      tools: deepTools,
      store: sessionStoreOf(store),
    });
    const turn = await conversation.send('hi');
    expect(turn.reply).toBe('Found.');
    const result = turn.events.find((event) => event.type === 'tool-result');
    expect(result).toMatchObject({ ok: true, result: expect.stringMatching(/^\{"a":\{"a":.*"bottom"\}+$/) });
    // The model read the same JSON text it would have read from the object.
    expect(model.calls[1]?.messages.at(-1)).toMatchObject({ role: 'tool', content: JSON.stringify(deep) });
  });
});
