/**
 * The dashboard refuses a request whose Host header names another site (DNS rebinding: a page on that site made
 * the browser resolve its name to 127.0.0.1), with a 421, before the token; its own address, localhost,
 * 127.0.0.1 and [::1] with its port are answered, and so is a name given with `allowedHosts` (--allowed-host).
 * Raw HTTP requests to a listening server, since a browser's Host header is what is checked.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { DashboardStore } from '../../src/ui/dashboard-store.js';
import { isAllowedHost } from '../../src/ui/host-check.js';
import { type RunningDashboard, startDashboard } from '../../src/ui/serve-dashboard.js';

const store: DashboardStore = {
  listRuns: async () => [],
  getRun: async () => undefined,
  events: async () => [],
  planVersions: async () => [],
};

let dashboard: RunningDashboard | undefined;
afterEach(async () => {
  await dashboard?.close();
  dashboard = undefined;
});

/** GET `path` from 127.0.0.1:port with this Host header (and the token, so only the Host decides). */
function get(port: number, host: string, path = '/api/runs'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      { host: '127.0.0.1', port, path, headers: { Host: host, Authorization: `Bearer ${dashboard?.token}` } },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    sent.on('error', reject);
    sent.end();
  });
}

describe('dashboard Host check', () => {
  it('answers its own names with its port and refuses any other name or port with 421', async () => {
    dashboard = await startDashboard({ store, port: 0 });
    const { port } = dashboard;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      expect((await get(port, host)).status, host).toBe(200);
    }
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `localhost.evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      `10.0.0.1:${port}`,
    ]) {
      const refused = await get(port, host);
      expect(refused.status, host).toBe(421);
      expect(refused.body).toContain('--allowed-host');
      // The page is refused too, not only the API.
      expect((await get(port, host, '/')).status, host).toBe(421);
    }
  });

  it('answers a name given with allowedHosts, on any port', async () => {
    dashboard = await startDashboard({ store, port: 0, allowedHosts: ['dash.example.com'] });
    const { port } = dashboard;
    expect((await get(port, 'dash.example.com')).status).toBe(200);
    expect((await get(port, 'Dash.Example.com:8443')).status).toBe(200);
    expect((await get(port, 'other.example.com')).status).toBe(421);
  });
});

describe('isAllowedHost', () => {
  const policy = (bound: string, allowed: string[] = []) => ({ bound, allowed, port: () => 4477 });

  it('takes the bound name, and any IP address only when bound to every interface', () => {
    expect(isAllowedHost('box.lan:4477', policy('box.lan'))).toBe(true);
    expect(isAllowedHost('192.168.1.5:4477', policy('0.0.0.0'))).toBe(true);
    expect(isAllowedHost('[fe80::1]:4477', policy('::'))).toBe(true);
    expect(isAllowedHost('192.168.1.5:4477', policy('127.0.0.1'))).toBe(false);
    // A rebinding page sends a name, never an address: bound to every interface, names are still refused.
    expect(isAllowedHost('evil.example:4477', policy('0.0.0.0'))).toBe(false);
  });

  it('refuses a missing or malformed Host', () => {
    expect(isAllowedHost(undefined, policy('127.0.0.1'))).toBe(false);
    expect(isAllowedHost('', policy('127.0.0.1'))).toBe(false);
    expect(isAllowedHost('127.0.0.1:4477@evil', policy('127.0.0.1'))).toBe(false);
    expect(isAllowedHost('local host:4477', policy('127.0.0.1'))).toBe(false);
  });
});
