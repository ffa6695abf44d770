/** MCP tools over Streamable HTTP, against the fixture server listening on 127.0.0.1 (a real HTTP server). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../src/tools/call-tool.js';
import type { McpServerConfig } from '../../src/tools/mcp-config.js';
import { openMcpTools } from '../../src/tools/mcp-tools.js';
import type { ToolSet } from '../../src/tools/tool.js';
import { FIXTURE_TOOLS } from '../fixtures/mcp/fixture-server.mjs';
import { newLog, readLog, startFailure, toolOf, waitFor } from '../fixtures/mcp/helpers.js';
import { startHttpMcpServer } from '../fixtures/mcp/http-server.mjs';

type HttpServer = Awaited<ReturnType<typeof startHttpMcpServer>>;

const TOKEN = 'sk-mcp-3f9d0a7b5c1e';

function httpConfig(url: string, headers: Record<string, string> = {}, extra: Partial<McpServerConfig> = {}) {
  return { name: 'web', transport: { type: 'http', url, headers }, ...extra } as McpServerConfig;
}

describe('MCP tools over Streamable HTTP', () => {
  const log = newLog();
  let server: HttpServer;
  let set: ToolSet;

  beforeAll(async () => {
    server = await startHttpMcpServer({ log, token: TOKEN });
    set = await openMcpTools(httpConfig(server.url, { Authorization: `Bearer ${TOKEN}` }));
  });

  afterAll(async () => {
    await set?.close();
    await server?.close();
  });

  it('lists every tool over every page, sending the configured headers', () => {
    expect(set.tools.map((tool) => tool.name)).toEqual(FIXTURE_TOOLS.map((tool) => tool.name));
    expect(readLog(log).filter((line) => line.startsWith('list '))).toEqual(['list 0', 'list 3', 'list 6', 'list 9']);
    expect(toolOf(set, 'add').source).toBe('mcp web (http)');
    expect(new Set(server.seen.authorizations)).toEqual(new Set([`Bearer ${TOKEN}`]));
  });

  it('calls tools through callTool', async () => {
    expect(await callTool(toolOf(set, 'echo'), { text: 'over http' })).toMatchObject({ ok: true, result: 'over http' });
    expect(await callTool(toolOf(set, 'add'), { a: 1.5, b: 1 })).toMatchObject({ ok: true, result: { sum: 2.5 } });
    const failed = await callTool(toolOf(set, 'fail'), {});
    expect(!failed.ok && failed.error.message).toBe('fail: the fixture failed on purpose: disk quota exceeded');
    const before = readLog(log).filter((line) => line === 'call count').length;
    await callTool(toolOf(set, 'count'), {});
    expect(readLog(log).filter((line) => line === 'call count').length).toBe(before + 1);
  });

  it('the timeout is a deadline and the server is told to cancel', async () => {
    const outcome = await callTool(toolOf(set, 'slow'), { ms: 30_000 }, { timeoutMs: 150 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    await waitFor(() => readLog(log).includes('slow cancelled'), 'the server to see the cancellation');
  });

  it('aborting the call throws ABORTED and cancels it on the server', async () => {
    const cancelled = (): number => readLog(log).filter((line) => line === 'slow cancelled').length;
    const calls = (): number => readLog(log).filter((line) => line === 'call slow').length;
    const [cancelledBefore, callsBefore] = [cancelled(), calls()];
    const controller = new AbortController();
    const pending = callTool(toolOf(set, 'slow'), { ms: 30_000 }, { signal: controller.signal });
    await waitFor(() => calls() > callsBefore, 'the slow call to start');
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    await waitFor(() => cancelled() > cancelledBefore, 'the server to see the cancellation');
  });

  it('close ends the session on the server', async () => {
    const other = await openMcpTools(httpConfig(server.url, { Authorization: `Bearer ${TOKEN}` }));
    const sessions = server.sessions.size;
    await other.close();
    await other.close();
    expect(server.sessions.size).toBe(sessions - 1);
    const outcome = await callTool(toolOf(other, 'echo'), { text: 'late' });
    expect(!outcome.ok && outcome.error.message).toBe('echo: MCP server web (http) is closed');
  });
});

describe('MCP over HTTP when things go wrong', () => {
  it('a server that is down: a retryable TOOL error naming it, credentials never shown', async () => {
    const server = await startHttpMcpServer();
    const port = server.port;
    await server.close();
    const error = await startFailure(
      openMcpTools(
        httpConfig(`http://alice:pa55-w0rd-x@127.0.0.1:${port}/mcp?token=q-secret-123`, { 'X-Api-Key': TOKEN }),
      ),
    );
    expect(error.code).toBe('TOOL');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(`MCP server web (http) at http://alice@127.0.0.1:${port}/mcp?token=***`);
    expect(error.message).toContain('cannot be reached (ECONNREFUSED)');
    for (const secret of ['pa55-w0rd-x', 'q-secret-123', TOKEN]) expect(error.message).not.toContain(secret);
  });

  it('credentials in the URL become a Basic Authorization header', async () => {
    const server = await startHttpMcpServer({ token: TOKEN });
    try {
      const error = await startFailure(openMcpTools(httpConfig(server.url.replace('//', '//alice:pa55-w0rd-x@'))));
      expect(server.seen.authorizations[0]).toBe(`Basic ${Buffer.from('alice:pa55-w0rd-x').toString('base64')}`);
      // The fixture wants a Bearer token, so this one is refused: HTTP 401, shown without the password.
      expect(error.message).toMatch(/^MCP server web \(http\) at http:\/\/alice@127\.0\.0\.1:\d+\/mcp failed during/);
      expect(error.message).toContain('HTTP 401');
      expect(error.message).not.toContain('pa55-w0rd-x');
    } finally {
      await server.close();
    }
  });

  it('an error whose text holds a header value shows it as *** and keeps no cause that holds it', async () => {
    const error = await startFailure(
      openMcpTools(httpConfig('http://127.0.0.1:9/mcp', { 'X-Api-Key': 'bad\nsecret-value-123' })),
    );
    expect(error.message).toContain('"***" is an invalid header value');
    let cause: unknown = error;
    while (cause instanceof Error) {
      expect(cause.message).not.toContain('secret-value-123');
      cause = cause.cause;
    }
  });

  it('a URL that is not one is BAD_INPUT at the declaration', async () => {
    const error = await startFailure(openMcpTools(httpConfig('not a url', {}, { declaredAt: 'tools.yaml:9:3' })));
    expect(error).toMatchObject({ code: 'BAD_INPUT', location: { file: 'tools.yaml', line: 9, field: 'mcp.web.url' } });
    const scheme = await startFailure(openMcpTools(httpConfig('file:///etc/passwd')));
    expect(scheme.message).toMatch(/url must be http:\/\/ or https:\/\//);
  });

  it('a server that dies mid-run: the call under way and later calls fail, naming it', async () => {
    const log = newLog();
    const server = await startHttpMcpServer({ log });
    const set = await openMcpTools(httpConfig(server.url));
    try {
      const crash = await callTool(toolOf(set, 'crash'), {}, { timeoutMs: 10_000 });
      expect(crash.ok).toBe(false);
      expect(!crash.ok && crash.error.code).toBe('TOOL');
      expect(!crash.ok && crash.error.message).toMatch(/^crash: MCP server web \(http\)/);
      const later = await callTool(toolOf(set, 'echo'), { text: 'anyone?' }, { timeoutMs: 10_000 });
      expect(!later.ok && later.error.message).toMatch(
        /^echo: MCP server web \(http\) at http:\/\/127\.0\.0\.1:\d+\/mcp:/,
      );
      expect(!later.ok && later.error.message).toContain('ECONNREFUSED');
    } finally {
      await set.close();
      await server.close();
    }
  });
});
