/**
 * The live event stream (`GET /api/runs/:id/events`) in-process: SSE framing, where it resumes (Last-Event-ID
 * beats ?after=, events after N only), events appended while it is open, heartbeats; and the server never writes
 * the store: a view whose every other method throws, over a real SQLite file whose bytes do not change.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WeftEvent } from '../../src/run/events.js';
import { openExistingRunStore } from '../../src/store/open-store.js';
import type { RunStore, StoredEvent } from '../../src/store/run-store.js';
import { createDashboardApp } from '../../src/ui/dashboard-app.js';
import type { DashboardStore } from '../../src/ui/dashboard-store.js';
import { formatSseEvents, resumeAfter, SSE_HEARTBEAT } from '../../src/ui/sse-format.js';
import { cli, tempHome } from '../cli/cli-harness.js';

const TOKEN = 'stream-test-token';
const AUTH = { Authorization: `Bearer ${TOKEN}` };

interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly retry?: string;
  readonly comment?: string;
}

/** Parses SSE text into messages (blank-line separated blocks). */
function parseSse(text: string): SseMessage[] {
  return text
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => {
      const message: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) message['comment'] = line.slice(1).trim();
        else {
          const colon = line.indexOf(':');
          message[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
        }
      }
      return message;
    });
}

/** Reads a stream's body until `done(text)` says enough, then cancels it (as a closing browser tab would). */
async function readUntil(response: Response, done: (text: string) => boolean): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (!done(text)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel();
  }
  return text;
}

const weftMessages = (text: string) => parseSse(text).filter((message) => message.event === 'weft');

describe('SSE text', () => {
  it('one message per event: id = the sequence, event weft, one line of JSON', () => {
    const events: StoredEvent[] = [
      {
        runId: 'r',
        seq: 7,
        event: { type: 'log', message: 'two\nlines and </script>', at: 1 } as unknown as WeftEvent,
      },
      { runId: 'r', seq: 8, event: { type: 'log', message: '\u2028\r', at: 2 } as unknown as WeftEvent },
    ];
    const text = formatSseEvents(events);
    const messages = parseSse(text);
    expect(messages.map((message) => message.id)).toEqual(['7', '8']);
    expect(messages.every((message) => message.event === 'weft')).toBe(true);
    expect(messages.map((message) => JSON.parse(message.data!))).toEqual(events.map((stored) => stored.event));
    // A raw CR or LF inside data would split the field: JSON escapes both.
    expect(text.split('\n').filter((line) => line.startsWith('data: '))).toHaveLength(2);
    expect(text).not.toContain('\r');
    expect(SSE_HEARTBEAT.startsWith(':')).toBe(true);
  });

  it('resumes after Last-Event-ID, else ?after=, else from the start; junk counts as absent', () => {
    expect(resumeAfter(undefined, undefined)).toBe(0);
    expect(resumeAfter('12', '5')).toBe(12);
    expect(resumeAfter(undefined, '5')).toBe(5);
    expect(resumeAfter(' 9 ', undefined)).toBe(9);
    expect(resumeAfter('abc', '5')).toBe(5);
    expect(resumeAfter('-3', undefined)).toBe(0);
    expect(resumeAfter('1e9', undefined)).toBe(0);
    expect(resumeAfter('9'.repeat(400), '4')).toBe(4);
    expect(resumeAfter('', '')).toBe(0);
  });
});

