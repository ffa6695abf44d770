import { describe, expect, it } from 'vitest';
import type { ChatCall, ChatMessage, ChatResult, ToolDeclaration } from '../../src/llm/chat-model.js';
import { createModel } from '../../src/llm/resolve-model.js';
import { parseSimOptions } from '../../src/llm/sim-options.js';
import { simModel } from '../../src/llm/sim-model.js';
import type { JsonValue } from '../../src/tools/tool.js';
import { validateToolArgs } from '../../src/tools/validate-args.js';

const TOOLS: ToolDeclaration[] = [
  {
    name: 'get_order',
    description: 'One order.',
    inputSchema: {
      type: 'object',
      properties: { order_id: { type: 'string', minLength: 6 } },
      required: ['order_id'],
      additionalProperties: false,
    },
  },
  {
    name: 'refund',
    description: 'Refund.',
    inputSchema: {
      type: 'object',
      properties: { order_id: { type: 'string' }, amount: { type: 'number', minimum: 1, maximum: 50 } },
      required: ['order_id', 'amount'],
    },
  },
];

/** A tool loop like the run's: call the model, answer every tool call with a result, until it answers text. */
async function loop(model: ReturnType<typeof simModel>, key: string, base: Partial<ChatCall> = {}) {
  const messages: ChatMessage[] = [{ role: 'user', content: 'Handle order A-1001.' }];
  const replies: ChatResult[] = [];
  for (let step = 0; step < 20; step++) {
    const reply = await model.generate({
      messages: [...messages],
      tools: TOOLS,
      tag: { purpose: 'execute', key, attempt: 1 },
      ...base,
    });
    replies.push(reply);
    if (!reply.toolCalls?.length) return { replies, messages };
    messages.push({ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls });
    for (const call of reply.toolCalls) {
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: '{"ok":true}' });
    }
  }
  throw new Error('the loop did not end');
}

const isValidCall = async (name: string, args: unknown): Promise<boolean> => {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) return false;
  return validateToolArgs({ name, inputSchema: tool.inputSchema as never }, args as JsonValue).then(
    () => true,
    () => false,
  );
};

describe('sim model with tools', () => {
  it('calls tools toolcalls times (default 2) with schema-valid arguments, then answers for the purpose', async () => {
    const model = simModel('seed=3');
    const { replies } = await loop(model, 't1');
    expect(replies).toHaveLength(3);
    expect(replies.slice(0, 2).map((r) => r.toolCalls?.[0]?.id)).toEqual(['call_1', 'call_2']);
    for (const reply of replies.slice(0, 2)) {
      const call = reply.toolCalls![0]!;
      expect(await isValidCall(call.name, call.args), JSON.stringify(call)).toBe(true);
    }
    expect(replies[2]).toMatchObject({ text: 'sim output for t1 (attempt 1)' });
    expect(replies[2]?.toolCalls).toBeUndefined();
    expect(model.toolCalling).toBe('native');

    expect((await loop(simModel('toolcalls=0'), 't1')).replies).toHaveLength(1);
    expect((await loop(simModel('toolcalls=5'), 't1')).replies).toHaveLength(6);
  });

  it('is seeded by position in the conversation: a resumed loop with a fresh model replays the same calls', async () => {
    const first = await loop(simModel('seed=9,toolcalls=4,toolwrong=0.3,toolbadargs=0.3'), 'k');
    const again = await loop(simModel('seed=9,toolcalls=4,toolwrong=0.3,toolbadargs=0.3'), 'k');
    expect(again.replies).toEqual(first.replies);
    // Resume from the middle: a new model given the conversation up to the third call makes the same third call.
    const resumed = simModel('seed=9,toolcalls=4,toolwrong=0.3,toolbadargs=0.3');
    const reply = await resumed.generate({
      messages: first.messages.slice(0, 5),
      tools: TOOLS,
      tag: { purpose: 'execute', key: 'k', attempt: 1 },
    });
    expect(reply).toEqual(first.replies[2]);
    // Another key draws differently.
    const other = await loop(simModel('seed=9,toolcalls=4,toolwrong=0.3,toolbadargs=0.3'), 'other');
    expect(other.replies.map((r) => r.toolCalls)).not.toEqual(first.replies.map((r) => r.toolCalls));
  });

  it('toolwrong and toolbadargs spoil calls at about their rates, and every spoilt call fails the tool layer', async () => {
    let wrong = 0;
    let bad = 0;
    let total = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { replies } = await loop(simModel(`seed=${seed},toolcalls=3,toolwrong=0.25,toolbadargs=0.5`), `t${seed}`);
      for (const reply of replies.slice(0, -1)) {
        const call = reply.toolCalls![0]!;
        total++;
        const tool = TOOLS.find((t) => t.name === call.name);
        if (!tool) {
          wrong++;
          expect(call.name).toMatch(/^(get_order|refund)_v2$/);
        } else if (!(await isValidCall(call.name, call.args))) bad++;
      }
    }
    expect(total).toBe(180);
    // 25% wrong names: 45 expected; of the rest, 50% bad arguments: about 67.
    expect(wrong).toBeGreaterThan(25);
    expect(wrong).toBeLessThan(65);
    expect(bad).toBeGreaterThan(45);
    expect(bad).toBeLessThan(90);
  });

  it('toolChoice none answers at once; required calls a tool even after toolcalls', async () => {
    const model = simModel('toolcalls=1');
    const none = await model.generate({ messages: [{ role: 'user', content: 'x' }], tools: TOOLS, toolChoice: 'none' });
    expect(none.toolCalls).toBeUndefined();
    const required = await model.generate({
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_order', args: {} }] },
        { role: 'tool', toolCallId: 'call_1', name: 'get_order', content: '{}' },
      ],
      tools: TOOLS,
      toolChoice: 'required',
    });
    expect(required.toolCalls?.[0]?.id).toBe('call_2');
  });

  it('validates and shows the tool options; defaults keep the id unchanged', async () => {
    expect(parseSimOptions('')).toMatchObject({ toolcalls: 2, toolwrong: 0, toolbadargs: 0 });
    expect(() => parseSimOptions('toolcalls=-1')).toThrow(/toolcalls.*integer from 0 to 1000/);
    expect(() => parseSimOptions('toolcalls=1.5')).toThrow(/toolcalls.*integer/);
    expect(() => parseSimOptions('toolwrong=2')).toThrow(/toolwrong.*probability/);
    expect(() => parseSimOptions('toolbadargs=x')).toThrow(/toolbadargs.*number/);
    expect(simModel('seed=2').id).not.toContain('tool');
    expect(simModel('seed=2,toolcalls=3,toolbadargs=0.1').id).toContain('toolcalls=3,toolbadargs=0.1');
    const made = await createModel('sim:toolcalls=1', { env: {} });
    expect(made.toolCalling).toBe('native');
  });
});
