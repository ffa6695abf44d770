import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NODE_LLAMA_CPP_INSTALL_HINT,
  createLocalGgufModel,
  importNodeLlamaCpp,
  type NodeLlamaCppImporter,
} from '../../../src/llm/providers/local-gguf.js';
import { withPromptedTools } from '../../../src/llm/prompted-tools.js';
import { createModel } from '../../../src/llm/resolve-model.js';
import { rejection } from './rejection.js';
import { localInferenceSkipReason, realImporter, TINY_MODEL } from '../../local-llama.js';

const missingPackage: NodeLlamaCppImporter = () =>
  Promise.reject(Object.assign(new Error("Cannot find package 'node-llama-cpp'"), { code: 'ERR_MODULE_NOT_FOUND' }));

/** A stand-in for node-llama-cpp that records what the provider asks of it. */
function fakeNodeLlamaCpp(reply: (prompt: string) => string) {
  const log: {
    history?: unknown;
    prompt?: string;
    options?: Record<string, unknown>;
    grammars: unknown[];
    disposed: string[];
  } = {
    grammars: [],
    disposed: [],
  };
  let input = 0;
  let output = 0;
  const sequence = {
    tokenMeter: { getState: () => ({ usedInputTokens: input, usedOutputTokens: output }) },
    clearHistory: async () => undefined,
  };
  class LlamaChatSession {
    setChatHistory(history: unknown) {
      log.history = history;
    }
    async prompt(prompt: string, options: Record<string, unknown> = {}) {
      log.prompt = prompt;
      log.options = options;
      const signal = options['signal'] as AbortSignal | undefined;
      if (signal?.aborted) throw signal.reason;
      // Streams the reply word by word when asked to, as node-llama-cpp's onTextChunk does.
      const onTextChunk = options['onTextChunk'] as ((text: string) => void) | undefined;
      if (onTextChunk) {
        for (const word of reply(prompt).split(/(?<= )/)) {
          onTextChunk(word);
          if (signal?.aborted) throw signal.reason;
        }
      }
      input += 11;
      output += 5;
      return `${typeof options['responsePrefix'] === 'string' ? options['responsePrefix'] : ''}${reply(prompt)}`;
    }
    dispose() {}
  }
  const module = {
    LlamaChatSession,
    async getLlama(options: unknown) {
      log.grammars.push({ getLlama: options });
      return {
        async loadModel() {
          return {
            async createContext(contextOptions: unknown) {
              log.grammars.push({ createContext: contextOptions });
              return {
                contextSize: 512,
                getSequence: () => sequence,
                dispose: async () => void log.disposed.push('context'),
              };
            },
            dispose: async () => void log.disposed.push('model'),
          };
        },
        async createGrammarForJsonSchema(schema: unknown) {
          return { schema };
        },
        async getGrammarFor(type: string) {
          return { builtin: type };
        },
        dispose: async () => void log.disposed.push('llama'),
      };
    },
  };
  return { module, log };
}

