/**
 * The model spec grammar, one everywhere (`--model`, config `model:`, env `WEFT_MODEL`):
 *
 *   openai:<model> · anthropic:<model> · ollama:<model> · openai-compatible:<baseURL>#<model> ·
 *   local:<path.gguf> · scripted:<file.json|.js> · sim:<options>
 *
 * Parsing is pure; building a model from a spec lives in `resolve-model.ts`.
 */
import { WeftError } from '../errors.js';
import { closestWord } from '../text/edit-distance.js';
import { redactUrl, scrubSecrets } from '../text/redact-url.js';
import type { ModelSpec, SpecProblem } from './provider.js';
import { findProvider, listProviders, providerAliases, providerOf } from './provider-registry.js';

export type { ModelSpec, SpecProblem } from './provider.js';

/** The built-in providers' names, in the order of their forms. */
export const MODEL_PROVIDERS: readonly string[] = listProviders().map((provider) => provider.name);

/** One line per valid form of the built-in providers, with an example; `modelSpecForms()` adds registered ones. */
export const MODEL_SPEC_FORMS: readonly string[] = modelSpecForms();

/** One line per valid form of every registered provider; part of every MODEL_SPEC error message. */
export function modelSpecForms(): string[] {
  return listProviders().map((provider) => provider.form);
}

/**
 * Parses a model spec string; throws WeftError('MODEL_SPEC') saying what is wrong and listing the valid forms.
 * `invalid` replaces how a problem is thrown, for grammars built on this one (the similarity spec).
 */
export function parseModelSpec(text: string, invalid?: SpecProblem): ModelSpec {
  const fail: SpecProblem = invalid ?? ((problem) => failModelSpec(text, problem));
  const spec = text.trim();
  if (spec === '') fail('the spec is empty');

  const colon = spec.indexOf(':');
  if (colon < 0) fail(`it has no provider prefix${suggestPrefix(spec)}`);

  const prefix = spec.slice(0, colon).toLowerCase();
  const rest = spec.slice(colon + 1).trim();

  const provider = findProvider(prefix);
  if (provider === undefined) {
    const guess = suggestProvider(prefix);
    const hint = guess ? ` (did you mean "${guess}:${rest}"?)` : '';
    return fail(`unknown provider "${prefix}"${hint}`);
  }
  return provider.parse(rest, fail);
}

/** The canonical string form of a spec; `parseModelSpec(formatModelSpec(s))` equals `s`. */
export function formatModelSpec(spec: ModelSpec): string {
  return providerOf(spec).format(spec);
}

/** A parsed spec fit to print or store: credentials removed by its provider. */
export function describeModelSpec(spec: ModelSpec): string {
  return providerOf(spec).describe(spec);
}

/**
 * A spec fit to print or store: the password of its URL removed (`openai-compatible:http://user:KEY@host/v1#m`
 * becomes `openai-compatible:http://user@host/v1#m`), like a Postgres store URL's.
 */
export function redactModelSpec(spec: string): string {
  return redactUrl(spec).display;
}

/**
 * The model name a spec asks the provider for (`gpt-4o` for `openai:gpt-4o`, `mymodel` for
 * `openai-compatible:<url>#mymodel`), or undefined for `local:`, `scripted:`, `sim:` and text that is no spec. What
 * a call is priced by and recorded as: servers may answer with another name (llama.cpp reports its file path).
 */
export function requestedModelName(spec: string): string | undefined {
  let parsed: ModelSpec;
  try {
    parsed = parseModelSpec(spec, () => {
      throw new Error('not a spec');
    });
  } catch {
    return undefined;
  }
  return providerOf(parsed).requestedModel?.(parsed);
}

function failModelSpec(text: string, problem: string): never {
  // The problem may quote the base URL too; both lose its password.
  const { display, secrets } = redactUrl(text);
  throw new WeftError(
    'MODEL_SPEC',
    [
      `Invalid model spec "${display}": ${scrubSecrets(redactModelSpec(problem), secrets)}.`,
      'Valid forms:',
      ...modelSpecForms().map((form) => `  ${form}`),
    ].join('\n'),
  );
}

/** For a spec without a colon, guess the intended prefix from the model name; Ollama when no provider claims it. */
function suggestPrefix(spec: string): string {
  const known = suggestProvider(spec.toLowerCase());
  if (known) return ` (did you mean "${known}:<model>"?)`;
  for (const provider of listProviders()) {
    const suggestion = provider.suggest?.(spec);
    if (suggestion !== undefined) return ` (did you mean "${suggestion}"?)`;
  }
  return ` (did you mean "ollama:${spec}"?)`;
}

/** The provider a misspelt prefix most likely meant, or undefined when nothing is close (about one typo per three letters). */
export function suggestProvider(prefix: string): string | undefined {
  const providers = listProviders();
  return closestWord(
    prefix,
    providers.map((provider) => provider.name),
    providerAliases(providers),
  );
}

/** Checks what the grammar leaves to the provider (e.g. the sim model's options); throws its WeftError. */
export function checkModelSpec(spec: ModelSpec): void {
  providerOf(spec).check?.(spec);
}
