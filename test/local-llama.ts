/**
 * Where the tests find node-llama-cpp and the tiny random GGUF for real local inference. node-llama-cpp comes
 * from, in order: WEFT_TEST_NODE_LLAMA_CPP (its dist/index.js), the side install that `npm run setup:local` makes
 * in .local-llm/ (CI runs it), or the project's own node_modules. The model is ../shared/models beside the repo.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importNodeLlamaCpp, type NodeLlamaCppImporter } from '../src/llm/providers/local-gguf.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const TINY_MODEL = resolve(REPO, '..', 'shared', 'models', 'llama-2-tiny-random.gguf');

const SIDE_INSTALL = resolve(REPO, '.local-llm', 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
const moduleFile = process.env['WEFT_TEST_NODE_LLAMA_CPP'] ?? (existsSync(SIDE_INSTALL) ? SIDE_INSTALL : undefined);

export const realImporter: NodeLlamaCppImporter = moduleFile
  ? () => import(pathToFileURL(moduleFile).href)
  : () => import('node-llama-cpp' as string);

/** Why real local inference cannot run here, or undefined when it can. */
export async function localInferenceSkipReason(): Promise<string | undefined> {
  if (!existsSync(TINY_MODEL)) return `the model file ${TINY_MODEL} does not exist`;
  try {
    await importNodeLlamaCpp(realImporter);
  } catch (error) {
    const cause =
      error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message.split('\n')[0]})` : '';
    return `node-llama-cpp is not importable${cause}; install it with: npm run setup:local`;
  }
  return undefined;
}
