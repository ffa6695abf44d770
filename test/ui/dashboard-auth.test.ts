/**
 * The dashboard's guard, in-process through `app.request()`: the token (query → cookie and a redirect that drops
 * it, Bearer, a cookie named per token), 401 for anything else, pages and API alike, and the security headers on
 * every answer including 401 and 404. The page's embedded JSON cannot close its script block.
 */
import { describe, expect, it } from 'vitest';
import { createDashboardApp } from '../../src/ui/dashboard-app.js';
import type { DashboardStore } from '../../src/ui/dashboard-store.js';
import { embedJson } from '../../src/ui/embed-json.js';
import { CONTENT_SECURITY_POLICY } from '../../src/ui/security-headers.js';
import { tokenCookieName } from '../../src/ui/token-auth.js';

const TOKEN = 'test-token-AAAAAAAAAAAAAAAAAAAAAAAA';
const OTHER = 'test-token-BBBBBBBBBBBBBBBBBBBBBBBB';

const emptyStore: DashboardStore = {
  listRuns: async () => [],
  getRun: async () => undefined,
  events: async () => [],
  planVersions: async () => [],
};

function app(token = TOKEN, storeLabel = '/home/me/.weft/weft.db') {
  return createDashboardApp({ store: emptyStore, token, storeLabel });
}

const cookie = (token: string) => `${tokenCookieName(token)}=${token}`;

function expectSecurityHeaders(response: Response, what: string): void {
  expect(response.headers.get('Content-Security-Policy'), what).toBe(CONTENT_SECURITY_POLICY);
  expect(response.headers.get('X-Content-Type-Options'), what).toBe('nosniff');
  expect(response.headers.get('Referrer-Policy'), what).toBe('no-referrer');
  expect(response.headers.get('X-Frame-Options'), what).toBe('DENY');
  expect(response.headers.get('Cache-Control'), what).toBe('no-store');
}

