import { describe, expect, it } from 'vitest';
import type { Controller } from '../../src/dialog/controller.js';
import { createConversation } from '../../src/dialog/conversation.js';
import { createReplyStream, visibleReply } from '../../src/dialog/reply-stream.js';
import { formatTranscriptEntry, transcriptOf } from '../../src/dialog/transcript.js';
import { WeftError } from '../../src/errors.js';
import type { ChatCall, ChatModel, StreamEvent } from '../../src/llm/chat-model.js';
import { cutStreamError } from '../../src/llm/cut-stream-error.js';
import { scriptedModel, type ScriptedReply } from '../../src/llm/scripted-model.js';
import { countingTools, refundPdl } from './dialog-fixtures.js';

/** A scripted model that streams each reply's text in pieces of `size` characters before it returns. */
function streaming(replies: readonly ScriptedReply[], size = 4): ChatModel {
  const inner = scriptedModel(replies);
  return {
    id: 'streaming-test',
    kind: 'scripted',
    toolCalling: 'native',
    async generate(call: ChatCall, signal?: AbortSignal) {
      const result = await inner.generate(call, signal);
      for (let at = 0; at < result.text.length; at += size) {
        call.onStream?.({ kind: 'delta', text: result.text.slice(at, at + size) });
      }
      return result;
    },
  };
}

/** What a listener keeps of a stream: each delta appended, each discard taking back its characters. */
function kept(events: readonly StreamEvent[]): string {
  let text = '';
  for (const event of events) {
    text = event.kind === 'delta' ? text + event.text : text.slice(0, text.length - event.chars);
  }
  return text;
}

describe('visibleReply', () => {
  it('holds back a Thought until the Response marker, and a possible marker until it is decided', () => {
    expect(visibleReply('Tho')).toBe('');
    expect(visibleReply('Thought: the order is late')).toBe('');
    expect(visibleReply('Thought: the order is late\nResp')).toBe('');
    expect(visibleReply('Thought: the order is late\nResponse: Your ord')).toBe('Your ord');
    expect(visibleReply('Response: Hi')).toBe('Hi');
    expect(visibleReply('The order')).toBe('The order');
    // Trailing white space waits for what follows it (the recorded reply is trimmed).
    expect(visibleReply('Hello \n')).toBe('Hello');
  });

  it('a stream whose visible text changes course takes back what it showed', () => {
    const events: StreamEvent[] = [];
    const stream = createReplyStream((event) => events.push(event));
    for (const piece of ['Checking', ' now\nRes', 'ponse: Done.']) stream.hear({ kind: 'delta', text: piece });
    expect(events).toEqual([
      { kind: 'delta', text: 'Checking' },
      { kind: 'delta', text: ' now' },
      { kind: 'discard', chars: 12 },
      { kind: 'delta', text: 'Done.' },
    ]);
    stream.settle('Done.');
    expect(kept(events)).toBe('Done.');
  });
});

