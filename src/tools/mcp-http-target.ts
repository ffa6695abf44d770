/** How Weft reaches an MCP server over Streamable HTTP: the URL, its headers, and how both are shown. */
import { WeftError } from '../errors.js';
import { redactUrl } from '../text/redact-url.js';
import type { McpServerConfig } from './mcp-config.js';
import { mcpLocation } from './mcp-location.js';

/**
 * The URL to connect to and how to show it. Credentials in the URL become a Basic Authorization header (fetch
 * refuses URLs that carry them), and the shown URL has them removed, as have secret query parameters.
 */
export function httpTarget(
  config: McpServerConfig,
  label: string,
  secrets: string[],
): { url: URL; display: string; headers: Record<string, string> } {
  const spec = config.transport as Extract<McpServerConfig['transport'], { type: 'http' }>;
  const display = redactUrl(spec.url).display;
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    throw new WeftError('BAD_INPUT', `${label}: url is not a valid URL (${display})`, {
      location: mcpLocation(config, 'url'),
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WeftError('BAD_INPUT', `${label}: url must be http:// or https:// (got ${url.protocol})`, {
      location: mcpLocation(config, 'url'),
    });
  }
  const headers: Record<string, string> = { ...spec.headers };
  if (url.username !== '' || url.password !== '') {
    const basic = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    secrets.push(basic, basic.slice('Basic '.length));
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) headers.Authorization = basic;
    url.username = '';
    url.password = '';
  }
  return { url, display, headers };
}

/**
 * fetch, except for the GET the SDK opens after the handshake to hear the server's own messages: Weft answers no
 * server requests (sampling, elicitation) and acts on no notifications, and that standing connection would keep
 * Node running after a ToolSet nobody closed. A 405 is how a server says it offers no such stream, which the SDK
 * accepts. A GET that resumes a broken response stream (`last-event-id`) goes through.
 */
export function withoutStandingStream(url: string | URL, init?: RequestInit): Promise<Response> {
  if (init?.method === 'GET' && !new Headers(init.headers).has('last-event-id')) {
    return Promise.resolve(new Response(null, { status: 405 }));
  }
  return fetch(url, init);
}

/**
 * Every value of the config that may be a secret (`${env:NAME}` references are resolved before this layer sees
 * them): env and header values, and what redactUrl finds in the URL. Short values are left out: scrubbing `1`
 * from every message would garble them, and such a value guards nothing.
 */
export function secretsOf(config: McpServerConfig): string[] {
  const values: string[] = [];
  const spec = config.transport;
  const add = (value: string): void => {
    if (value.length >= 6) values.push(value);
    // `Bearer TOKEN`: the token alone too, as a server may echo it.
    for (const word of value.split(/\s+/)) if (word.length >= 8 && word !== value) values.push(word);
  };
  if (spec.type === 'stdio') for (const value of Object.values(spec.env)) add(value);
  else {
    for (const value of Object.values(spec.headers)) add(value);
    values.push(...redactUrl(spec.url).secrets);
  }
  return values;
}
