import { appendFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAbortError, WeftError } from '../../src/errors.js';
import { cosine } from '../../src/eval/cosine.js';
import { embeddingCacheFile, openEmbeddingCache, type EmbeddingCache } from '../../src/eval/embedding-cache.js';
import { createEmbeddingSimilarity, type EmbedFunction } from '../../src/eval/embedding-similarity.js';
import { createOpenAIEmbedder } from '../../src/llm/providers/openai-embeddings.js';
import { rejection } from '../llm/providers/rejection.js';
import { replayFetch, unreachableFetch } from '../llm/providers/replay-fetch.js';

const VECTORS: Readonly<Record<string, number[]>> = {
  'go to fridge 1': [0.6, 0.8, 0, 0],
  'open fridge 1': [0.8, 0.6, 0, 0],
  'take apple 2 from fridge 1': [0, 0.6, 0, 0.8],
  'go to cabinet 3': [1, 2, 3, 4],
  '': [0, 0, 0, 0],
};

/** An embed that looks vectors up in VECTORS and records every batch it is asked for. */
function fakeEmbed(vectors: Readonly<Record<string, number[]>> = VECTORS) {
  const batches: string[][] = [];
  const embed: EmbedFunction = async (texts) => {
    batches.push([...texts]);
    return texts.map((text) => {
      const vector = vectors[text];
      if (!vector) throw new Error(`no vector for ${text}`);
      return vector;
    });
  };
  return { embed, batches };
}

function similarityWith(embed: EmbedFunction, extra: { batchSize?: number; cache?: EmbeddingCache } = {}) {
  return createEmbeddingSimilarity({ name: 'embeddings test:fake', model: 'test:fake', embed, ...extra });
}

