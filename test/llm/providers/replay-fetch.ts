/**
 * A fetch that replays recorded HTTP exchanges from test/fixtures/http/ and records what the SDK sent.
 * No network: an unexpected request fails the test instead of going out.
 *
 * A fixture file is `{ description, request: { method, path }, response: { status, headers, body },
 * delayMs? }`; `delayMs` holds the response back (abortably) so tests can abort mid-request.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'http');

export interface HttpFixture {
  readonly description?: string;
  readonly request: { readonly method: string; readonly path: string };
  readonly response: {
    readonly status: number;
    readonly headers?: Readonly<Record<string, string>>;
    readonly body: unknown;
  };
  readonly delayMs?: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  /** The parsed JSON body, or undefined for a bodiless request. */
  readonly body: unknown;
}

export interface ReplayFetch {
  readonly fetch: typeof globalThis.fetch;
  readonly requests: RecordedRequest[];
  /** Fixtures not yet served. */
  readonly remaining: () => number;
  /** Resolves when the n-th request (from 1) has arrived. */
  readonly requestArrived: (n?: number) => Promise<RecordedRequest>;
}

export function loadFixture(name: string): HttpFixture {
  return JSON.parse(readFileSync(join(FIXTURE_DIR, `${name}.json`), 'utf8')) as HttpFixture;
}

/** Serves the named fixtures in order, one per request. */
export function replayFetch(...names: string[]): ReplayFetch {
  const queue = names.map((name) => ({ name, fixture: loadFixture(name) }));
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ n: number; resolve: (request: RecordedRequest) => void }> = [];

  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const text = await request.text();
    const recorded: RecordedRequest = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
    };
    requests.push(recorded);
    for (const waiter of waiters.filter((entry) => entry.n === requests.length)) waiter.resolve(recorded);

    const next = queue.shift();
    if (!next)
      throw new Error(`replayFetch: unexpected request ${recorded.method} ${recorded.url.href} (no fixture left)`);
    const { name, fixture } = next;
    // The fixture's path is the API's; a base URL may put a prefix before it (a proxy, `/openai/v1/…`).
    if (fixture.request.method !== recorded.method || !recorded.url.pathname.endsWith(fixture.request.path)) {
      throw new Error(
        `replayFetch: fixture ${name} expects ${fixture.request.method} ${fixture.request.path}, ` +
          `got ${recorded.method} ${recorded.url.pathname}`,
      );
    }
    if (fixture.delayMs) await abortableDelay(fixture.delayMs, init?.signal ?? undefined);
    const headers = new Headers(fixture.response.headers ?? {});
    const body = fixture.response.body === null ? null : JSON.stringify(fixture.response.body);
    return new Response(body, { status: fixture.response.status, headers });
  };

  return {
    fetch: fetchImpl as typeof globalThis.fetch,
    requests,
    remaining: () => queue.length,
    requestArrived(n = 1) {
      const existing = requests[n - 1];
      if (existing) return Promise.resolve(existing);
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}

/** A fetch that fails the way undici does when the server is unreachable. */
export function unreachableFetch(): typeof globalThis.fetch {
  return (async () => {
    throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:11434') });
  }) as typeof globalThis.fetch;
}

/** Like real fetch: rejects with the signal's reason (an AbortError by default) when aborted. */
function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
