/** The spec of providers that take just a model name (`openai:gpt-4o`, `anthropic:…`, `ollama:llama3.2:1b`). */
import type { ModelProviderDescriptor } from '../provider.js';

export type NamedModelSpec = { readonly provider: string; readonly model: string };

/** Parse, format, describe and the requested model name for `<name>:<model>`. */
export function namedModel(
  name: string,
): Pick<ModelProviderDescriptor<NamedModelSpec>, 'name' | 'parse' | 'format' | 'describe' | 'requestedModel'> {
  return {
    name,
    parse(rest, fail) {
      if (rest === '') fail(`the model name after "${name}:" is empty`);
      return { provider: name, model: rest };
    },
    format: (spec) => `${name}:${spec.model}`,
    describe: (spec) => `${name}:${spec.model}`,
    requestedModel: (spec) => spec.model,
  };
}
