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

export type ModelSpec =
  | { readonly provider: 'openai'; readonly model: string }
  | { readonly provider: 'anthropic'; readonly model: string }
  | { readonly provider: 'ollama'; readonly model: string }
  | { readonly provider: 'openai-compatible'; readonly baseURL: string; readonly model: string }
  | { readonly provider: 'local'; readonly path: string }
  | { readonly provider: 'scripted'; readonly path: string }
  | { readonly provider: 'sim'; readonly options: string };

export type ModelProvider = ModelSpec['provider'];

export const MODEL_PROVIDERS: readonly ModelProvider[] = [
  'openai',
  'anthropic',
  'ollama',
  'openai-compatible',
  'local',
  'scripted',
  'sim',
];

/** One line per valid form, with an example; part of every MODEL_SPEC error message. */
export const MODEL_SPEC_FORMS: readonly string[] = [
  'openai:<model>                       e.g. openai:gpt-4o-mini',
  'anthropic:<model>                    e.g. anthropic:claude-3-5-haiku-latest',
  'ollama:<model>                       e.g. ollama:llama3.2:1b',
  'openai-compatible:<baseURL>#<model>  e.g. openai-compatible:http://localhost:8080/v1#qwen2.5-0.5b',
  'local:<path.gguf>                    e.g. local:./models/smollm2-360m.gguf',
  'scripted:<file.json|.js>             e.g. scripted:test/fixtures/replies.json',
  'sim:<options>                        e.g. sim:latency=lognormal(3,0.5),fail=0.1,seed=7',
];

const SCRIPTED_EXTENSIONS = ['.json', '.js', '.mjs'];

/** Common misspellings and brand names that map to a provider. */
const PROVIDER_ALIASES: Readonly<Record<string, ModelProvider>> = {
  gpt: 'openai',
  chatgpt: 'openai',
  'open-ai': 'openai',
  azure: 'openai-compatible',
  claude: 'anthropic',
  gguf: 'local',
  'llama-cpp': 'local',
  'llama.cpp': 'local',
  llamacpp: 'local',
  'node-llama-cpp': 'local',
  compatible: 'openai-compatible',
  'openai_compatible': 'openai-compatible',
  openaicompatible: 'openai-compatible',
  vllm: 'openai-compatible',
  lmstudio: 'openai-compatible',
  script: 'scripted',
  replay: 'scripted',
  simulated: 'sim',
  simulation: 'sim',
};

/** Reports what is wrong with a spec (e.g. `the spec is empty`); never returns. */
export type SpecProblem = (problem: string) => never;

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

  switch (prefix) {
    case 'openai':
    case 'anthropic':
    case 'ollama': {
      if (rest === '') fail(`the model name after "${prefix}:" is empty`);
      return { provider: prefix, model: rest };
    }
    case 'openai-compatible':
      return parseOpenAICompatible(rest, fail);
    case 'local': {
      if (rest === '') fail('the path after "local:" is empty');
      if (!rest.toLowerCase().endsWith('.gguf')) {
        fail(`"local:" takes a path to a .gguf file, got "${rest}"`);
      }
      return { provider: 'local', path: rest };
    }
    case 'scripted': {
      if (rest === '') fail('the file after "scripted:" is empty');
      const lower = rest.toLowerCase();
      if (!SCRIPTED_EXTENSIONS.some((extension) => lower.endsWith(extension))) {
        fail(`"scripted:" takes a .json or .js file, got "${rest}"`);
      }
      return { provider: 'scripted', path: rest };
    }
    case 'sim':
      // The options are parsed (and validated) by the sim model itself; empty means its defaults.
      return { provider: 'sim', options: rest };
    default: {
      const guess = suggestProvider(prefix);
      const hint = guess ? ` (did you mean "${guess}:${rest}"?)` : '';
      return fail(`unknown provider "${prefix}"${hint}`);
    }
  }
}

/** The canonical string form of a spec; `parseModelSpec(formatModelSpec(s))` equals `s`. */
export function formatModelSpec(spec: ModelSpec): string {
  switch (spec.provider) {
    case 'openai':
    case 'anthropic':
    case 'ollama':
      return `${spec.provider}:${spec.model}`;
    case 'openai-compatible':
      return `openai-compatible:${spec.baseURL}#${spec.model}`;
    case 'local':
    case 'scripted':
      return `${spec.provider}:${spec.path}`;
    case 'sim':
      return `sim:${spec.options}`;
  }
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
  return 'model' in parsed ? parsed.model : undefined;
}

function parseOpenAICompatible(rest: string, fail: SpecProblem): ModelSpec {
  if (rest === '') fail('the "<baseURL>#<model>" after "openai-compatible:" is empty');
  const hash = rest.lastIndexOf('#');
  if (hash < 0) {
    fail(`"openai-compatible:" needs "<baseURL>#<model>" but there is no "#" before the model name in "${rest}"`);
  }
  const baseURL = rest.slice(0, hash).trim();
  const model = rest.slice(hash + 1).trim();
  if (baseURL === '') fail('the base URL before "#" is empty');
  if (model === '') fail('the model name after "#" is empty');
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return fail(`"${baseURL}" is not a valid URL (expected e.g. http://localhost:8080/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    fail(`the base URL must use http or https, got "${url.protocol}"`);
  }
  return { provider: 'openai-compatible', baseURL: baseURL.replace(/\/+$/, ''), model };
}

function failModelSpec(text: string, problem: string): never {
  // The problem may quote the base URL too; both lose its password.
  const { display, secrets } = redactUrl(text);
  throw new WeftError(
    'MODEL_SPEC',
    [`Invalid model spec "${display}": ${scrubSecrets(redactModelSpec(problem), secrets)}.`, 'Valid forms:', ...MODEL_SPEC_FORMS.map((form) => `  ${form}`)].join('\n'),
  );
}

/** For a spec without a colon, guess the intended prefix from the model name. */
function suggestPrefix(spec: string): string {
  const lower = spec.toLowerCase();
  const known = suggestProvider(lower);
  if (known) return ` (did you mean "${known}:<model>"?)`;
  let provider: ModelProvider = 'ollama';
  if (lower.endsWith('.gguf')) provider = 'local';
  else if (SCRIPTED_EXTENSIONS.some((extension) => lower.endsWith(extension))) provider = 'scripted';
  else if (/^(gpt-|o\d|chatgpt)/.test(lower)) provider = 'openai';
  else if (lower.startsWith('claude')) provider = 'anthropic';
  else if (/^https?:\/\//.test(lower)) return ` (did you mean "openai-compatible:${spec}#<model>"?)`;
  return ` (did you mean "${provider}:${spec}"?)`;
}

/** The provider a misspelt prefix most likely meant, or undefined when nothing is close (about one typo per three letters). */
export function suggestProvider(prefix: string): ModelProvider | undefined {
  return closestWord(prefix, MODEL_PROVIDERS, PROVIDER_ALIASES);
}
