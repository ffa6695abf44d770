/**
 * The dashboard's one secret: a random token printed in the URL `weft serve` shows. The first visit with
 * `?token=` sets an HttpOnly, SameSite=Strict cookie and redirects to the same address without the token (so it
 * does not linger in history or Referer); every later request carries the cookie, or `Authorization: Bearer`.
 * Anything else is 401, pages and assets included. The cookie's name is derived from the token, because cookies
 * are not scoped by port: two dashboards on one host must not overwrite each other's.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { WeftError } from '../errors.js';

export function newDashboardToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * A token the user chose (WEFT_DASHBOARD_TOKEN), so that pages left open keep working across a restart of the
 * server. It travels in URLs and cookies, so only URL-safe characters; long enough not to be guessed.
 */
export function checkDashboardToken(token: string, field = 'WEFT_DASHBOARD_TOKEN'): string {
  if (!/^[A-Za-z0-9._~-]{24,256}$/.test(token))
    throw new WeftError(
      'BAD_INPUT',
      `${field} must be 24 to 256 characters of A-Z, a-z, 0-9, '.', '_', '~' or '-' (it goes in URLs and cookies); got ${token.length} characters`,
      { location: { field } },
    );
  return token;
}

export function tokenCookieName(token: string): string {
  return `weft_${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;
}

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

export function tokenAuth(token: string): MiddlewareHandler {
  const cookieName = tokenCookieName(token);
  return async (c, next) => {
    const url = new URL(c.req.url);
    const fromQuery = url.searchParams.get('token') ?? undefined;
    if (fromQuery !== undefined && sameToken(fromQuery, token)) {
      setCookie(c, cookieName, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      if (c.req.method === 'GET' && !url.pathname.startsWith('/api/')) {
        url.searchParams.delete('token');
        // One leading slash only: `//evil.com/?token=…` would otherwise redirect off-site (a protocol-relative URL).
        const path = `/${url.pathname.replace(/^[/\\]+/, '')}`;
        return c.redirect(`${path}${url.search}`, 303);
      }
      return next();
    }
    const header = c.req.header('Authorization');
    const bearer = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
    if (sameToken(bearer, token) || sameToken(getCookie(c, cookieName), token)) return next();
    const message = 'Missing or wrong token: open the URL `weft serve` printed (it carries ?token=…)';
    return url.pathname.startsWith('/api/')
      ? c.json({ error: { code: 'UNAUTHORIZED', message } }, 401)
      : c.text(message, 401);
  };
}