describe('dashboard token', () => {
  it('no token: 401 for the page, its assets and the API (JSON there), with the security headers', async () => {
    const dashboard = app();
    for (const path of ['/', '/app.js', '/style.css', '/index.html', '/nowhere', '/api/runs', '/api/runs/x/events']) {
      const response = await dashboard.request(path);
      expect(response.status, path).toBe(401);
      expectSecurityHeaders(response, path);
      const body = await response.text();
      expect(body, path).toContain('Missing or wrong token');
      expect(body, path).not.toContain(TOKEN);
      if (path.startsWith('/api/')) expect(JSON.parse(body).error.code).toBe('UNAUTHORIZED');
    }
  });

  it('a wrong token is 401 wherever it is given: query, Bearer, the cookie, or the right cookie name with another value', async () => {
    const dashboard = app();
    const attempts: [string, RequestInit?][] = [
      ['/?token=wrong'],
      [`/?token=${TOKEN}x`],
      [`/?token=${TOKEN.slice(0, -1)}`],
      ['/?token='],
      ['/api/runs?token=wrong'],
      ['/api/runs', { headers: { Authorization: 'Bearer wrong' } }],
      ['/api/runs', { headers: { Authorization: `Basic ${TOKEN}` } }],
      ['/api/runs', { headers: { Authorization: `Bearer  ${TOKEN}` } }],
      ['/api/runs', { headers: { Cookie: `${tokenCookieName(TOKEN)}=wrong` } }],
      ['/api/runs', { headers: { Cookie: `weft=${TOKEN}` } }],
      // Another dashboard's cookie (another port on the same host: cookies are not scoped by port).
      ['/api/runs', { headers: { Cookie: cookie(OTHER) } }],
    ];
    for (const [path, init] of attempts) {
      const response = await dashboard.request(path, init);
      expect(response.status, `${path} ${JSON.stringify(init ?? {})}`).toBe(401);
      expect(response.headers.get('Set-Cookie')).toBeNull();
    }
  });

  it('the token in the query sets an HttpOnly SameSite=Strict cookie and redirects (303) to the address without it', async () => {
    const dashboard = app();
    const response = await dashboard.request(`/?token=${encodeURIComponent(TOKEN)}&x=1`);
    expect(response.status).toBe(303);
    expect(response.headers.get('Location')).toBe('/?x=1');
    expectSecurityHeaders(response, 'redirect');
    const setCookie = response.headers.get('Set-Cookie') ?? '';
    expect(setCookie).toContain(`${tokenCookieName(TOKEN)}=${TOKEN}`);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');

    const page = await dashboard.request('/', { headers: { Cookie: cookie(TOKEN) } });
    expect(page.status).toBe(200);
    expectSecurityHeaders(page, 'page');
    expect(await page.text()).toContain('<script type="module" src="/app.js"></script>');
  });

  it('the API takes the token in the query without a redirect (a script has nowhere to be redirected to), or as Bearer', async () => {
    const dashboard = app();
    const query = await dashboard.request(`/api/runs?token=${TOKEN}`);
    expect(query.status).toBe(200);
    expect(query.headers.get('Set-Cookie')).toContain(tokenCookieName(TOKEN));
    expect(await query.json()).toEqual({ total: 0, offset: 0, runs: [] });
    const bearer = await dashboard.request('/api/runs', { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get('Set-Cookie')).toBeNull();
  });

  it('each token has its own cookie name, so two dashboards on one host keep their own cookie', async () => {
    expect(tokenCookieName(TOKEN)).not.toBe(tokenCookieName(OTHER));
    expect(tokenCookieName(TOKEN)).toBe(tokenCookieName(TOKEN));
    expect(tokenCookieName(TOKEN)).toMatch(/^weft_[0-9a-f]{12}$/);
    expect(tokenCookieName(TOKEN)).not.toContain(TOKEN.slice(0, 8));
    const both = `${cookie(OTHER)}; ${cookie(TOKEN)}`;
    expect((await app(TOKEN).request('/api/runs', { headers: { Cookie: both } })).status).toBe(200);
    expect((await app(OTHER).request('/api/runs', { headers: { Cookie: both } })).status).toBe(200);
  });

  it('404s (API and page) carry the security headers too', async () => {
    const dashboard = app();
    const headers = { Cookie: cookie(TOKEN) };
    for (const path of ['/api/nothing', '/api/runs/no-such-run', '/api/runs/no-such-run/events', '/nothing.js']) {
      const response = await dashboard.request(path, { headers });
      expect(response.status, path).toBe(404);
      expectSecurityHeaders(response, path);
    }
    const favicon = await dashboard.request('/favicon.ico', { headers });
    expect(favicon.status).toBe(204);
    expectSecurityHeaders(favicon, 'favicon');
  });

  it('a hostile token value in a query or cookie is only ever compared, never echoed', async () => {
    const dashboard = app();
    const hostile = `<script>alert(1)</script>${'\u0000'.repeat(3)}${'x'.repeat(100_000)}`;
    const response = await dashboard.request(`/api/runs?token=${encodeURIComponent(hostile)}`);
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain('<script>');
  });
});

describe('JSON embedded in the page', () => {
  it('escapes what could end the script block or start markup, and parses back to the same value', () => {
    const value = { store: '</script><script>alert(1)</script><!-- & \u2028\u2029 </SCRIPT' };
    const text = embedJson(value);
    expect(text).not.toMatch(/<|>|&|\u2028|\u2029/);
    expect(text.toLowerCase()).not.toContain('</script');
    expect(JSON.parse(text)).toEqual(value);
  });

  it('the page shell carries the store label escaped', async () => {
    const dashboard = app(TOKEN, '/tmp/</script><script>window.__xss=1</script>');
    const html = await (await dashboard.request('/', { headers: { Cookie: cookie(TOKEN) } })).text();
    const boot = /<script type="application\/json" id="boot">([\s\S]*?)<\/script>/.exec(html);
    expect(boot).not.toBeNull();
    expect(JSON.parse(boot![1]!)).toEqual({ store: '/tmp/</script><script>window.__xss=1</script>' });
    expect(html.match(/<script/g)).toHaveLength(2);
  });
});
