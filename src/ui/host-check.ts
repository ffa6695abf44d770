/**
 * The dashboard answers only requests addressed to it by a name it knows. A page on another site can make the
 * browser resolve that site's name to 127.0.0.1 (DNS rebinding) and then read the dashboard as its own origin; the
 * browser still sends the site's name in the Host header, so refusing unknown names stops it before the token is
 * even looked at.
 */
import type { MiddlewareHandler } from 'hono';

export interface HostPolicy {
  /** The address the server listens on (`--host`). */
  readonly bound: string;
  /** More names, any port (`--allowed-host`): the name a proxy in front of the dashboard forwards. */
  readonly allowed: readonly string[];
  /** The port the server listens on, known once it listens. */
  readonly port: () => number | undefined;
}

/** Names the dashboard answers on whatever it is bound to: this machine's own. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
const WILDCARDS = new Set(['0.0.0.0', '::']);

/** `name` of a Host header (`name`, `name:port`, `[v6]:port`), lowercase and without brackets, and its port. */
export function splitHost(header: string): { name: string; port: number | undefined } | undefined {
  const match = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/i.exec(header.trim());
  if (!match) return undefined;
  const name = (match[1] ?? match[2] ?? '').toLowerCase().replace(/\.$/, '');
  return { name, port: match[3] === undefined ? undefined : Number(match[3]) };
}

/** An address written as an IP (v4 or v6), which no DNS answer can point elsewhere. */
function isIpLiteral(name: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || name.includes(':');
}

/**
 * True when the Host header names the server: the bound address, localhost, 127.0.0.1 or [::1] with the server's
 * port (80 when none is written), or a name of `allowed` with any port. Bound to every interface (0.0.0.0, ::), an
 * IP address with the port is allowed too: a rebinding page can only send a name.
 */
export function isAllowedHost(header: string | undefined, policy: HostPolicy): boolean {
  if (header === undefined) return false;
  const host = splitHost(header);
  if (!host || host.name === '') return false;
  if (policy.allowed.some((name) => normalName(name) === host.name)) return true;
  const bound = normalName(policy.bound);
  const known = host.name === bound || LOOPBACK_NAMES.includes(host.name);
  const anyIp = WILDCARDS.has(bound) && isIpLiteral(host.name);
  if (!known && !anyIp) return false;
  return (host.port ?? 80) === policy.port();
}

function normalName(name: string): string {
  return name
    .trim()
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
}

export function hostCheck(policy: HostPolicy): MiddlewareHandler {
  return async (c, next) => {
    if (isAllowedHost(c.req.header('Host'), policy)) return next();
    const port = policy.port();
    return c.text(
      `This dashboard answers only to its own address (http://127.0.0.1:${port ?? ''}/ or the --host it was started with); for another name, such as a proxy's, start weft serve with --allowed-host NAME`,
      421,
    );
  };
}