describe('createEmbeddingSimilarity', () => {
  it('fills the matrix with cosines of the vectors, 1 for equal texts', async () => {
    const { embed } = fakeEmbed();
    const similarity = similarityWith(embed);
    expect(similarity.kind).toBe('embedding');
    expect(similarity.name).toBe('embeddings test:fake');
    const rows = ['go to fridge 1', 'open fridge 1'];
    const columns = ['open fridge 1', 'take apple 2 from fridge 1', 'go to cabinet 3'];
    const matrix = await similarity.matrix(rows, columns);
    for (const [i, row] of rows.entries()) {
      for (const [j, column] of columns.entries()) {
        expect(matrix[i]?.[j]).toBeCloseTo(cosine(VECTORS[row] ?? [], VECTORS[column] ?? []), 12);
      }
    }
    expect(matrix[0]?.[0]).toBeCloseTo(0.96, 12);
    expect(matrix[0]?.[1]).toBeCloseTo(0.48, 12);
    expect(matrix[1]?.[0]).toBe(1);
  });

  it('embeds each distinct text once, in batches, across calls', async () => {
    const { embed, batches } = fakeEmbed();
    const similarity = similarityWith(embed, { batchSize: 2 });
    await similarity.matrix(
      ['go to fridge 1', 'open fridge 1', 'go to fridge 1'],
      ['open fridge 1', 'take apple 2 from fridge 1'],
    );
    expect(batches).toEqual([['go to fridge 1', 'open fridge 1'], ['take apple 2 from fridge 1']]);
    await similarity.matrix(['take apple 2 from fridge 1'], ['go to cabinet 3', 'go to fridge 1']);
    expect(batches.slice(2)).toEqual([['go to cabinet 3']]);
  });

  it('shares one embedding between concurrent calls asking for the same text', async () => {
    const { embed, batches } = fakeEmbed();
    const similarity = similarityWith(embed);
    await Promise.all([
      similarity.matrix(['go to fridge 1'], ['open fridge 1']),
      similarity.matrix(['open fridge 1'], ['go to fridge 1']),
    ]);
    expect(batches.flat().sort()).toEqual(['go to fridge 1', 'open fridge 1']);
  });

  it('scores zero and empty vectors 0, never NaN, except against an equal text', async () => {
    const similarity = similarityWith(async (texts) =>
      texts.map((text) => (text === 'nothing' ? [] : (VECTORS[text] ?? []))),
    );
    const matrix = await similarity.matrix(['', 'nothing', 'go to fridge 1'], ['', 'nothing', 'open fridge 1']);
    expect(matrix[0]?.[0]).toBe(1);
    expect(matrix[1]?.[1]).toBe(1);
    for (const value of [
      matrix[0]?.[1],
      matrix[0]?.[2],
      matrix[1]?.[0],
      matrix[1]?.[2],
      matrix[2]?.[0],
      matrix[2]?.[1],
    ]) {
      expect(value).toBe(0);
    }
    expect(matrix[2]?.[2]).toBeCloseTo(0.96, 12);
  });

  it('fails with PROVIDER on a wrong number of vectors or a dimension change, and tries again later', async () => {
    let calls = 0;
    const similarity = similarityWith(async (texts) => {
      calls++;
      return calls === 1 ? [[1, 0]] : texts.map(() => [1, 0]);
    });
    const wrongCount = await rejection(similarity.matrix(['a', 'b'], []));
    expect(wrongCount).toMatchObject({
      code: 'PROVIDER',
      message: 'embeddings test:fake: asked for 2 embeddings in one batch, got 1 vector',
    });
    // Nothing was kept from the failed batch: both texts are asked for again.
    expect(await similarity.matrix(['a'], ['b'])).toEqual([[1]]);
    expect(calls).toBe(2);

    const changing = similarityWith(async (texts) => texts.map((text) => (text === 'c' ? [1, 0, 0] : [1, 0])));
    await changing.matrix(['a'], ['b']);
    const changed = await rejection(changing.matrix(['c'], []));
    expect(changed).toMatchObject({ code: 'PROVIDER' });
    expect(changed.message).toContain('3-dimensional vector');
    expect(changed.message).toContain('2 dimensions');

    const notNumbers = similarityWith(async (texts) => texts.map(() => [Number.NaN, 1]));
    expect(await rejection(notNumbers.matrix(['a'], []))).toMatchObject({ code: 'PROVIDER' });
  });

  it('wraps a plain error of embed in PROVIDER and passes WeftErrors through', async () => {
    const plain = similarityWith(async () => {
      throw new Error('socket hang up');
    });
    expect(await rejection(plain.matrix(['a'], []))).toMatchObject({
      code: 'PROVIDER',
      message: 'embeddings test:fake: embedding failed: socket hang up',
    });
    const weft = similarityWith(async () => {
      throw new WeftError('TIMEOUT', 'too slow', { retryable: true });
    });
    expect(await rejection(weft.matrix(['a'], []))).toMatchObject({ code: 'TIMEOUT', message: 'too slow' });
  });

  it('rejects an aborted call without embedding anything', async () => {
    const { embed, batches } = fakeEmbed();
    const similarity = similarityWith(embed);
    const controller = new AbortController();
    controller.abort();
    const error: unknown = await similarity
      .matrix(['go to fridge 1'], [], controller.signal)
      .catch((caught: unknown) => caught);
    expect(isAbortError(error)).toBe(true);
    expect(batches).toEqual([]);
  });

  it('re-embeds, under its own signal, texts another call aborted', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batches: string[][] = [];
    const similarity = similarityWith(async (texts, signal) => {
      batches.push([...texts]);
      if (batches.length === 1) {
        await gate;
        signal?.throwIfAborted();
      }
      return texts.map((text) => VECTORS[text] ?? []);
    });
    const controller = new AbortController();
    const first = similarity.matrix(['go to fridge 1'], [], controller.signal).catch((caught: unknown) => caught);
    const second = similarity.matrix(['go to fridge 1'], ['open fridge 1']);
    controller.abort();
    release();
    expect(isAbortError(await first)).toBe(true);
    expect((await second)[0]?.[0]).toBeCloseTo(0.96, 12);
    expect(batches).toEqual([['go to fridge 1'], ['open fridge 1'], ['go to fridge 1']]);
  });

  it('rejects a batch size below 1', () => {
    expect(() => similarityWith(fakeEmbed().embed, { batchSize: 0 })).toThrow(
      expect.objectContaining({ code: 'BAD_INPUT' }),
    );
  });

  it('closes what the embedder holds', async () => {
    let closed = 0;
    const similarity = createEmbeddingSimilarity({
      name: 'n',
      model: 'm',
      embed: fakeEmbed().embed,
      close: async () => void closed++,
    });
    await similarity.close?.();
    expect(closed).toBe(1);
  });
});