describe('a conversation streaming its reply', () => {
  it('shows only the reply: no thought, nothing written beside a tool call; the deltas kept are the reply', async () => {
    const { tools } = countingTools();
    const model = streaming([
      { text: 'Let me look you up.', toolCalls: [{ name: 'find_customer', args: { email: 'a@x.io' } }] },
      { text: 'Thought: found them\nResponse: Found you, Ada. Which order?' },
    ]);
    const conversation = await createConversation(refundPdl(), { model, tools });
    const events: StreamEvent[] = [];
    const turn = await conversation.send('email a@x.io', { onStream: (event) => events.push(event) });
    expect(turn.reply).toBe('Found you, Ada. Which order?');
    expect(kept(events)).toBe(turn.reply);
    // The tool call's text was shown and then taken back; the thought never was.
    expect(events[0]).toEqual({ kind: 'delta', text: 'Let' });
    expect(events).toContainEqual({ kind: 'discard', chars: 'Let me look you up.'.length });
    expect(events.some((event) => event.kind === 'delta' && event.text.includes('found them'))).toBe(false);
    expect(turn.cut).toBeUndefined();
  });

  it('a reply a controller refuses is withdrawn before the next proposal streams', async () => {
    const { tools } = countingTools();
    const noPromises: Controller = {
      name: 'no-promises',
      post: (action) =>
        action.kind === 'reply' && action.text.includes('refunded')
          ? { accepted: false, reason: 'nothing was refunded' }
          : { accepted: true },
    };
    const model = streaming([{ text: 'All refunded!' }, { text: 'What is your email?' }]);
    const conversation = await createConversation(refundPdl(), { model, tools, controllers: [noPromises] });
    const events: StreamEvent[] = [];
    const turn = await conversation.send('refund please', { onStream: (event) => events.push(event) });
    expect(turn.reply).toBe('What is your email?');
    expect(events).toContainEqual({ kind: 'discard', chars: 'All refunded!'.length });
    expect(kept(events)).toBe('What is your email?');
  });

  it('a model that does not stream is heard once, with the whole reply', async () => {
    const { tools } = countingTools();
    const conversation = await createConversation(refundPdl(), {
      model: scriptedModel([{ text: 'Hello there.' }]),
      tools,
    });
    const events: StreamEvent[] = [];
    await conversation.send('hi', { onStream: (event) => events.push(event) });
    expect(events).toEqual([{ kind: 'delta', text: 'Hello there.' }]);
  });

  it('a reply cut mid-stream by an abort is kept as the reply, marked cut, and the transcript says so', async () => {
    const { tools } = countingTools();
    const controller = new AbortController();
    // Streams two pieces, then waits for the caller to cut it (as Ctrl-C does), failing as a provider does.
    const model: ChatModel = {
      id: 'cut-test',
      kind: 'scripted',
      toolCalling: 'native',
      async generate(call, signal) {
        call.onStream?.({ kind: 'delta', text: 'Your refund ' });
        call.onStream?.({ kind: 'delta', text: 'is on its' });
        if (!signal?.aborted)
          await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
        throw cutStreamError(new WeftError('ABORTED', 'The operation was aborted'), 'Your refund is on its');
      },
    };
    const conversation = await createConversation(refundPdl(), { model, tools });
    const events: StreamEvent[] = [];
    const turn = await conversation.send('refund?', {
      signal: controller.signal,
      onStream: (event) => {
        events.push(event);
        if (kept(events) === 'Your refund is on its') controller.abort();
      },
    });
    expect(turn.reply).toBe('Your refund is on its');
    expect(turn.cut).toEqual({ chars: 21, reason: expect.stringContaining('ABORTED') });
    const reply = conversation.events.find((event) => event.type === 'bot-reply');
    expect(reply).toMatchObject({ text: 'Your refund is on its', cut: { chars: 21 } });
    const failed = conversation.events.find((event) => event.type === 'model-call');
    expect(failed).toMatchObject({ error: expect.stringContaining('reply cut after 21 characters') });
    const bot = transcriptOf(conversation.events).entries.find((entry) => entry.role === 'bot');
    expect(bot && formatTranscriptEntry(bot, false)).toBe('bot> Your refund is on its [reply cut after 21 characters]');
    // The turn ended: the next message starts a new one.
    expect(conversation.pendingTurn).toBe(false);
  });

  it('a failure before anything was shown is not a cut: the turn apologises as before', async () => {
    const { tools } = countingTools();
    const model: ChatModel = {
      id: 'fail-test',
      kind: 'scripted',
      toolCalling: 'native',
      async generate(call) {
        // Only reasoning arrived: nothing the user was shown, so nothing to keep.
        call.onStream?.({ kind: 'delta', text: 'Thought: hmm' });
        throw new WeftError('PROVIDER', 'connection dropped', { partialText: 'Thought: hmm' });
      },
    };
    const conversation = await createConversation(refundPdl(), { model, tools });
    const events: StreamEvent[] = [];
    const turn = await conversation.send('hi', { onStream: (event) => events.push(event) });
    expect(turn.cut).toBeUndefined();
    expect(turn.reply).toContain('something went wrong');
    expect(kept(events)).toBe(turn.reply);
  });
});
