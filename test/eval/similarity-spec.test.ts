import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { embeddingCacheFile } from '../../src/eval/embedding-cache.js';
import { LEXICAL_SIMILARITY_NAME } from '../../src/eval/lexical-similarity.js';
import {
  createSimilarity,
  formatSimilaritySpec,
  parseSimilaritySpec,
  SIMILARITY_SPEC_FORMS,
  type SimilaritySpec,
} from '../../src/eval/similarity-spec.js';
import { NODE_LLAMA_CPP_INSTALL_HINT, type NodeLlamaCppImporter } from '../../src/llm/providers/local-gguf.js';
import { localInferenceSkipReason, realImporter, TINY_MODEL } from '../local-llama.js';
import { rejection } from '../llm/providers/rejection.js';
import { replayFetch } from '../llm/providers/replay-fetch.js';

const ROWS = ['go to fridge 1', 'open fridge 1'];
const COLUMNS = ['open fridge 1', 'take apple 2 from fridge 1'];

function parseError(spec: string): WeftError {
  try {
    parseSimilaritySpec(spec);
  } catch (error) {
    expect(error).toBeInstanceOf(WeftError);
    return error as WeftError;
  }
  throw new Error(`"${spec}" parsed`);
}

describe('parseSimilaritySpec', () => {
  it.each<[string | undefined, SimilaritySpec]>([
    [undefined, { provider: 'lexical' }],
    ['lexical', { provider: 'lexical' }],
    [' Lexical ', { provider: 'lexical' }],
    ['lexical:', { provider: 'lexical' }],
    ['openai:text-embedding-3-small', { provider: 'openai', model: 'text-embedding-3-small' }],
    ['ollama:nomic-embed-text:v1.5', { provider: 'ollama', model: 'nomic-embed-text:v1.5' }],
    [
      'openai-compatible:http://localhost:8080/v1/#bge-small-en-v1.5',
      { provider: 'openai-compatible', baseURL: 'http://localhost:8080/v1', model: 'bge-small-en-v1.5' },
    ],
    ['local:./models/nomic-embed.Q8_0.GGUF', { provider: 'local', path: './models/nomic-embed.Q8_0.GGUF' }],
  ])('parses %j', (text, expected) => {
    const spec = parseSimilaritySpec(text);
    expect(spec).toEqual(expected);
    expect(parseSimilaritySpec(formatSimilaritySpec(spec))).toEqual(spec);
  });

  it.each<[string, string]>([
    ['', 'the spec is empty'],
    ['tfidf', 'did you mean "lexical"?'],
    ['lexicla', 'did you mean "lexical"?'],
    ['lexical:bigrams', '"lexical" takes no options, got "bigrams"'],
    ['nomic-embed-text', 'has no provider prefix (did you mean "ollama:nomic-embed-text"?)'],
    ['text-embedding-3-small', 'did you mean "openai:text-embedding-3-small"?'],
    ['models/e5.gguf', 'did you mean "local:models/e5.gguf"?'],
    [
      'http://localhost:11434/v1#nomic-embed-text',
      'did you mean "openai-compatible:http://localhost:11434/v1#nomic-embed-text"?',
    ],
    ['https://api.example.com/v1', 'did you mean "openai-compatible:https://api.example.com/v1#<model>"?'],
    ['olama:nomic-embed-text', 'unknown provider "olama" (did you mean "ollama:nomic-embed-text"?)'],
    ['vllm:e5', 'did you mean "openai-compatible:e5"?'],
    ['frobnicate:x', 'unknown provider "frobnicate".'],
    ['anthropic:claude-3-5-haiku-latest', 'Anthropic has no embeddings API'],
    ['sim:seed=1', 'not an embedding model'],
    ['openai:', 'the model name after "openai:" is empty'],
    ['local:model.bin', '"local:" takes a path to a .gguf file, got "model.bin"'],
    ['openai-compatible:http://localhost:8080/v1', 'there is no "#" before the model name'],
    ['openai-compatible:localhost:8080#bge', 'the base URL must use http or https'],
    ['openai-compatible:not a url#bge', '"not a url" is not a valid URL'],
    ['openai-compatible:http://localhost:8080/v1#', 'the model name after "#" is empty'],
  ])('rejects %j: %s', (text, problem) => {
    const error = parseError(text);
    expect(error.code).toBe('BAD_INPUT');
    expect(error.location).toEqual({ field: 'similarity' });
    expect(error.message.startsWith(`Invalid similarity spec "${text}": `)).toBe(true);
    expect(error.message).toContain(problem);
    expect(error.message).toContain('Accepted forms:');
    for (const form of SIMILARITY_SPEC_FORMS) expect(error.message).toContain(form);
  });
});

