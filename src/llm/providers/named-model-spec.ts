/** The spec of providers that take just a model name (`openai:gpt-4o`, `anthropic:…`, `ollama:llama3.2:1b`). */
import type { ModelProviderDescriptor, SpecProblem } from '../provider.js';

export type NamedModelSpec = {
  readonly provider: string;
  readonly model: string;
  /** `?tools=prompted` after the model: its server has no native tool calling, use the prompted fallback. */
  readonly tools?: 'prompted';
};

/** Parse, format, describe and the requested model name for `<name>:<model>[?tools=prompted]`. */
export function namedModel(
  name: string,
): Pick<ModelProviderDescriptor<NamedModelSpec>, 'name' | 'parse' | 'format' | 'describe' | 'requestedModel'> {
  const format = (spec: NamedModelSpec) => `${name}:${spec.model}${formatSpecOptions(spec)}`;
  return {
    name,
    parse(rest, fail) {
      const { body, tools } = splitSpecOptions(rest, fail);
      if (body === '') fail(`the model name after "${name}:" is empty`);
      return { provider: name, model: body, ...(tools ? { tools } : {}) };
    },
    format,
    describe: format,
    requestedModel: (spec) => spec.model,
  };
}

/**
 * Splits `model?tools=prompted` into the model and its options. Model names (Ollama's `name:tag`, OpenAI's
 * `ft:…`, Hugging Face ids) never hold a `?`, so the first one starts the options.
 */
export function splitSpecOptions(text: string, fail: SpecProblem): { body: string; tools?: 'prompted' } {
  const question = text.indexOf('?');
  if (question < 0) return { body: text };
  const body = text.slice(0, question).trim();
  let tools: 'prompted' | undefined;
  for (const option of text.slice(question + 1).split('&')) {
    const [key, value, ...extra] = option.split('=').map((part) => part.trim());
    if (key !== 'tools') {
      fail(`unknown option "${option}" after "?" (known: tools=prompted, tools=native)`);
    }
    if (extra.length > 0 || (value !== 'prompted' && value !== 'native')) {
      fail(
        `"tools" takes "prompted" (the model answers tool calls as JSON in its text) or "native", got "${value ?? ''}"`,
      );
    }
    if (value === 'prompted') tools = 'prompted';
  }
  return { body, ...(tools ? { tools } : {}) };
}

/** `?tools=prompted` when the spec asks for the prompted fallback, else nothing (native is the default). */
export function formatSpecOptions(spec: { readonly tools?: 'prompted' }): string {
  return spec.tools === 'prompted' ? '?tools=prompted' : '';
}
