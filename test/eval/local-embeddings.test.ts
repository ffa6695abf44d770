import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine } from '../../src/eval/cosine.js';
import { createEmbeddingSimilarity, type EmbedFunction } from '../../src/eval/embedding-similarity.js';
import { createLocalEmbedder } from '../../src/llm/providers/local-embeddings.js';
import { NODE_LLAMA_CPP_INSTALL_HINT, type NodeLlamaCppImporter } from '../../src/llm/providers/local-gguf.js';
import { localInferenceSkipReason, realImporter, TINY_MODEL } from '../local-llama.js';
import { rejection } from '../llm/providers/rejection.js';

const missingPackage: NodeLlamaCppImporter = () =>
  Promise.reject(Object.assign(new Error("Cannot find package 'node-llama-cpp'"), { code: 'ERR_MODULE_NOT_FOUND' }));

describe('local embeddings: dependency and file errors', () => {
  let directory: string;
  let modelFile: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'weft-local-embeddings-'));
    modelFile = join(directory, 'model.gguf');
    await writeFile(modelFile, 'not really a model');
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('fails with MISSING_DEPENDENCY and the install command when node-llama-cpp is absent', async () => {
    const embedder = createLocalEmbedder({ path: modelFile, importer: missingPackage });
    const error = await rejection(embedder.embed(['go to fridge 1']));
    expect(error.code).toBe('MISSING_DEPENDENCY');
    expect(error.message).toBe(NODE_LLAMA_CPP_INSTALL_HINT);
  });

  it('fails with BAD_INPUT naming the file when the model file does not exist', async () => {
    const missing = join(directory, 'absent.gguf');
    const embedder = createLocalEmbedder({ path: missing, importer: missingPackage });
    const error = await rejection(embedder.embed(['a']));
    expect(error).toMatchObject({ code: 'BAD_INPUT', location: { file: missing } });
    expect(error.message).toContain(missing);
  });

  it('disposes context, model and llama on close, after the texts in flight', async () => {
    const disposed: string[] = [];
    const fake = {
      LlamaChatSession: class {},
      async getLlama() {
        return {
          async loadModel() {
            return {
              async createEmbeddingContext() {
                return {
                  async getEmbeddingFor(text: string) {
                    await new Promise((resolve) => setTimeout(resolve, 5));
                    return { vector: [text.length, 1] };
                  },
                  dispose: async () => void disposed.push('context'),
                };
              },
              dispose: async () => void disposed.push('model'),
            };
          },
          dispose: async () => void disposed.push('llama'),
        };
      },
    };
    const embedder = createLocalEmbedder({ path: modelFile, importer: async () => fake });
    const pending = embedder.embed(['ab', 'abc']);
    await embedder.close();
    expect(await pending).toEqual([
      [2, 1],
      [3, 1],
    ]);
    expect(disposed).toEqual(['context', 'model', 'llama']);
  });
});

const skipReason = await localInferenceSkipReason();
if (skipReason) console.log(`[local-embeddings] skipping the real-embedding test: ${skipReason}`);

describe('local embeddings: real node-llama-cpp on the tiny random GGUF', () => {
  it.skipIf(skipReason !== undefined)(
    'gives fixed-dimension, repeatable vectors; equal texts score 1; the cache embeds a repeated text once',
    async () => {
      const embedder = createLocalEmbedder({ path: TINY_MODEL, importer: realImporter });
      try {
        const [a, b, again] = await embedder.embed([
          'go to fridge 1',
          'open the drawer and take the mug',
          'go to fridge 1',
        ]);
        expect(a?.length).toBeGreaterThan(0);
        expect(b?.length).toBe(a?.length);
        expect(again).toEqual(a);
        expect(Math.abs(cosine(a ?? [], again ?? []) - 1)).toBeLessThan(1e-6);
        expect(a?.every(Number.isFinite)).toBe(true);

        const embedded: string[] = [];
        const counting: EmbedFunction = async (texts, signal) => {
          embedded.push(...texts);
          return embedder.embed(texts, signal);
        };
        const similarity = createEmbeddingSimilarity({
          name: 'embeddings local:tiny',
          model: embedder.model,
          embed: counting,
        });
        const rows = ['go to fridge 1', 'take apple 2 from fridge 1'];
        const matrix = await similarity.matrix(rows, [
          'go to fridge 1',
          'take apple 2 from fridge 1',
          'open the drawer',
        ]);
        expect(Math.abs((matrix[0]?.[0] ?? 0) - 1)).toBeLessThan(1e-6);
        expect(Math.abs((matrix[1]?.[1] ?? 0) - 1)).toBeLessThan(1e-6);
        for (const row of matrix) for (const value of row) expect(Number.isNaN(value)).toBe(false);
        // Symmetric: the same cosine either way round.
        const flipped = await similarity.matrix(['open the drawer'], rows);
        expect(flipped[0]?.[0]).toBeCloseTo(matrix[0]?.[2] ?? Number.NaN, 12);
        expect(embedded).toEqual(['go to fridge 1', 'take apple 2 from fridge 1', 'open the drawer']);
      } finally {
        await embedder.close();
      }
    },
  );
});
