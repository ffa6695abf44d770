/**
 * A toy provider, `echo:<prefix>`: replies with the last message, after the prefix, and embeds texts as letter
 * counts. What adding a provider takes:
 * this one file, and one `registerProvider(echoProvider)` (or one line in BUILT_IN_PROVIDERS).
 */
import type { ChatModel } from '../../../src/llm/chat-model.js';
import type { ModelProviderDescriptor } from '../../../src/llm/provider.js';

export type EchoSpec = { readonly provider: 'echo'; readonly prefix: string };

export const echoProvider: ModelProviderDescriptor<EchoSpec> = {
  name: 'echo',
  form: 'echo:<prefix>                        e.g. echo:you said: ',
  aliases: ['parrot'],
  parse(rest, fail) {
    if (rest.length > 40) fail(`the prefix after "echo:" is longer than 40 characters`);
    return { provider: 'echo', prefix: rest };
  },
  format: (spec) => `echo:${spec.prefix}`,
  describe: (spec) => `echo:${spec.prefix}`,
  suggest: (text) => (text.startsWith('say ') ? `echo:${text}` : undefined),
  async create(spec): Promise<ChatModel> {
    return {
      id: `echo:${spec.prefix}`,
      kind: 'scripted',
      async generate(call) {
        const last = call.messages.at(-1)?.content ?? '';
        return { text: `${spec.prefix}${last}`, usage: { inputTokens: 1, outputTokens: 1 }, model: 'echo' };
      },
    };
  },
  embeddingForm: 'echo:<prefix>                        letter counts, e.g. echo:',
  async createEmbedding(spec) {
    // One dimension per letter a–z: texts with the same letters are identical.
    const embed = async (texts: string[]) =>
      texts.map((text) =>
        Array.from(
          { length: 26 },
          (_, letter) => [...text.toLowerCase()].filter((char) => char.charCodeAt(0) - 97 === letter).length,
        ),
      );
    return { embedder: { model: 'echo', embed }, cacheKey: `echo:${spec.prefix}` };
  },
};