describe('the event stream over a real SQLite store', () => {
  let home: string;
  let runId: string;
  let store: RunStore;
  let all: StoredEvent[];
  const writesTried: string[] = [];
  let view: DashboardStore;

  const files = () =>
    Object.fromEntries(
      readdirSync(home)
        .filter((name) => name.startsWith('weft.db'))
        .map((name) => [
          name,
          createHash('sha256')
            .update(readFileSync(join(home, name)))
            .digest('hex'),
        ]),
    );
  let before: Record<string, string>;

  beforeAll(async () => {
    home = tempHome();
    const result = await cli(['run', 'Plan a picnic', '--model', 'sim:seed=5,tasks=6', '--home', home, '--json']);
    expect(result.code).toBe(0);
    runId = (JSON.parse(result.stdout) as { runId: string }).runId;
    before = files();
    store = (await openExistingRunStore({ home }))!;
    all = await store.events(runId);
    // Only the read methods the dashboard is meant to use pass; anything else would be the server writing.
    const reads = new Set(['listRuns', 'getRun', 'events', 'planVersions']);
    view = new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        if (!reads.has(String(key)))
          return () => {
            writesTried.push(String(key));
            throw new Error(`the dashboard called ${String(key)}`);
          };
        return value.bind(target);
      },
    }) as DashboardStore;
    // The first in-process CLI run imports the CLI: seconds on a busy machine.
  }, 60_000);

  afterAll(async () => {
    await store?.close();
  });

  const app = (heartbeatMs = 60_000) => createDashboardApp({ store: view, token: TOKEN, pollMs: 5, heartbeatMs });

  it('streams every event in order with its sequence as id, after a retry hint', async () => {
    expect(all.length).toBeGreaterThan(10);
    const response = await app().request(`/api/runs/${runId}/events`, { headers: AUTH });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toContain('text/event-stream');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(response.headers.get('Content-Security-Policy')).toContain("default-src 'none'");
    const text = await readUntil(response, (sofar) => weftMessages(sofar).length >= all.length);
    expect(parseSse(text)[0]).toEqual({ retry: '1000' });
    const messages = weftMessages(text);
    expect(messages.map((message) => Number(message.id))).toEqual(all.map((stored) => stored.seq));
    expect(messages.map((message) => JSON.parse(message.data!))).toEqual(all.map((stored) => stored.event));
  });

  it('?after=N sends only the events after N; Last-Event-ID wins over ?after=', async () => {
    const cut = all[Math.floor(all.length / 2)]!.seq;
    const rest = all.filter((stored) => stored.seq > cut).map((stored) => String(stored.seq));
    const byQuery = await app().request(`/api/runs/${runId}/events?after=${cut}`, { headers: AUTH });
    expect(
      weftMessages(await readUntil(byQuery, (t) => weftMessages(t).length >= rest.length)).map((m) => m.id),
    ).toEqual(rest);
    const late = all[all.length - 3]!.seq;
    const lastThree = all.filter((stored) => stored.seq > late).map((stored) => String(stored.seq));
    const byHeader = await app().request(`/api/runs/${runId}/events?after=1`, {
      headers: { ...AUTH, 'Last-Event-ID': String(late) },
    });
    const text = await readUntil(byHeader, (t) => weftMessages(t).length >= lastThree.length);
    expect(weftMessages(text).map((m) => m.id)).toEqual(lastThree);
  });

  it('an idle stream sends heartbeats (comment lines) and no event twice', async () => {
    const last = all[all.length - 1]!.seq;
    const response = await app(1).request(`/api/runs/${runId}/events`, {
      headers: { ...AUTH, 'Last-Event-ID': String(last) },
    });
    const text = await readUntil(response, (t) => parseSse(t).filter((m) => m.comment === 'heartbeat').length >= 2);
    expect(weftMessages(text)).toEqual([]);
    expect(parseSse(text).filter((m) => m.comment === 'heartbeat').length).toBeGreaterThanOrEqual(2);
  });

  it('events stored while the stream is open follow, each once', async () => {
    const half = Math.floor(all.length / 2);
    const growing: StoredEvent[] = all.slice(0, half);
    const live: DashboardStore = {
      listRuns: () => view.listRuns(),
      getRun: (id) => view.getRun(id),
      planVersions: (id) => view.planVersions(id),
      events: async (_id, after = 0) => growing.filter((stored) => stored.seq > after),
    };
    const dashboard = createDashboardApp({ store: live, token: TOKEN, pollMs: 2, heartbeatMs: 60_000 });
    const response = await dashboard.request(`/api/runs/${runId}/events`, { headers: AUTH });
    const text = await readUntil(response, (sofar) => {
      const seen = weftMessages(sofar).length;
      // The run goes on: the rest arrives once the first half has been sent.
      if (seen >= half && growing.length === half) growing.push(...all.slice(half));
      return seen >= all.length;
    });
    const ids = weftMessages(text).map((message) => Number(message.id));
    expect(ids).toEqual(all.map((stored) => stored.seq));
  });

  it('a run that does not exist is 404, not an endless stream', async () => {
    const response = await app().request('/api/runs/no-such-run/events', { headers: AUTH });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });

  it('after a session of every route, the store was only read: no write method called, the SQLite files unchanged', async () => {
    const dashboard = app(1);
    const get = (path: string) => dashboard.request(path, { headers: AUTH });
    for (const path of [
      '/',
      '/api/runs',
      '/api/runs?status=completed',
      `/api/runs/${runId}`,
      `/api/runs/${runId}/plans`,
      `/api/runs/${runId}/layout`,
      `/api/runs/${runId}/layout?version=1`,
      `/api/runs/${runId}/tasks/t1`,
      `/api/runs/${runId}/tasks/nope`,
    ])
      expect([200, 404], path).toContain((await get(path)).status);
    await readUntil(await get(`/api/runs/${runId}/events`), (t) => weftMessages(t).length >= all.length);
    expect(writesTried).toEqual([]);
    await store.close();
    expect(files()).toEqual(before);
    store = (await openExistingRunStore({ home }))!;
  });
});
