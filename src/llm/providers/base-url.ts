/**
 * A base URL with credentials in it (`http://user:KEY@host/v1`): fetch refuses such URLs, and they must not be
 * printed or stored. The credentials go into a Basic `Authorization` header, as a browser or curl would send them,
 * and the URL is used without them.
 */
import { redactUrl } from '../../text/redact-url.js';

export interface SplitBaseUrl {
  /** The URL without user info. */
  readonly baseURL: string;
  /** `Basic …` when the URL had a user or password. */
  readonly authorization?: string;
  /** Texts to keep out of error messages. */
  readonly secrets: readonly string[];
}

export function splitBaseUrl(baseURL: string): SplitBaseUrl {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return { baseURL, secrets: redactUrl(baseURL).secrets };
  }
  const { secrets } = redactUrl(baseURL);
  if (url.username === '' && url.password === '') return { baseURL, secrets };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return {
    baseURL: url.href.replace(/\/+$/, ''),
    authorization,
    secrets: [...secrets, authorization.slice('Basic '.length)],
  };
}