describe('local-gguf provider: dependency and file errors', () => {
  let dir: string;
  let fakeFile: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-gguf-'));
    fakeFile = join(dir, 'fake.gguf');
    await writeFile(fakeFile, 'GGUF');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('says how to install node-llama-cpp when it cannot be imported', async () => {
    const error = await rejection(importNodeLlamaCpp(missingPackage));
    expect(error.code).toBe('MISSING_DEPENDENCY');
    expect(error.message).toBe(
      'The local: provider needs node-llama-cpp. Install it in your project with: npm install node-llama-cpp @node-llama-cpp/linux-x64 --omit=optional (in a Weft checkout: npm run setup:local)',
    );
    expect(error.message).toBe(NODE_LLAMA_CPP_INSTALL_HINT);
    expect((error.cause as Error).message).toContain("Cannot find package 'node-llama-cpp'");
  });

  it('rejects a module without the v3 API', async () => {
    const error = await rejection(importNodeLlamaCpp(async () => ({ default: {} })));
    expect(error.code).toBe('MISSING_DEPENDENCY');
    expect(error.message).toContain('version 3');
  });

  it('createModel("local:…") fails early with MISSING_DEPENDENCY', async () => {
    const error = await rejection(createModel(`local:${fakeFile}`, { importNodeLlamaCpp: missingPackage }));
    expect(error.code).toBe('MISSING_DEPENDENCY');
  });

  it('names a missing model file with BAD_INPUT', async () => {
    const path = join(dir, 'absent.gguf');
    const model = createLocalGgufModel({ id: `local:${path}`, path, importer: missingPackage });
    const error = await rejection(model.generate({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toContain(path);
    expect(error.location?.file).toBe(path);
  });

  it('maps a ChatCall onto a chat session: history, prompt, grammar, bounded maxTokens, usage', async () => {
    const { module, log } = fakeNodeLlamaCpp(() => '{"ok":true}');
    const model = createLocalGgufModel({ id: 'local:fake.gguf', path: fakeFile, importer: async () => module });
    expect(model.kind).toBe('real');
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    const result = await model.generate({
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'answer' },
        { role: 'user', content: 'second' },
      ],
      maxTokens: 100_000,
      temperature: 0,
      json: { schema },
    });
    expect(result).toEqual({ text: '{"ok":true}', usage: { inputTokens: 11, outputTokens: 5 }, model: fakeFile });
    expect(log.history).toEqual([
      { type: 'system', text: 'Be brief.' },
      { type: 'user', text: 'first' },
      { type: 'model', response: ['answer'] },
    ]);
    expect(log.prompt).toBe('second');
    expect(log.options).toMatchObject({ maxTokens: 512, temperature: 0, grammar: { schema } });
    expect(log.grammars).toContainEqual({ getLlama: expect.objectContaining({ maxThreads: 1 }) });
    expect(log.grammars).toContainEqual({ createContext: expect.objectContaining({ threads: 1 }) });

    // A trailing assistant message is a prefix the reply continues; the result holds only the new text.
    const continued = await model.generate({
      messages: [
        { role: 'user', content: 'count' },
        { role: 'assistant', content: '1, 2,' },
      ],
    });
    expect(log.prompt).toBe('count');
    expect(log.options).toMatchObject({ responsePrefix: '1, 2,' });
    expect(continued.text).toBe('{"ok":true}');

    await model.dispose();
    expect(log.disposed).toEqual(['context', 'model', 'llama']);
  });

  it('createModel wraps local: in the prompted fallback: the tool-call grammar constrains the reply, tool calls come back', async () => {
    const { module, log } = fakeNodeLlamaCpp(() => '{"tool": "get_order", "args": {"order_id": "A-1001"}}');
    const model = await createModel(`local:${fakeFile}`, { importNodeLlamaCpp: async () => module });
    expect(model.toolCalling).toBe('prompted');
    const inputSchema = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] };
    const result = await model.generate({
      messages: [{ role: 'user', content: 'Where is A-1001?' }],
      tools: [{ name: 'get_order', description: 'One order.', inputSchema }],
      toolChoice: 'required',
    });
    expect(result.toolCalls).toEqual([{ id: 'call_1', name: 'get_order', args: { order_id: 'A-1001' } }]);
    expect(log.prompt).toBe('Where is A-1001?');
    expect((log.history as { type: string; text: string }[])[0]?.text).toContain('- get_order: One order.');
    // With `required`, the only branch is the tool's, with its own argument schema.
    expect(log.options?.['grammar']).toEqual({
      schema: {
        oneOf: [
          {
            type: 'object',
            properties: { tool: { const: 'get_order' }, args: inputSchema },
            required: ['tool', 'args'],
          },
        ],
      },
    });
  });

  it('maps an aborted generation to ABORTED', async () => {
    const { module } = fakeNodeLlamaCpp(() => 'x');
    const model = createLocalGgufModel({ id: 'local:fake.gguf', path: fakeFile, importer: async () => module });
    await model.load();
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(model.generate({ messages: [{ role: 'user', content: 'hi' }] }, controller.signal));
    expect(error.code).toBe('ABORTED');
    expect(error.retryable).toBe(false);
  });

  it('streams text chunks to onStream, and an abort mid-reply keeps what came as partialText', async () => {
    const { module } = fakeNodeLlamaCpp(() => 'one two three');
    const model = createLocalGgufModel({ id: 'local:fake.gguf', path: fakeFile, importer: async () => module });
    const pieces: string[] = [];
    const whole = await model.generate({
      messages: [{ role: 'user', content: 'count' }],
      onStream: (event) => {
        if (event.kind === 'delta') pieces.push(event.text);
      },
    });
    expect(pieces).toEqual(['one ', 'two ', 'three']);
    expect(whole.text).toBe('one two three');

    const controller = new AbortController();
    const cut = await rejection(
      model.generate(
        {
          messages: [{ role: 'user', content: 'count' }],
          onStream: (event) => {
            if (event.kind === 'delta' && event.text === 'two ') controller.abort();
          },
        },
        controller.signal,
      ),
    );
    expect(cut.code).toBe('ABORTED');
    expect(cut.partialText).toBe('one two ');
    expect(cut.message).toContain('reply cut after 8 characters');
  });
});

