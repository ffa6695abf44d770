/**
 * HTTP tools against a real node:http server on 127.0.0.1: URL templates that arguments cannot escape, query and
 * body mapping, secrets from the environment (sent, never shown), HTTP errors as TOOL errors the agent sees,
 * bounded responses, redirects only to allowed hosts, and the call's deadline.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { formatError, WeftError } from '../../src/errors.js';
import { callTool } from '../../src/tools/call-tool.js';
import type { Tool, ToolSet } from '../../src/tools/tool.js';
import { loadToolsFile } from '../../src/tools/tools-file.js';
import { sendJson, startTestServer, type TestServer } from './http-test-server.js';

const scratch = mkdtempSync(join(tmpdir(), 'weft-http-tools-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(handler: Parameters<typeof startTestServer>[0], host?: string): Promise<TestServer> {
  const started = await startTestServer(handler, host);
  cleanups.push(() => started.close());
  return started;
}

let files = 0;
async function load(yaml: string, env: Record<string, string> = {}): Promise<ToolSet> {
  const file = join(scratch, `tools-${(files += 1)}.yaml`);
  writeFileSync(file, yaml);
  const set = await loadToolsFile(file, { env });
  cleanups.push(() => set.close());
  return set;
}

function toolOf(set: ToolSet, name: string): Tool {
  const tool = set.tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

const echo = (request: { method: string; target: string; body: string; headers: object }, response: never) =>
  sendJson(response, 200, { method: request.method, target: request.target, body: request.body });

describe('http tools', () => {
  it('fills the URL template percent-encoded: an argument cannot add a path segment, a query or change the host', async () => {
    const api = await server(echo as never);
    const set = await load(`
allowHosts: [127.0.0.1]
tools:
  - kind: http
    name: get_order
    description: One order.
    url: ${api.origin}/orders/{order_id}/summary
    input: { type: object, properties: { order_id: { type: string } }, required: [order_id] }
`);
    const outcome = await callTool(toolOf(set, 'get_order'), { order_id: 'a/b?c=1#x@evil.example:80' });
    expect(outcome.ok).toBe(true);
    expect(api.requests.map((request) => request.target)).toEqual([
      '/orders/a%2Fb%3Fc%3D1%23x%40evil.example%3A80/summary',
    ]);
    for (const dots of ['..', '.', '']) {
      const refused = await callTool(toolOf(set, 'get_order'), { order_id: dots });
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.error.message).toContain('argument "order_id" cannot be');
    }
    // `%2e%2e` is encoded to `%252e%252e`: not a dot segment either.
    await callTool(toolOf(set, 'get_order'), { order_id: '%2e%2e' });
    expect(api.requests.at(-1)?.target).toBe('/orders/%252e%252e/summary');
    expect(api.requests).toHaveLength(2);
  });

  it('maps arguments to the query and the JSON body; sends secret headers from the environment, never shows them', async () => {
    const api = await server((request, response) => sendJson(response, 201, { got: request.body }));
    const set = await load(
      `
allowHosts: [127.0.0.1]
tools:
  - kind: http
    name: create_return
    description: Opens a return.
    method: POST
    url: ${api.origin}/orders/{order_id}/returns
    input:
      type: object
      properties:
        order_id: { type: string }
        reason: { type: string }
        items: { type: array, items: { type: string } }
        dry_run: { type: boolean }
        card: { type: string }
      required: [order_id, reason]
    query: { dryRun: dry_run }
    headers: { Authorization: "Bearer \${env:ORDERS_TOKEN}", X-Client: weft }
    secretArgs: [card]
`,
      { ORDERS_TOKEN: 'tok-SECRET-123' },
    );
    const tool = toolOf(set, 'create_return');
    expect(tool.idempotent).toBe(false);
    expect(tool.secretArgs).toEqual(['card']);
    expect(JSON.stringify(tool)).not.toContain('tok-SECRET-123');
    expect(tool.source).toMatch(
      /^http POST http:\/\/127\.0\.0\.1:\d+\/orders\/\{order_id\}\/returns \(.*tools-\d+\.yaml:4\)$/,
    );
    const outcome = await callTool(tool, {
      order_id: 'O-1',
      reason: 'broken',
      items: ['a', 'b'],
      dry_run: true,
      card: '4111',
    });
    expect(outcome).toMatchObject({
      ok: true,
      result: { got: JSON.stringify({ reason: 'broken', items: ['a', 'b'], card: '4111' }) },
    });
    const [request] = api.requests;
    expect(request?.target).toBe('/orders/O-1/returns?dryRun=true');
    expect(request?.headers.authorization).toBe('Bearer tok-SECRET-123');
    expect(request?.headers['x-client']).toBe('weft');
    expect(request?.headers['content-type']).toBe('application/json');
  });

  it('sends credentials written in the URL as Basic auth and shows the URL without them', async () => {
    const api = await server((request, response) => sendJson(response, 200, { auth: request.headers.authorization }));
    const set = await load(
      `
allowHosts: [127.0.0.1]
tools:
  - kind: http
    name: ping
    description: Ping.
    url: http://svc:\${env:API_PASSWORD}@127.0.0.1:${api.port}/ping
  - kind: http
    name: literal
    description: A password written in the file, and a key in the query.
    url: http://bob:hunter2@127.0.0.1:${api.port}/ping?api_key=k-123&x=\${env:API_PASSWORD}
`,
      { API_PASSWORD: 'p@ss:word' },
    );
    const tool = toolOf(set, 'ping');
    expect(tool.source).toContain(`http://svc@127.0.0.1:${api.port}/ping`);
    const literal = toolOf(set, 'literal');
    expect(literal.source).toContain(`http://bob@127.0.0.1:${api.port}/ping?api_key=***&x=\${env:API_PASSWORD} (`);
    expect(await callTool(literal, {})).toMatchObject({
      ok: true,
      result: { auth: `Basic ${Buffer.from('bob:hunter2').toString('base64')}` },
    });
    expect(api.requests.at(-1)?.target).toBe('/ping?api_key=k-123&x=p@ss:word');
    const outcome = await callTool(tool, {});
    expect(outcome).toMatchObject({
      ok: true,
      result: { auth: `Basic ${Buffer.from('svc:p@ss:word').toString('base64')}` },
    });
  });

  it('returns JSON parsed, other text as a string, an empty body as null', async () => {
    const api = await server((request, response) => {
      if (request.target === '/json') sendJson(response, 200, { a: [1, 2] });
      else if (request.target === '/text') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('plain words');
      } else {
        response.writeHead(204);
        response.end();
      }
    });
    const set = await load(`
allowHosts: [127.0.0.1]
tools:
  - { kind: http, name: j, description: J, url: "${api.origin}/json" }
  - { kind: http, name: t, description: T, url: "${api.origin}/text" }
  - { kind: http, name: e, description: E, url: "${api.origin}/empty", method: DELETE }
`);
    expect(await callTool(toolOf(set, 'j'), {})).toMatchObject({ ok: true, result: { a: [1, 2] } });
    expect(await callTool(toolOf(set, 't'), {})).toMatchObject({ ok: true, result: 'plain words' });
    expect(await callTool(toolOf(set, 'e'), {})).toMatchObject({ ok: true, result: null });
    expect(api.requests.map((request) => request.method)).toEqual(['GET', 'GET', 'DELETE']);
  });

  it('turns non-2xx into a TOOL error with the status and a short body, secrets scrubbed; retries 5xx only when idempotent', async () => {
    const api = await server((request, response) => {
      if (request.target.startsWith('/missing')) {
        sendJson(response, 404, {
          error: `no such order; your token was ${request.headers.authorization}`,
          pad: 'x'.repeat(2000),
        });
      } else {
        response.writeHead(503, { 'content-type': 'text/plain' });
        response.end('busy');
      }
    });
    const set = await load(
      `
allowHosts: [127.0.0.1]
tools:
  - kind: http
    name: missing
    description: M
    url: ${api.origin}/missing
    headers: { Authorization: "\${env:TOKEN}" }
  - { kind: http, name: busy_get, description: B, url: "${api.origin}/busy" }
  - { kind: http, name: busy_post, description: B, method: POST, url: "${api.origin}/busy" }
`,
      { TOKEN: 'sekrit-token-value' },
    );
    const missing = await callTool(toolOf(set, 'missing'), {}, { retryDelayMs: 1 });
    expect(missing.ok).toBe(false);
    if (missing.ok) return;
    expect(missing.error.code).toBe('TOOL');
    expect(missing.error.retryable).toBe(false);
    expect(missing.error.message).toMatch(/^missing: HTTP 404: \{"error":"no such order; your token was \*\*\*"/);
    expect(missing.error.message).not.toContain('sekrit');
    expect(missing.error.message.length).toBeLessThan(400);
    expect(missing.attempts).toBe(1);

    const busyGet = await callTool(toolOf(set, 'busy_get'), {}, { retries: 2, retryDelayMs: 1 });
    expect(busyGet).toMatchObject({ ok: false, attempts: 3 });
    if (!busyGet.ok) expect(busyGet.error.message).toBe('busy_get: HTTP 503: busy');
    const busyPost = await callTool(toolOf(set, 'busy_post'), {}, { retries: 2, retryDelayMs: 1 });
    expect(busyPost).toMatchObject({ ok: false, attempts: 1 });
    expect(api.requests.filter((request) => request.target === '/busy')).toHaveLength(4);
  });

  it('bounds the response while reading it', async () => {
    const api = await server((request, response) => {
      // Chunked, no content-length: the cap must hold while reading.
      response.writeHead(request.target === '/huge-error' ? 500 : 200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = (): void => {
        while (sent < 200 && response.write(chunk)) sent += 1;
        if (sent < 200) response.once('drain', pump);
        else response.end();
      };
      pump();
    });
    const set = await load(`
allowHosts: [127.0.0.1]
tools:
  - { kind: http, name: huge, description: H, url: "${api.origin}/huge", maxResponseBytes: 100000 }
`);
    const outcome = await callTool(toolOf(set, 'huge'), {});
    expect(outcome.ok).toBe(false);
    if (!outcome.ok)
      expect(outcome.error.message).toBe('huge: the response is larger than 100000 bytes (maxResponseBytes)');
  });

  it('follows redirects to allowed hosts only', async () => {
    const outside = await server((_request, response) => sendJson(response, 200, { leaked: true }), 'localhost');
    const api = await server((request, response) => {
      if (request.target === '/hop') {
        response.writeHead(302, { location: '/final' });
        response.end();
      } else if (request.target === '/away') {
        response.writeHead(307, { location: `${outside.origin}/steal` });
        response.end();
      } else sendJson(response, 200, { at: request.target, method: request.method });
    });
    const set = await load(`
allowHosts: [127.0.0.1]
tools:
  - { kind: http, name: hop, description: H, method: POST, url: "${api.origin}/hop" }
  - { kind: http, name: away, description: A, url: "${api.origin}/away" }
`);
    expect(await callTool(toolOf(set, 'hop'), {})).toMatchObject({ ok: true, result: { at: '/final', method: 'GET' } });
    const away = await callTool(toolOf(set, 'away'), {});
    expect(away.ok).toBe(false);
    if (!away.ok)
      expect(away.error.message).toMatch(
        /^away: HTTP 307 redirects to localhost:\d+, which is not on allowHosts; not followed$/,
      );
    expect(outside.requests).toHaveLength(0);
  });

  it('drops every header carrying an ${env:…} secret when a redirect changes the origin, not just Authorization', async () => {
    const other = await server((_request, response) => sendJson(response, 200, { ok: true }), 'localhost');
    const api = await server((_request, response) => {
      response.writeHead(302, { location: `${other.origin}/landing` });
      response.end();
    });
    const set = await load(
      `
allowHosts: [127.0.0.1, localhost]
tools:
  - kind: http
    name: go
    description: G
    url: "${api.origin}/go"
    headers: { X-Api-Key: "\${env:KEY}", Authorization: "Bearer \${env:KEY}", X-Tenant: acme }
`,
      { KEY: 'k-123' },
    );
    expect(await callTool(toolOf(set, 'go'), {})).toMatchObject({ ok: true });
    expect(api.requests[0]!.headers['x-api-key']).toBe('k-123');
    const landed = other.requests[0]!.headers;
    expect(JSON.stringify(landed)).not.toContain('k-123');
    expect(landed['x-tenant']).toBe('acme');
  });

  it('abandons the request at the deadline: the server sees the connection close', async () => {
    const api = await server(() => {
      // Never answers.
    });
    const set = await load(`
allowHosts: [127.0.0.1]
tools:
  - { kind: http, name: slow, description: S, url: "${api.origin}/slow", idempotent: false }
`);
    const outcome = await callTool(toolOf(set, 'slow'), {}, { timeoutMs: 150 });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.code).toBe('TIMEOUT');
    await expect.poll(() => api.closedEarly.length).toBe(1);

    const controller = new AbortController();
    const call = callTool(toolOf(set, 'slow'), {}, { signal: controller.signal });
    await expect.poll(() => api.requests.length).toBe(2);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    await expect.poll(() => api.closedEarly.length).toBe(2);
  });

  it('names an unreachable host without its credentials', async () => {
    const api = await server(() => {});
    const port = api.port;
    await api.close();
    const set = await load(
      `
allowHosts: [127.0.0.1]
tools:
  - { kind: http, name: gone, description: G, url: "http://u:\${env:PW}@127.0.0.1:${port}/x" }
`,
      { PW: 'hunter22' },
    );
    const outcome = await callTool(toolOf(set, 'gone'), {}, { retries: 0 });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.message).toBe(`gone: cannot reach 127.0.0.1:${port} (ECONNREFUSED)`);
    expect(outcome.error.retryable).toBe(true);
    expect(formatError(outcome.error)).not.toContain('hunter22');
    expect(outcome.error).toBeInstanceOf(WeftError);
  });

  it("sends the call's scope (the run or chat session) as the Weft-Scope header; the file's own header wins", async () => {
    const api = await server(echo as never);
    const set = await load(`
allowHosts: [127.0.0.1]
tools:
  - kind: http
    name: ping
    description: Ping.
    url: ${api.origin}/ping
    input: { type: object }
  - kind: http
    name: pinned
    description: Ping with a scope of its own.
    url: ${api.origin}/pinned
    input: { type: object }
    headers: { Weft-Scope: "mine" }
`);
    expect((await callTool(toolOf(set, 'ping'), {}, { scope: 'run:r-1' })).ok).toBe(true);
    expect((await callTool(toolOf(set, 'ping'), {})).ok).toBe(true);
    expect((await callTool(toolOf(set, 'pinned'), {}, { scope: 'run:r-1' })).ok).toBe(true);
    expect(api.requests.map((request) => request.headers['weft-scope'])).toEqual(['run:r-1', undefined, 'mine']);
  });
});
