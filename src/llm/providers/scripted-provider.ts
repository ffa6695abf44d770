/** `scripted:<file.json|.js>`: replies read from a file, for tests and demos. */
import { resolve as resolvePath } from 'node:path';
import type { ModelProviderDescriptor } from '../provider.js';

export type ScriptedSpec = { readonly provider: 'scripted'; readonly path: string };

const EXTENSIONS = ['.json', '.js', '.mjs'];
const hasScriptExtension = (text: string) => EXTENSIONS.some((extension) => text.toLowerCase().endsWith(extension));
const format = (spec: ScriptedSpec) => `scripted:${spec.path}`;

export const scriptedProvider: ModelProviderDescriptor<ScriptedSpec> = {
  name: 'scripted',
  form: 'scripted:<file.json|.js>             e.g. scripted:test/fixtures/replies.json',
  aliases: ['script', 'replay'],
  parse(rest, fail) {
    if (rest === '') fail('the file after "scripted:" is empty');
    if (!hasScriptExtension(rest)) fail(`"scripted:" takes a .json or .js file, got "${rest}"`);
    return { provider: 'scripted', path: rest };
  },
  format,
  describe: format,
  suggest: (text) => (hasScriptExtension(text) ? `scripted:${text}` : undefined),
  async create(spec, { cwd }) {
    const { loadScriptedModel } = await import('../scripted-model.js');
    return loadScriptedModel(resolvePath(cwd, spec.path));
  },
  noEmbedding: '"scripted:" is a chat model for tests, not an embedding model',
};