describe('embedding cache on disk', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'weft-embedding-cache-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('names one file per model: the model id made safe plus a short hash', () => {
    const file = embeddingCacheFile(directory, 'openai-compatible:http://localhost:8080/v1#bge-small');
    expect(basename(file)).toMatch(/^openai-compatible_http_localhost_8080_v1_bge-small-[0-9a-f]{12}\.jsonl$/);
    // Ids that sanitise alike still get their own file.
    expect(embeddingCacheFile(directory, 'a/b')).not.toBe(embeddingCacheFile(directory, 'a:b'));
    expect(basename(embeddingCacheFile(directory, '../../etc/passwd'))).toMatch(/^etc_passwd-[0-9a-f]{12}\.jsonl$/);
  });

  it('keeps vectors across instances, so a second run embeds nothing', async () => {
    const first = fakeEmbed();
    const warnings: string[] = [];
    const open = () =>
      openEmbeddingCache({
        directory: join(directory, 'nested'),
        model: 'test:fake',
        onWarning: (w) => warnings.push(w),
      });
    const run1 = similarityWith(first.embed, { batchSize: 2, cache: open() });
    const expected = await run1.matrix(['go to fridge 1', 'open fridge 1'], ['take apple 2 from fridge 1']);
    expect(first.batches).toHaveLength(2);

    const file = embeddingCacheFile(join(directory, 'nested'), 'test:fake');
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      { text: 'go to fridge 1', vector: [0.6, 0.8, 0, 0] },
      { text: 'open fridge 1', vector: [0.8, 0.6, 0, 0] },
      { text: 'take apple 2 from fridge 1', vector: [0, 0.6, 0, 0.8] },
    ]);

    const second = fakeEmbed();
    const run2 = similarityWith(second.embed, { cache: open() });
    expect(await run2.matrix(['go to fridge 1', 'open fridge 1'], ['take apple 2 from fridge 1'])).toEqual(expected);
    expect(second.batches).toEqual([]);
    // Only the new text is embedded and appended.
    await run2.matrix(['go to cabinet 3'], ['go to fridge 1']);
    expect(second.batches).toEqual([['go to cabinet 3']]);
    expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(4);
    expect(warnings).toEqual([]);
  });

  it('skips corrupt lines with a warning, never crashes and never rewrites the file', async () => {
    const file = embeddingCacheFile(directory, 'test:fake');
    const content = [
      JSON.stringify({ text: 'go to fridge 1', vector: [0.6, 0.8, 0, 0] }),
      '{"text": "open fridge 1", "vec',
      JSON.stringify({ text: 'open fridge 1', vector: [1, 'x', 0, 0] }),
      JSON.stringify({ text: 'go to cabinet 3', vector: [1, 2, 3] }),
      '[1, 2]',
      '',
      JSON.stringify({ text: 'take apple 2 from fridge 1', vector: [0, 0.6, 0, 0.8] }),
      // A write cut short: no newline at the end.
      '{"text": "trunc',
    ].join('\n');
    await writeFile(file, content);
    const warnings: string[] = [];
    const cache = openEmbeddingCache({ directory, model: 'test:fake', onWarning: (warning) => warnings.push(warning) });
    const { embed, batches } = fakeEmbed();
    const similarity = similarityWith(embed, { cache });
    await similarity.matrix(['go to fridge 1', 'take apple 2 from fridge 1'], ['open fridge 1', 'go to cabinet 3']);

    expect(batches).toEqual([['open fridge 1', 'go to cabinet 3']]);
    expect(warnings).toEqual([
      `${file}:2: skipped an unreadable embedding cache line (not JSON)`,
      `${file}:3: skipped an unreadable embedding cache line ("vector" holds something other than finite numbers)`,
      `${file}:4: skipped an unreadable embedding cache line ("vector" has 3 dimensions where earlier lines have 4)`,
      `${file}:5: skipped an unreadable embedding cache line ("text" is not a string)`,
      `${file}:8: skipped an unreadable embedding cache line (not JSON)`,
    ]);
    // The old content is untouched; new lines start on a line of their own.
    const after = await readFile(file, 'utf8');
    expect(after.startsWith(`${content}\n`)).toBe(true);
    const added = after
      .slice(content.length + 1)
      .trimEnd()
      .split('\n');
    expect(added.map((line) => (JSON.parse(line) as { text: string }).text)).toEqual([
      'open fridge 1',
      'go to cabinet 3',
    ]);
  });

  it('counts corrupt lines beyond the first five in one warning', async () => {
    const file = embeddingCacheFile(directory, 'test:fake');
    await writeFile(file, 'garbage\n'.repeat(8));
    const warnings: string[] = [];
    const cache = openEmbeddingCache({ directory, model: 'test:fake', onWarning: (warning) => warnings.push(warning) });
    expect(await cache.lookup(['garbage'])).toEqual(new Map());
    expect(warnings).toHaveLength(6);
    expect(warnings[5]).toBe(`${file}: skipped 3 more unreadable embedding cache lines`);
  });

  it('goes on without saving when the cache cannot be written', async () => {
    const blocker = join(directory, 'not-a-folder');
    await writeFile(blocker, '');
    const warnings: string[] = [];
    const cache = openEmbeddingCache({
      directory: blocker,
      model: 'test:fake',
      onWarning: (warning) => warnings.push(warning),
    });
    const similarity = similarityWith(fakeEmbed().embed, { batchSize: 1, cache });
    expect((await similarity.matrix(['go to fridge 1'], ['open fridge 1']))[0]?.[0]).toBeCloseTo(0.96, 12);
    // One warning for the failed read, one for the first failed write; the second batch does not try again.
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('could not read the embedding cache');
    expect(warnings[1]).toContain('could not write the embedding cache');
  });

  it('refuses cached vectors whose dimension the model no longer gives, naming the file', async () => {
    const cache = openEmbeddingCache({ directory, model: 'test:fake' });
    await cache.store([{ text: 'old text', vector: [1, 0, 0] }]);
    const similarity = similarityWith(fakeEmbed({ 'new text': [1, 0] }).embed, { cache });
    const error = await rejection(similarity.matrix(['old text'], ['new text']));
    expect(error).toMatchObject({ code: 'BAD_INPUT', location: { file: cache.location } });
    expect(error.message).toContain(`delete ${cache.location}`);
  });

  it('loads the file once and appends without duplicating texts', async () => {
    const cache = openEmbeddingCache({ directory, model: 'test:fake' });
    await cache.store([{ text: 'a', vector: [1] }]);
    await appendFile(cache.location, `${JSON.stringify({ text: 'written by another process', vector: [2] })}\n`);
    // Loaded already: the line added behind its back is not seen until the next open.
    expect(await cache.lookup(['a', 'written by another process'])).toEqual(new Map([['a', [1]]]));
    await cache.store([
      { text: 'a', vector: [1] },
      { text: 'b', vector: [3] },
      { text: 'b', vector: [3] },
    ]);
    const texts = (await readFile(cache.location, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { text: string }).text);
    expect(texts).toEqual(['a', 'written by another process', 'b']);
    expect(await readdir(directory)).toEqual([basename(cache.location)]);
  });
});