// ---- The real thing: node-llama-cpp + the tiny random GGUF, when both are present. ----

const skipReason = await localInferenceSkipReason();
if (skipReason) console.log(`[local-gguf] skipping the real-inference test: ${skipReason}`);

describe('local-gguf provider: real inference with node-llama-cpp', () => {
  it.skipIf(skipReason !== undefined)(
    'generates JSON matching a bounded schema with the tiny random model',
    async () => {
      const model = createLocalGgufModel({ id: `local:${TINY_MODEL}`, path: TINY_MODEL, importer: realImporter });
      // The model's weights are random: only length-bounded schemas terminate.
      const schema = {
        type: 'object',
        properties: {
          answer: { type: 'string', maxLength: 12 },
          confident: { type: 'boolean' },
          tags: { type: 'array', items: { enum: ['a', 'b', 'c'] }, maxItems: 3 },
        },
        required: ['answer', 'confident', 'tags'],
        additionalProperties: false,
      };
      try {
        const result = await model.generate({
          system: 'Reply in JSON.',
          messages: [{ role: 'user', content: 'Is the sky blue?' }],
          maxTokens: 96,
          json: { schema },
        });
        const parsed = JSON.parse(result.text) as { answer: unknown; confident: unknown; tags: unknown };
        expect(Object.keys(parsed).sort()).toEqual(['answer', 'confident', 'tags']);
        expect(typeof parsed.answer).toBe('string');
        expect((parsed.answer as string).length).toBeLessThanOrEqual(12);
        expect(typeof parsed.confident).toBe('boolean');
        expect(Array.isArray(parsed.tags)).toBe(true);
        expect((parsed.tags as unknown[]).length).toBeLessThanOrEqual(3);
        for (const tag of parsed.tags as unknown[]) expect(['a', 'b', 'c']).toContain(tag);
        expect(result.usage.inputTokens).toBeGreaterThan(0);
        expect(result.usage.outputTokens).toBeGreaterThan(0);
        expect(result.usage.outputTokens).toBeLessThanOrEqual(96);
      } finally {
        await model.dispose();
      }
    },
    60_000,
  );

  it.skipIf(skipReason !== undefined)(
    'the prompted fallback over the tiny random model: the tool-call grammar makes its reply a valid call',
    async () => {
      const local = createLocalGgufModel({ id: `local:${TINY_MODEL}`, path: TINY_MODEL, importer: realImporter });
      // Random weights follow nothing but the grammar; finite arguments (enums) let the reply end.
      const model = withPromptedTools(local, { maxRepairs: 0 });
      try {
        const result = await model.generate({
          messages: [{ role: 'user', content: 'Paint the fence.' }],
          maxTokens: 96,
          toolChoice: 'required',
          tools: [
            {
              name: 'paint',
              description: 'Paints a thing.',
              inputSchema: {
                type: 'object',
                properties: { colour: { enum: ['red', 'green'] }, coats: { enum: [1, 2] } },
                required: ['colour', 'coats'],
                additionalProperties: false,
              },
            },
          ],
        });
        expect(result.toolCalls).toHaveLength(1);
        const [call] = result.toolCalls ?? [];
        expect(call?.name).toBe('paint');
        const args = call?.args as { colour: unknown; coats: unknown };
        expect(['red', 'green']).toContain(args.colour);
        expect([1, 2]).toContain(args.coats);
      } finally {
        await local.dispose();
      }
    },
    60_000,
  );
});
