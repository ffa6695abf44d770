import { describe, expect, it } from 'vitest';
import { streamSubtaskReplies } from '../../src/cli/run/stream-subtask-replies.js';
import type { ChatCall, ChatModel, StreamEvent } from '../../src/llm/chat-model.js';

/** A model that streams its reply in two pieces when asked to, and records whether it was. */
function twoPieces(streamed: boolean[]): ChatModel {
  return {
    id: 'two-pieces',
    kind: 'scripted',
    async generate(call: ChatCall) {
      streamed.push(call.onStream !== undefined);
      call.onStream?.({ kind: 'delta', text: 'ab' });
      call.onStream?.({ kind: 'delta', text: 'cd' });
      return { text: 'abcd', usage: { inputTokens: 1, outputTokens: 1 }, model: 'two-pieces' };
    },
  };
}

describe('streamSubtaskReplies', () => {
  it("hands an execute call's pieces to the view by subtask, keeps the caller's listener, leaves other calls alone", async () => {
    const streamed: boolean[] = [];
    const heard: Array<[string, StreamEvent]> = [];
    const model = streamSubtaskReplies(twoPieces(streamed), (taskId, event) => heard.push([taskId, event]));
    expect(model.id).toBe('two-pieces');
    const own: StreamEvent[] = [];
    await model.generate({
      messages: [{ role: 'user', content: 'x' }],
      tag: { purpose: 'execute', key: 'summarise' },
      onStream: (event) => own.push(event),
    });
    await model.generate({ messages: [{ role: 'user', content: 'x' }], tag: { purpose: 'verify', key: 'summarise' } });
    expect(heard).toEqual([
      ['summarise', { kind: 'delta', text: 'ab' }],
      ['summarise', { kind: 'delta', text: 'cd' }],
    ]);
    expect(own).toHaveLength(2);
    // The verify call was not made to stream.
    expect(streamed).toEqual([true, false]);
  });
});
