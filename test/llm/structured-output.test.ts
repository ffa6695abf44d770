import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WeftError, isAbortError } from '../../src/errors.js';
import type { ChatCall, ChatModel, StreamEvent } from '../../src/llm/chat-model.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { formatPath, generateStructured, interpretReply } from '../../src/llm/structured-output.js';

const verdict = z.object({ verdict: z.enum(['accept', 'retry', 'replan']), reason: z.string().default('') });
const plan = z.object({ subtasks: z.array(z.object({ id: z.string(), objective: z.string() })).min(1) });

const call: ChatCall = {
  system: 'You are a verifier.',
  messages: [{ role: 'user', content: 'Check it.' }],
  json: { name: 'verdict' },
  tag: { purpose: 'verify', key: 't1', attempt: 1 },
};

describe('generateStructured', () => {
  it('returns the validated value of a clean reply in one call', async () => {
    const model = scriptedModel([{ text: '{"verdict": "accept", "reason": "fine"}' }]);
    const out = await generateStructured(model, call, verdict);
    expect(out.value).toEqual({ verdict: 'accept', reason: 'fine' });
    expect(out.attempts).toBe(1);
    expect(out.raw).toEqual(['{"verdict": "accept", "reason": "fine"}']);
    expect(out.result.text).toBe(out.raw[0]);
    expect(out.usage).toEqual(out.result.usage);
  });

  it('parses JSON wrapped in prose and fences', async () => {
    const model = scriptedModel([{ text: 'Sure.\n```json\n{"verdict": "replan",}\n```' }]);
    const out = await generateStructured(model, call, verdict);
    expect(out.value).toEqual({ verdict: 'replan', reason: '' });
  });

  it('passes the call through unchanged, json hint included', async () => {
    const model = scriptedModel([{ text: '{"verdict": "accept"}' }]);
    await generateStructured(model, call, verdict);
    expect(model.calls).toEqual([call]);
  });

  it('a streamed reply thrown away for a re-prompt is withdrawn with a discard of what it showed', async () => {
    const inner = scriptedModel([{ text: 'not json' }, { text: '{"verdict": "accept"}' }]);
    // Streams each scripted reply whole, as one piece.
    const streaming: ChatModel = {
      id: 'streaming',
      kind: 'scripted',
      async generate(streamed, signal) {
        const result = await inner.generate(streamed, signal);
        streamed.onStream?.({ kind: 'delta', text: result.text });
        return result;
      },
    };
    const events: StreamEvent[] = [];
    const out = await generateStructured(streaming, { ...call, onStream: (event) => events.push(event) }, verdict);
    expect(out.attempts).toBe(2);
    expect(events).toEqual([
      { kind: 'delta', text: 'not json' },
      { kind: 'discard', chars: 8 },
      { kind: 'delta', text: '{"verdict": "accept"}' },
    ]);
  });

  it('re-prompts with the reply and the concrete validation error, then succeeds', async () => {
    const model = scriptedModel([
      { text: '{"subtasks": [{"id": "t1"}]}' },
      { text: '{"subtasks": [{"id": "t1", "objective": "write"}]}' },
    ]);
    const out = await generateStructured(model, call, plan);
    expect(out.value.subtasks[0]?.objective).toBe('write');
    expect(out.attempts).toBe(2);
    expect(out.raw).toHaveLength(2);
    expect(out.usage.inputTokens).toBe(
      model.calls.reduce(
        (sum, c) => sum + Math.ceil([c.system, ...c.messages.map((m) => m.content)].join('\n').length / 4),
        0,
      ),
    );
    const second = model.calls[1]!;
    expect(second.messages).toHaveLength(3);
    expect(second.messages[1]).toEqual({ role: 'assistant', content: '{"subtasks": [{"id": "t1"}]}' });
    expect(second.messages[2]?.role).toBe('user');
    expect(second.messages[2]?.content).toContain('subtasks[0].objective');
    expect(second.messages[2]?.content).toMatch(/only the corrected JSON/);
    expect(second.tag).toEqual(call.tag);
    expect(second.json).toEqual(call.json);
  });

  it('quotes the parse error when there is no JSON at all', async () => {
    const model = scriptedModel([{ text: 'I think it is fine.' }, { text: '{"verdict": "accept"}' }]);
    await generateStructured(model, call, verdict);
    expect(model.calls[1]?.messages[2]?.content).toContain('no JSON object or array found');
  });

  it('uses the first JSON value that validates, or the last with select: last', async () => {
    const text = 'Example: {"verdict": "maybe"}. Answer: {"verdict": "accept"} or {"verdict": "retry"}';
    const first = await generateStructured(scriptedModel([{ text }]), call, verdict);
    expect(first.value.verdict).toBe('accept');
    const last = await generateStructured(scriptedModel([{ text }]), call, verdict, { select: 'last' });
    expect(last.value.verdict).toBe('retry');
  });

  it('gives up after maxRepairs re-prompts with a PARSE error naming the last problem', async () => {
    const model = scriptedModel([{ text: '{"verdict": "nope"}', repeat: true }]);
    const failure = await generateStructured(model, call, verdict, { maxRepairs: 1 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WeftError);
    expect((failure as WeftError).code).toBe('PARSE');
    expect((failure as WeftError).message).toContain('verdict');
    expect((failure as WeftError).message).toContain('2 attempt(s)');
    expect((failure as WeftError).cause).toBeInstanceOf(z.ZodError);
    expect(model.calls).toHaveLength(2);
  });

  it('makes exactly one call with maxRepairs 0 and three by default', async () => {
    const once = scriptedModel([{ text: 'no', repeat: true }]);
    await expect(generateStructured(once, call, verdict, { maxRepairs: 0 })).rejects.toMatchObject({ code: 'PARSE' });
    expect(once.calls).toHaveLength(1);
    const thrice = scriptedModel([{ text: 'no', repeat: true }]);
    await expect(generateStructured(thrice, call, verdict)).rejects.toMatchObject({ code: 'PARSE' });
    expect(thrice.calls).toHaveLength(3);
  });

  it('rejects a bad maxRepairs', async () => {
    await expect(generateStructured(scriptedModel([]), call, verdict, { maxRepairs: -1 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
    });
  });

  it('lets provider errors through without re-prompting', async () => {
    const model = scriptedModel([]);
    await expect(generateStructured(model, call, verdict)).rejects.toMatchObject({ code: 'SCRIPT_EXHAUSTED' });
  });

  it('does not call the model when the signal is already aborted', async () => {
    const model = scriptedModel([{ text: '{"verdict": "accept"}' }]);
    const controller = new AbortController();
    controller.abort();
    const failure = await generateStructured(model, call, verdict, { signal: controller.signal }).catch(
      (error: unknown) => error,
    );
    expect(isAbortError(failure)).toBe(true);
    expect(model.calls).toHaveLength(0);
  });
});

describe('interpretReply', () => {
  it('reports the issues of the candidate closest to validating', () => {
    const outcome = interpretReply('{"x": 1} {"verdict": "nope", "reason": "r"}', verdict);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toMatch(/^the JSON does not match the expected shape: verdict:/);
  });

  it('formats zod paths', () => {
    expect(formatPath([])).toBe('(root)');
    expect(formatPath(['subtasks', 2, 'dependsOn', 0])).toBe('subtasks[2].dependsOn[0]');
  });
});