describe('createOpenAIEmbedder (recorded fixtures)', () => {
  it('sends model, input and encoding_format float, in batches, and reads the vectors', async () => {
    const replay = replayFetch('openai/embeddings-batch-of-2', 'openai/embeddings-batch-of-1');
    const embedder = createOpenAIEmbedder({
      baseURL: 'https://api.openai.com/v1',
      model: 'text-embedding-3-small',
      apiKey: 'sk-test-key',
      providerName: 'OpenAI',
      apiKeyEnv: 'OPENAI_API_KEY',
      fetch: replay.fetch,
    });
    const similarity = createEmbeddingSimilarity({
      name: 'n',
      model: embedder.model,
      embed: embedder.embed,
      batchSize: 2,
    });
    const matrix = await similarity.matrix(
      ['go to fridge 1', 'open fridge 1'],
      ['open fridge 1', 'take apple 2 from fridge 1'],
    );

    expect(replay.requests).toHaveLength(2);
    const [first, second] = replay.requests;
    expect(first?.url.href).toBe('https://api.openai.com/v1/embeddings');
    expect(first?.headers.get('authorization')).toBe('Bearer sk-test-key');
    expect(first?.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['go to fridge 1', 'open fridge 1'],
      encoding_format: 'float',
    });
    expect(second?.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['take apple 2 from fridge 1'],
      encoding_format: 'float',
    });
    expect(matrix[0]?.[0]).toBeCloseTo(0.96, 12);
    expect(matrix[0]?.[1]).toBeCloseTo(0.48, 12);
    expect(matrix[1]?.[0]).toBe(1);
    expect(matrix[1]?.[1]).toBeCloseTo(0.36, 12);
  });

  it('maps 401 to a PROVIDER error naming the key variable but never the key', async () => {
    const replay = replayFetch('openai/embeddings-unauthorized-401');
    const embedder = createOpenAIEmbedder({
      baseURL: 'https://api.openai.com/v1',
      model: 'text-embedding-3-small',
      apiKey: 'sk-test-secret-0123456789',
      providerName: 'OpenAI',
      apiKeyEnv: 'OPENAI_API_KEY',
      fetch: replay.fetch,
    });
    const error = await rejection(embedder.embed(['a']));
    expect(error).toMatchObject({ code: 'PROVIDER', retryable: false });
    expect(error.message).toMatch(/^OpenAI \(text-embedding-3-small\) answered HTTP 401: Incorrect API key provided/);
    expect(error.message).toContain('(check OPENAI_API_KEY)');
    expect(error.message).not.toContain('sk-test-secret');
  });

  it('redacts a key that a server echoes in its error', async () => {
    const echo = (async () =>
      new Response(JSON.stringify({ error: { message: 'bad key sk-echoed-secret-key' } }), {
        status: 403,
        headers: { 'content-type': 'application/json' },
      })) as typeof globalThis.fetch;
    const embedder = createOpenAIEmbedder({
      baseURL: 'http://proxy/v1',
      model: 'm',
      apiKey: 'sk-echoed-secret-key',
      fetch: echo,
    });
    const error = await rejection(embedder.embed(['a']));
    expect(error.message).toContain('bad key [redacted]');
    expect(error.message).not.toContain('sk-echoed-secret-key');
    expect(error.cause).toBeUndefined();
  });

  it('maps 429 to a retryable PROVIDER error with the Retry-After delay', async () => {
    const replay = replayFetch('openai/embeddings-rate-limit-429');
    const embedder = createOpenAIEmbedder({
      baseURL: 'https://api.openai.com/v1',
      model: 'text-embedding-3-small',
      apiKey: 'sk-test-key',
      providerName: 'OpenAI',
      fetch: replay.fetch,
    });
    const error = await rejection(embedder.embed(['a']));
    expect(error).toMatchObject({ code: 'PROVIDER', retryable: true, retryAfterMs: 3000 });
    expect(error.message).toContain('answered HTTP 429: Rate limit reached');
  });

  it('fails clearly on a wrong vector count or mixed dimensions in a response', async () => {
    const options = {
      baseURL: 'https://api.openai.com/v1',
      model: 'text-embedding-3-small',
      apiKey: 'sk-test-key',
      providerName: 'OpenAI',
    };
    const wrongCount = createOpenAIEmbedder({ ...options, fetch: replayFetch('openai/embeddings-wrong-count').fetch });
    expect(await rejection(wrongCount.embed(['a', 'b']))).toMatchObject({
      code: 'PROVIDER',
      message: 'OpenAI (text-embedding-3-small): asked for 2 embeddings, the server returned 1',
    });
    const mixed = createOpenAIEmbedder({ ...options, fetch: replayFetch('openai/embeddings-mixed-dimensions').fetch });
    const error = await rejection(mixed.embed(['a', 'b']));
    expect(error).toMatchObject({ code: 'PROVIDER' });
    expect(error.message).toContain('different dimensions in one response (4 for input 1, 3 for input 2)');
  });

  it('sends nothing for no texts, and fails retryably when the server is unreachable', async () => {
    const replay = replayFetch();
    const idle = createOpenAIEmbedder({
      baseURL: 'http://127.0.0.1:11434/v1',
      model: 'nomic-embed-text',
      fetch: replay.fetch,
    });
    expect(await idle.embed([])).toEqual([]);
    expect(replay.requests).toEqual([]);

    const down = createOpenAIEmbedder({
      baseURL: 'http://127.0.0.1:11434/v1',
      model: 'nomic-embed-text',
      providerName: 'Ollama',
      fetch: unreachableFetch(),
    });
    const error = await rejection(down.embed(['a']));
    expect(error).toMatchObject({ code: 'PROVIDER', retryable: true });
    expect(error.message).toContain('Ollama (nomic-embed-text): could not connect at http://127.0.0.1:11434/v1');
  });

  it('decodes base64 float32 vectors from a server that sends them anyway', async () => {
    const base64 = Buffer.from(new Float32Array([0.5, -1.25]).buffer).toString('base64');
    const server = (async () =>
      new Response(
        JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: base64 }], model: 'm' }),
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
        },
      )) as typeof globalThis.fetch;
    const embedder = createOpenAIEmbedder({ baseURL: 'http://server/v1', model: 'm', fetch: server });
    expect(await embedder.embed(['a'])).toEqual([[0.5, -1.25]]);
  });
});
