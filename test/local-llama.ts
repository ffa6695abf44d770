/**
 * Where the tests find node-llama-cpp and the tiny random GGUF for real local inference. node-llama-cpp comes
 * from, in order: WEFT_TEST_NODE_LLAMA_CPP (its dist/index.js), the side install that `npm run setup:local` makes
 * in .local-llm/ (CI runs it), or the project's own node_modules. The model (a tiny random GGUF, llama-2-tiny-random)
 * is optional test data, found through WEFT_TINY_GGUF (test/optional-data.ts).
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importNodeLlamaCpp, type NodeLlamaCppImporter } from '../src/llm/providers/local-gguf.js';
import { optionalData } from './optional-data.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const TINY_GGUF = optionalData('WEFT_TINY_GGUF', 'the tiny random GGUF model', [
  'shared',
  'models',
  'llama-2-tiny-random.gguf',
]);
/** The model file; a path that does not exist when the model is not at hand (the skip reason says so). */
export const TINY_MODEL = TINY_GGUF.path ?? resolve(REPO, 'llama-2-tiny-random.gguf');

const SIDE_INSTALL = resolve(REPO, '.local-llm', 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
const moduleFile = process.env['WEFT_TEST_NODE_LLAMA_CPP'] ?? (existsSync(SIDE_INSTALL) ? SIDE_INSTALL : undefined);

export const realImporter: NodeLlamaCppImporter = moduleFile
  ? () => import(pathToFileURL(moduleFile).href)
  : () => import('node-llama-cpp' as string);

/** Why real local inference cannot run here, or undefined when it can. */
export async function localInferenceSkipReason(): Promise<string | undefined> {
  if (TINY_GGUF.missing !== undefined) return TINY_GGUF.missing;
  try {
    await importNodeLlamaCpp(realImporter);
  } catch (error) {
    const cause =
      error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message.split('\n')[0]})` : '';
    return `node-llama-cpp is not importable${cause}; install it with: npm run setup:local`;
  }
  return undefined;
}
