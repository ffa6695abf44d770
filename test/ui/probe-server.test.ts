/**
 * The dashboard server probed as an attacker and a careless user would: the token redirect never points off-site,
 * every answer (401, 404, 500, 503, a stream) carries the security headers, a failing store is a JSON error, live
 * streams are capped and end when their run is deleted.
 */
import { describe, expect, it, vi } from 'vitest';
import type { RunRecord, StoredEvent } from '../../src/store/run-store.js';
import { createDashboardApp } from '../../src/ui/dashboard-app.js';
import type { DashboardStore } from '../../src/ui/dashboard-store.js';
import { loadWebAssets } from '../../src/ui/web-assets.js';

const TOKEN = 'probe-token-0123456789';
const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };
const assets = loadWebAssets();

const run: RunRecord = {
  runId: 'r1',
  task: 'a task',
  model: 'sim',
  options: {},
  status: 'running',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
} as RunRecord;

function storeWith(runs: Map<string, RunRecord>, overrides: Partial<DashboardStore> = {}): DashboardStore {
  const events: StoredEvent[] = [{ seq: 1, event: { type: 'run-start', at: 0 } } as StoredEvent];
  return {
    listRuns: async () => [...runs.values()],
    getRun: async (runId) => runs.get(runId),
    events: async (runId, after = 0) => (runs.has(runId) ? events.filter((stored) => stored.seq > after) : []),
    planVersions: async () => [],
    ...overrides,
  };
}

function app(store: DashboardStore, extra: { maxStreams?: number; heartbeatMs?: number } = {}) {
  return createDashboardApp({
    store,
    token: TOKEN,
    assets,
    pollMs: 5,
    heartbeatMs: extra.heartbeatMs ?? 60_000,
    ...extra,
  });
}

describe('the ?token= redirect', () => {
  it.each([
    ['//evil.com/?token=T', '/evil.com/'],
    ['/\\evil.com/?token=T', '/evil.com/'],
    ['///evil.com?token=T&x=1', '/evil.com?x=1'],
    ['/?token=T&next=//evil', '/?next=%2F%2Fevil'],
  ])('%s stays on this server', async (path, location) => {
    const response = await app(storeWith(new Map())).request(`http://127.0.0.1:4477${path.replace('T', TOKEN)}`);
    expect(response.status).toBe(303);
    expect(response.headers.get('Location')).toBe(location);
    // Resolved against the dashboard's own address, it is still the dashboard's.
    expect(new URL(response.headers.get('Location')!, 'http://127.0.0.1:4477/').host).toBe('127.0.0.1:4477');
    expect(response.headers.get('Location')).not.toContain(TOKEN);
  });
});

describe('every answer carries the security headers', () => {
  const broken = storeWith(new Map(), {
    listRuns: async () => {
      throw new Error('database is locked');
    },
  });
  it.each([
    ['no token', '/api/runs', {}, 401],
    ['POST to the page', '/', { method: 'POST', ...auth }, 404],
    ['OPTIONS on the API', '/api/runs', { method: 'OPTIONS', ...auth }, 404],
    ['a store that fails', '/api/runs', auth, 500],
  ])('%s', async (_label, path, init, status) => {
    const response = await app(broken).request(path, init);
    expect(response.status).toBe(status);
    expect(response.headers.get('Content-Security-Policy')).toContain("default-src 'none'");
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(response.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('a failing store read is a JSON error the page can show', async () => {
    const response = await app(broken).request('/api/runs', auth);
    expect(await response.json()).toEqual({
      error: { code: 'INTERNAL', message: 'The dashboard could not answer: database is locked' },
    });
  });
});

describe('live event streams', () => {
  it('are capped: past the cap a 503, and a closed stream frees its place', async () => {
    const dashboard = app(storeWith(new Map([['r1', run]])), { maxStreams: 2 });
    const first = await dashboard.request('/api/runs/r1/events', auth);
    const second = await dashboard.request('/api/runs/r1/events', auth);
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await dashboard.request('/api/runs/r1/events', auth);
    expect(third.status).toBe(503);
    expect(third.headers.get('Content-Security-Policy')).toContain("default-src 'none'");
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe('BUSY');
    await first.body!.cancel();
    await expect.poll(async () => (await dashboard.request('/api/runs/r1/events', auth)).status).toBe(200);
    await second.body!.cancel();
  });

  it('carry the security headers', async () => {
    const response = await app(storeWith(new Map([['r1', run]]))).request('/api/runs/r1/events', auth);
    expect(response.headers.get('Content-Type')).toContain('text/event-stream');
    expect(response.headers.get('Content-Security-Policy')).toContain("default-src 'none'");
    await response.body!.cancel();
  });

  it('end when their run is deleted (weft prune)', async () => {
    const runs = new Map([['r1', run]]);
    const response = await app(storeWith(runs), { heartbeatMs: 0 }).request('/api/runs/r1/events', auth);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('id: 1\n')) text += decoder.decode((await reader.read()).value);
    runs.delete('r1');
    let done = false;
    while (!done) done = (await reader.read()).done;
    expect(done).toBe(true);
  });
});

describe('a store read failing mid-stream', () => {
  it('ends the stream without a stack trace on stderr', async () => {
    const runs = new Map([['r1', run]]);
    let reads = 0;
    const store = storeWith(runs, {
      events: async () => {
        reads += 1;
        if (reads > 1) throw new Error('No run "r1" (pruned)');
        return [{ runId: 'r1', seq: 1, event: { type: 'run-start', at: 0 } }];
      },
    });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const response = await app(store).request('/api/runs/r1/events', auth);
      const text = await response.text();
      expect(text).toContain('id: 1\n');
      expect(reads).toBe(2);
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  });
});

describe('HEAD on a live event stream', () => {
  it('answers the headers without starting a stream that would hold a place forever', async () => {
    const dashboard = app(storeWith(new Map([['r1', run]])), { maxStreams: 1 });
    for (let i = 0; i < 3; i++) {
      const head = await dashboard.request('/api/runs/r1/events', { method: 'HEAD', ...auth });
      expect(head.status).toBe(200);
      expect(head.headers.get('Content-Type')).toContain('text/event-stream');
    }
    const response = await dashboard.request('/api/runs/r1/events', auth);
    expect(response.status).toBe(200);
    await response.body!.cancel();
  });
});

describe('a stream over large events', () => {
  it('writes them in pieces of about a megabyte, every event once and in order', async () => {
    const big = 'x'.repeat(100_000);
    const events = Array.from({ length: 40 }, (_, index) => ({
      runId: 'r1',
      seq: index + 1,
      event: { type: 'model-call', at: index, output: big },
    }));
    const store = storeWith(new Map([['r1', run]]), {
      events: async (_runId, after = 0) => events.filter((stored) => stored.seq > after),
    });
    const response = await app(store).request('/api/runs/r1/events', auth);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let largest = 0;
    while (!text.includes('id: 40\n')) {
      const { value } = await reader.read();
      largest = Math.max(largest, value!.byteLength);
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    expect(largest).toBeLessThan(1_200_000);
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]))).toEqual(
      events.map((stored) => stored.seq),
    );
  });
});
