/**
 * The hosts a tools file's HTTP tools (and MCP servers over HTTP) may reach: `allowHosts: [127.0.0.1, api.example.com:8443]`.
 * An entry is a host name or IP, matching any port, or `host:port`, matching that port only. Names compare
 * case-insensitively; no wildcards (a pattern is easy to get wrong, and the list is short).
 */

export interface AllowedHost {
  /** Lower case; IPv6 without brackets. */
  readonly host: string;
  readonly port?: number;
}

/** The entry as an AllowedHost, or a problem in words. */
export function parseAllowedHost(entry: string): AllowedHost | string {
  const text = entry.trim().toLowerCase();
  if (text === '') return 'an empty host';
  if (/[/?#@\s*]/.test(text) || /^[a-z][a-z0-9+.-]*:\/\//.test(text)) {
    return `"${entry}" is not a host (write a host name or IP, optionally with :port; no scheme, path or wildcard)`;
  }
  // [::1]:8080, [::1], ::1, host:port, host
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(text);
  const [host, portText] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : text.includes(':') && text.split(':').length > 2
      ? [text, undefined]
      : (text.split(':') as [string, string | undefined]);
  if (host === '') return `"${entry}" has no host`;
  const canonical = canonicalHost(host);
  if (canonical === undefined) return `"${entry}" is not a valid host name or IP`;
  if (portText === undefined) return { host: canonical };
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65_535) return `"${entry}" has an invalid port`;
  return { host: canonical, port };
}

/**
 * The host as a URL's `hostname` gives it, which is what requests are checked by: `2130706433` and `0x7f.1` are
 * 127.0.0.1, `[::ffff:127.0.0.1]` is `::ffff:7f00:1`. Compared as written, such an entry would match nothing.
 */
function canonicalHost(host: string): string | undefined {
  try {
    return new URL(`http://${host.includes(':') ? `[${host}]` : host}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** Whether a URL's host (and port) is on the list. */
export function isHostAllowed(url: URL, allowed: readonly AllowedHost[]): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  return allowed.some((entry) => entry.host === host && (entry.port === undefined || entry.port === port));
}

/** `host:port` of a URL, as an allowHosts entry would name it (what errors suggest adding). */
export function hostEntryOf(url: URL): string {
  return url.port === '' ? url.hostname : `${url.hostname}:${url.port}`;
}
