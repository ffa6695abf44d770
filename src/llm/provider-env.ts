/** What providers read from the environment: API keys, base URLs, the Ollama host. */
import { WeftError } from '../errors.js';
import type { Env } from './provider.js';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

/** The trimmed value, or undefined when unset or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** The API key in `env[name]`, or MODEL_CONFIG naming the variable; `subject` is e.g. `The model openai:gpt-4o`. */
export function requireKey(env: Env, name: string, subject: string): string {
  const key = nonEmpty(env[name]);
  if (key === undefined) {
    throw new WeftError('MODEL_CONFIG', `${subject} needs an API key: set the ${name} environment variable.`, {
      location: { field: name },
    });
  }
  return key;
}

/**
 * The Ollama server's base URL from OLLAMA_HOST, accepting the forms Ollama itself does: `host`,
 * `host:port`, `scheme://host:port`; `0.0.0.0` (a listen address) is reached as 127.0.0.1.
 */
export function ollamaHost(env: Env = process.env): string {
  const raw = nonEmpty(env['OLLAMA_HOST']);
  if (raw === undefined) return DEFAULT_OLLAMA_HOST;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new WeftError('MODEL_CONFIG', `OLLAMA_HOST="${raw}" is not a host or URL (expected e.g. 127.0.0.1:11434).`, {
      location: { field: 'OLLAMA_HOST' },
    });
  }
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  const authority = withScheme.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split('/')[0] ?? '';
  const explicitPort = /:\d+$/.test(authority);
  if (!explicitPort && url.protocol === 'http:') url.port = '11434';
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`;
}