const skipReason = await localInferenceSkipReason();
if (skipReason) console.log(`[similarity-spec] skipping the real local-embedding test: ${skipReason}`);

describe('createSimilarity', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'weft-similarity-spec-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('defaults to the lexical similarity, with the idf fitted on the corpus', async () => {
    const plain = await createSimilarity(undefined);
    expect(plain).toMatchObject({ kind: 'lexical', name: LEXICAL_SIMILARITY_NAME });
    const fitted = await createSimilarity('lexical', { corpus: ['open the door', 'close the window', 'take the mug'] });
    const [plainValue] = (await plain.matrix(['open the door'], ['close the window']))[0] ?? [];
    const [fittedValue] = (await fitted.matrix(['open the door'], ['close the window']))[0] ?? [];
    expect(fittedValue).toBeLessThan(plainValue ?? 0);
  });

  it('openai: sends the key from OPENAI_API_KEY to the default base URL, in batches', async () => {
    const replay = replayFetch('openai/embeddings-batch-of-2', 'openai/embeddings-batch-of-1');
    const similarity = await createSimilarity('openai:text-embedding-3-small', {
      env: { OPENAI_API_KEY: 'sk-test-key' },
      fetch: replay.fetch,
      batchSize: 2,
    });
    expect(similarity).toMatchObject({ kind: 'embedding', name: 'embeddings openai:text-embedding-3-small' });
    const matrix = await similarity.matrix(ROWS, COLUMNS);
    expect(replay.requests.map((request) => request.url.href)).toEqual([
      'https://api.openai.com/v1/embeddings',
      'https://api.openai.com/v1/embeddings',
    ]);
    expect(replay.requests[0]?.headers.get('authorization')).toBe('Bearer sk-test-key');
    expect(replay.requests.map((request) => request.body)).toEqual([
      { model: 'text-embedding-3-small', input: ['go to fridge 1', 'open fridge 1'], encoding_format: 'float' },
      { model: 'text-embedding-3-small', input: ['take apple 2 from fridge 1'], encoding_format: 'float' },
    ]);
    expect(matrix[0]?.[0]).toBeCloseTo(0.96, 12);
    expect(matrix[1]?.[1]).toBeCloseTo(0.36, 12);
  });

  it('openai: honours OPENAI_BASE_URL', async () => {
    const replay = replayFetch('openai/embeddings-batch-of-1');
    const similarity = await createSimilarity('openai:text-embedding-3-small', {
      env: { OPENAI_API_KEY: 'sk-test-key', OPENAI_BASE_URL: 'https://gateway.example.com/openai/v1' },
      fetch: replay.fetch,
    });
    await similarity.matrix(['take apple 2 from fridge 1'], []);
    expect(replay.requests[0]?.url.href).toBe('https://gateway.example.com/openai/v1/embeddings');
  });

  it('openai: without OPENAI_API_KEY fails with MODEL_CONFIG naming it', async () => {
    const error = await rejection(createSimilarity('openai:text-embedding-3-small', { env: { OPENAI_API_KEY: ' ' } }));
    expect(error).toMatchObject({ code: 'MODEL_CONFIG', location: { field: 'OPENAI_API_KEY' } });
    expect(error.message).toContain('set the OPENAI_API_KEY environment variable');
  });

  it('ollama: asks <OLLAMA_HOST>/v1/embeddings, default 127.0.0.1:11434', async () => {
    for (const [env, url] of [
      [{}, 'http://127.0.0.1:11434/v1/embeddings'],
      [{ OLLAMA_HOST: 'gpu-box:11500' }, 'http://gpu-box:11500/v1/embeddings'],
      [{ OLLAMA_HOST: '0.0.0.0' }, 'http://127.0.0.1:11434/v1/embeddings'],
    ] as const) {
      const replay = replayFetch('ollama/embeddings');
      const similarity = await createSimilarity('ollama:nomic-embed-text', { env, fetch: replay.fetch });
      expect(similarity.name).toBe('embeddings ollama:nomic-embed-text');
      const matrix = await similarity.matrix(ROWS, COLUMNS);
      expect(replay.requests.map((request) => request.url.href)).toEqual([url]);
      expect(replay.requests[0]?.body).toEqual({
        model: 'nomic-embed-text',
        input: ['go to fridge 1', 'open fridge 1', 'take apple 2 from fridge 1'],
        encoding_format: 'float',
      });
      expect(matrix[0]?.[1]).toBeCloseTo(0.48, 12);
    }
  });

  it('ollama: a bad OLLAMA_HOST is a MODEL_CONFIG error', async () => {
    await expect(
      createSimilarity('ollama:nomic-embed-text', { env: { OLLAMA_HOST: 'http://[bad' } }),
    ).rejects.toMatchObject({
      code: 'MODEL_CONFIG',
    });
  });

  it('openai-compatible: sends WEFT_API_KEY when set, else a placeholder, and is named by its spec', async () => {
    const spec = 'openai-compatible:http://localhost:8080/v1#nomic-embed-text';
    const keyed = replayFetch('ollama/embeddings');
    const similarity = await createSimilarity(spec, {
      env: { WEFT_API_KEY: 'local-key', OPENAI_API_KEY: 'sk-other' },
      fetch: keyed.fetch,
    });
    expect(similarity.name).toBe(`embeddings ${spec}`);
    await similarity.matrix(ROWS, COLUMNS);
    expect(keyed.requests[0]?.url.href).toBe('http://localhost:8080/v1/embeddings');
    expect(keyed.requests[0]?.headers.get('authorization')).toBe('Bearer local-key');

    const keyless = replayFetch('ollama/embeddings');
    await (await createSimilarity(spec, { env: {}, fetch: keyless.fetch })).matrix(ROWS, COLUMNS);
    expect(keyless.requests[0]?.headers.get('authorization')).toBe('Bearer none');
  });

  it('keeps embeddings in cacheDir, one file per spec, so a second run sends no request', async () => {
    const replay = replayFetch('ollama/embeddings');
    const first = await createSimilarity('ollama:nomic-embed-text', {
      env: {},
      fetch: replay.fetch,
      cacheDir: directory,
    });
    const expected = await first.matrix(ROWS, COLUMNS);
    expect(await readdir(directory)).toEqual([
      relative(directory, embeddingCacheFile(directory, 'ollama:nomic-embed-text')),
    ]);

    const offline = replayFetch();
    const second = await createSimilarity('ollama:nomic-embed-text', {
      env: {},
      fetch: offline.fetch,
      cacheDir: directory,
    });
    expect(await second.matrix(ROWS, COLUMNS)).toEqual(expected);
    expect(offline.requests).toEqual([]);
  });

  it('local: a missing file is BAD_INPUT; a missing node-llama-cpp is MISSING_DEPENDENCY with the install hint', async () => {
    const missingFile = await rejection(createSimilarity('local:absent.gguf', { cwd: directory }));
    expect(missingFile).toMatchObject({ code: 'BAD_INPUT', location: { file: join(directory, 'absent.gguf') } });

    await writeFile(join(directory, 'model.gguf'), 'not really a model');
    const failing: NodeLlamaCppImporter = () => Promise.reject(new Error("Cannot find package 'node-llama-cpp'"));
    const missingModule = await rejection(createSimilarity('local:model.gguf', { cwd: directory, importer: failing }));
    expect(missingModule).toMatchObject({ code: 'MISSING_DEPENDENCY', message: NODE_LLAMA_CPP_INSTALL_HINT });
  });

  it.skipIf(skipReason !== undefined)('local: embeds with the GGUF, cached on disk by its absolute path', async () => {
    const relativePath = relative(directory, TINY_MODEL);
    const similarity = await createSimilarity(`local:${relativePath}`, {
      cwd: directory,
      importer: realImporter,
      cacheDir: directory,
    });
    try {
      expect(similarity).toMatchObject({ kind: 'embedding', name: `embeddings local:${relativePath}` });
      const matrix = await similarity.matrix(ROWS, COLUMNS);
      expect(matrix[1]?.[0]).toBe(1);
      expect(Math.abs(matrix[0]?.[1] ?? Number.NaN)).toBeLessThanOrEqual(1);
      const file = embeddingCacheFile(directory, `local:${TINY_MODEL}`);
      expect(dirname(file)).toBe(directory);
      expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(3);
    } finally {
      await similarity.close?.();
    }
  });
});
