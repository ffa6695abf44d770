import { describe, expect, it } from 'vitest';
import { WeftError, isAbortError } from '../../src/errors.js';
import type { ChatCall, ChatModel } from '../../src/llm/chat-model.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { type ModelMiddleware, wrapModel } from '../../src/llm/wrap-model.js';

const call: ChatCall = { messages: [{ role: 'user', content: 'hi' }], tag: { purpose: 'other' } };

/** Records its name on the way in and out, and marks the call's system prompt with it. */
function tracing(name: string, log: string[]): ModelMiddleware {
  return {
    transformCall: (c) => ({ ...c, system: `${c.system ?? ''}${name}` }),
    async wrapGenerate({ call: c, signal, next }) {
      log.push(`${name} in`);
      const result = await next(c, signal);
      log.push(`${name} out`);
      return { ...result, text: `${result.text}+${name}` };
    },
  };
}

describe('wrapModel', () => {
  it('runs the first middleware outermost: its transform first, its wrapGenerate around the rest', async () => {
    const inner = scriptedModel((c) => `answer to ${c.system ?? ''}`);
    const log: string[] = [];
    const model = wrapModel(inner, tracing('a', log), tracing('b', log));
    const result = await model.generate(call);
    expect(log).toEqual(['a in', 'b in', 'b out', 'a out']);
    expect(inner.calls[0]?.system).toBe('ab');
    expect(result.text).toBe('answer to ab+b+a');
  });

  it('transformCall alone rewrites the call the wrapped model gets, and leaves the caller’s call unchanged', async () => {
    const inner = scriptedModel(() => 'ok');
    const model = wrapModel(inner, { transformCall: (c) => ({ ...c, maxTokens: 5 }) });
    await model.generate(call);
    expect(inner.calls[0]?.maxTokens).toBe(5);
    expect(call.maxTokens).toBeUndefined();
  });

  it('gives wrapGenerate the wrapped model, so a layer can name it', async () => {
    const inner = scriptedModel(() => 'ok', { id: 'scripted:inner' });
    const seen: string[] = [];
    const model = wrapModel(inner, {
      wrapGenerate: ({ call: c, signal, next, model: wrapped }) => {
        seen.push(wrapped.id);
        return next(c, signal);
      },
    });
    await model.generate(call);
    expect(seen).toEqual(['scripted:inner']);
  });

  it('keeps the inner model’s id, kind and toolCalling, through every layer', () => {
    const inner = scriptedModel(() => 'ok', { id: 'scripted:x' });
    const model = wrapModel(inner, { transformCall: (c) => c }, { wrapGenerate: ({ call: c, next }) => next(c) });
    expect({ id: model.id, kind: model.kind, toolCalling: model.toolCalling }).toEqual({
      id: 'scripted:x',
      kind: 'scripted',
      toolCalling: 'native',
    });
    const noTools: ChatModel = { id: 'sim:plain', kind: 'sim', generate: inner.generate };
    expect('toolCalling' in wrapModel(noTools, {})).toBe(false);
  });

  it('lets a middleware override id, kind and toolCalling; an outer layer sees the override', () => {
    const inner = scriptedModel(() => 'ok');
    const model = wrapModel(inner, {}, { id: 'renamed', kind: 'sim', toolCalling: 'prompted' });
    expect({ id: model.id, kind: model.kind, toolCalling: model.toolCalling }).toEqual({
      id: 'renamed',
      kind: 'sim',
      toolCalling: 'prompted',
    });
  });

  it('returns the model itself with no middleware', () => {
    const inner = scriptedModel(() => 'ok');
    expect(wrapModel(inner)).toBe(inner);
  });

  it('passes the caller’s abort signal through to the inner model', async () => {
    const inner = scriptedModel(() => 'ok');
    const model = wrapModel(
      inner,
      { transformCall: (c) => c },
      { wrapGenerate: ({ call: c, signal, next }) => next(c, signal) },
    );
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const failure = await model.generate(call, controller.signal).catch((error: unknown) => error);
    expect(isAbortError(failure)).toBe(true);
    expect(inner.calls).toHaveLength(0);
  });

  it('propagates errors from the inner model and from a middleware unchanged', async () => {
    const failing = scriptedModel(() => {
      throw new WeftError('PROVIDER', 'inner failed');
    });
    const seen: unknown[] = [];
    const model = wrapModel(failing, {
      async wrapGenerate({ call: c, signal, next }) {
        try {
          return await next(c, signal);
        } catch (error) {
          seen.push(error);
          throw error;
        }
      },
    });
    const failure = await model.generate(call).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WeftError);
    expect((failure as WeftError).message).toBe('inner failed');
    expect(seen).toEqual([failure]);

    const refusing = wrapModel(
      scriptedModel(() => 'ok'),
      {
        transformCall: () => {
          throw new WeftError('BUDGET', 'no more calls');
        },
      },
    );
    await expect(refusing.generate(call)).rejects.toThrow('no more calls');
  });
});
