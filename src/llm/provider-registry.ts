/**
 * The model providers Weft knows, by spec prefix. A new provider is one descriptor file (see `provider.ts`) and
 * one line in BUILT_IN_PROVIDERS, or one `registerProvider` call from outside. The order is the order of the
 * forms in error messages.
 */
import { WeftError } from '../errors.js';
import type { ModelProviderDescriptor, ModelSpec } from './provider.js';
import { anthropicProvider } from './providers/anthropic-provider.js';
import { localProvider } from './providers/local-provider.js';
import { ollamaProvider } from './providers/ollama-provider.js';
import { openaiCompatibleProvider } from './providers/openai-compatible-provider.js';
import { openaiProvider } from './providers/openai-provider.js';
import { scriptedProvider } from './providers/scripted-provider.js';
import { simProvider } from './providers/sim-provider.js';

const BUILT_IN_PROVIDERS: readonly ModelProviderDescriptor[] = [
  openaiProvider,
  anthropicProvider,
  ollamaProvider,
  openaiCompatibleProvider,
  localProvider,
  scriptedProvider,
  simProvider,
];

const registry = new Map<string, ModelProviderDescriptor>(
  BUILT_IN_PROVIDERS.map((provider) => [provider.name, provider]),
);

/**
 * Adds a provider: specs `<name>:…` then parse, print and build through it. Returns a function that removes it
 * again. Throws BAD_INPUT when the name is taken or is not a lower-case word.
 */
export function registerProvider<Spec extends ModelSpec>(provider: ModelProviderDescriptor<Spec>): () => void {
  if (!/^[a-z][a-z0-9._-]*$/.test(provider.name)) {
    throw new WeftError(
      'BAD_INPUT',
      `A provider name is a lower-case word (letters, digits, ".", "_", "-"), got "${provider.name}".`,
    );
  }
  if (registry.has(provider.name))
    throw new WeftError('BAD_INPUT', `A model provider named "${provider.name}" is already registered.`);
  const added = provider as unknown as ModelProviderDescriptor;
  registry.set(provider.name, added);
  return () => {
    if (registry.get(provider.name) === added) registry.delete(provider.name);
  };
}

/** The provider of a spec prefix (lower case), or undefined. */
export function findProvider(name: string): ModelProviderDescriptor | undefined {
  return registry.get(name);
}

/** Every registered provider: the built-in ones first, in their order, then the added ones. */
export function listProviders(): readonly ModelProviderDescriptor[] {
  return [...registry.values()];
}

/** The provider a parsed spec names; MODEL_SPEC when it was never registered (a spec built by hand). */
export function providerOf(spec: ModelSpec): ModelProviderDescriptor {
  const provider = registry.get(spec.provider);
  if (provider === undefined) {
    throw new WeftError(
      'MODEL_SPEC',
      `No model provider "${spec.provider}" is registered (known: ${[...registry.keys()].join(', ')}).`,
    );
  }
  return provider;
}

/** Misspellings and brand names of every registered provider, for "did you mean". */
export function providerAliases(
  providers: readonly ModelProviderDescriptor[] = listProviders(),
): Record<string, string> {
  const aliases: Record<string, string> = {};
  for (const provider of providers) for (const alias of provider.aliases ?? []) aliases[alias] = provider.name;
  return aliases;
}
