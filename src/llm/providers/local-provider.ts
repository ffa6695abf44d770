/** `local:<path.gguf>`: a GGUF model run in-process by node-llama-cpp (an optional dependency); chat and embeddings. */
import { resolve as resolvePath } from 'node:path';
import type { ModelProviderDescriptor } from '../provider.js';
import { assertModelFile, createLocalGgufModel, importNodeLlamaCpp } from './local-gguf.js';

export type LocalSpec = { readonly provider: 'local'; readonly path: string };

const format = (spec: LocalSpec) => `local:${spec.path}`;

export const localProvider: ModelProviderDescriptor<LocalSpec> = {
  name: 'local',
  form: 'local:<path.gguf>                    e.g. local:./models/smollm2-360m.gguf',
  aliases: ['gguf', 'llama-cpp', 'llama.cpp', 'llamacpp', 'node-llama-cpp'],
  parse(rest, fail) {
    if (rest === '') fail('the path after "local:" is empty');
    if (!rest.toLowerCase().endsWith('.gguf')) fail(`"local:" takes a path to a .gguf file, got "${rest}"`);
    return { provider: 'local', path: rest };
  },
  format,
  describe: format,
  suggest: (text) => (text.toLowerCase().endsWith('.gguf') ? `local:${text}` : undefined),
  async create(spec, { cwd, importNodeLlamaCpp: importer }) {
    const path = resolvePath(cwd, spec.path);
    // Fail now, with a clear message, rather than on the first call deep inside a run.
    await assertModelFile(path);
    await importNodeLlamaCpp(importer);
    return createLocalGgufModel({ id: format(spec), path, ...(importer ? { importer } : {}) });
  },
  embeddingForm: 'local:<path.gguf>                    e.g. local:./models/nomic-embed-text-v1.5.Q8_0.gguf',
  async createEmbedding(spec, { cwd, importNodeLlamaCpp: importer }) {
    const path = resolvePath(cwd, spec.path);
    // Fail now, with a clear message, rather than on the first sample.
    await assertModelFile(path);
    await importNodeLlamaCpp(importer);
    const { createLocalEmbedder } = await import('./local-embeddings.js');
    const embedder = createLocalEmbedder({ path, ...(importer ? { importer } : {}) });
    // By absolute path: the same relative path from another folder is another file.
    return { embedder, cacheKey: `local:${path}` };
  },
};
