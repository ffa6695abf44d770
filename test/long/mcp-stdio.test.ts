/** MCP tools over stdio, against the fixture server run as a real child process. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../src/tools/call-tool.js';
import { openMcpTools } from '../../src/tools/mcp-tools.js';
import type { ToolSet } from '../../src/tools/tool.js';
import { FIXTURE_TOOLS } from '../fixtures/mcp/fixture-server.mjs';
import {
  FIXTURE_DIR,
  isAlive,
  newLog,
  readLog,
  serverPid,
  startFailure,
  stdioConfig,
  toolOf,
  waitFor,
} from '../fixtures/mcp/helpers.js';

describe('MCP tools over stdio', () => {
  const log = newLog();
  let set: ToolSet;

  beforeAll(async () => {
    process.env.WEFT_MCP_PARENT_ONLY = 'not for servers';
    set = await openMcpTools(
      stdioConfig({
        log,
        env: { FIXTURE_GREETING: 'hello from the config' },
        idempotent: ['echo'],
        timeoutMs: 4000,
        maxResultBytes: 50_000,
      }),
    );
  });

  afterAll(async () => {
    delete process.env.WEFT_MCP_PARENT_ONLY;
    await set?.close();
  });

  it('lists every tool, following the cursor over every page', () => {
    expect(set.tools.map((tool) => tool.name)).toEqual(FIXTURE_TOOLS.map((tool) => tool.name));
    // 11 tools, 3 per page: four tools/list requests.
    expect(readLog(log).filter((line) => line.startsWith('list '))).toEqual(['list 0', 'list 3', 'list 6', 'list 9']);
    const add = toolOf(set, 'add');
    expect(add).toMatchObject({
      description: 'Adds two numbers (structured output).',
      source: 'mcp files (stdio)',
      inputSchema: { type: 'object', required: ['a', 'b'] },
      outputSchema: { properties: { sum: { type: 'number' } } },
      timeoutMs: 4000,
      maxResultBytes: 50_000,
    });
  });

  it('marks idempotent what the config lists and what the annotations say (read-only or idempotentHint)', () => {
    const idempotent = Object.fromEntries(set.tools.map((tool) => [tool.name, tool.idempotent]));
    expect(idempotent).toMatchObject({ echo: true, add: true, getenv: true, count: false, slow: false, fail: false });
  });

  it('calls tools through callTool: text, structured content, JSON text kept as text, binary parts summarised', async () => {
    expect(await callTool(toolOf(set, 'echo'), { text: 'hi' })).toMatchObject({ ok: true, result: 'hi' });
    expect(await callTool(toolOf(set, 'add'), { a: 2, b: 40 })).toMatchObject({ ok: true, result: { sum: 42 } });
    expect(await callTool(toolOf(set, 'json_text'), {})).toMatchObject({ ok: true, result: '{"a":1}' });
    expect(await callTool(toolOf(set, 'mixed'), {})).toMatchObject({
      ok: true,
      result: 'a picture:\n\n[image image/png, 300 bytes]',
    });
  });

  it('a call happens once on the server', async () => {
    const before = readLog(log).filter((line) => line === 'call count').length;
    expect(await callTool(toolOf(set, 'count'), {})).toMatchObject({ ok: true, attempts: 1 });
    expect(readLog(log).filter((line) => line === 'call count').length).toBe(before + 1);
  });

  it('checks arguments before the server sees them', async () => {
    const calls = (): number => readLog(log).filter((line) => line === 'call echo' || line === 'call add').length;
    const before = calls();
    const outcome = await callTool(toolOf(set, 'echo'), { text: 42 });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error.message).toMatch(/echo: argument "text" must be string/);
    expect(outcome.attempts).toBe(0);
    const extra = await callTool(toolOf(set, 'add'), { a: 1, b: 2, c: 3 });
    expect(extra.ok).toBe(false);
    expect(calls()).toBe(before);
  });

  it('passes env on top of the safe default environment, not the rest of Weft’s', async () => {
    const mine = await callTool(toolOf(set, 'getenv'), { name: 'FIXTURE_GREETING' });
    expect(mine).toMatchObject({ ok: true, result: { value: 'hello from the config' } });
    const path = await callTool(toolOf(set, 'getenv'), { name: 'PATH' });
    expect(path).toMatchObject({ ok: true, result: { value: process.env.PATH } });
    const leaked = await callTool(toolOf(set, 'getenv'), { name: 'WEFT_MCP_PARENT_ONLY' });
    expect(leaked).toMatchObject({ ok: true, result: { value: null } });
  });

  it('an isError result is a TOOL error carrying the server’s text, not retried', async () => {
    const outcome = await callTool(toolOf(set, 'fail'), {}, { retries: 3 });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('TOOL');
    expect(outcome.error.message).toBe('fail: the fixture failed on purpose: disk quota exceeded');
    expect(outcome.attempts).toBe(1);
  });

  it('a JSON-RPC error from the server is a TOOL error naming the server', async () => {
    const outcome = await callTool(toolOf(set, 'rpc_error'), {});
    expect(!outcome.ok && outcome.error.message).toBe(
      'rpc_error: MCP server files (stdio): the server answered error -32602: rpc_error: the server refused this request',
    );
  });

  it('the timeout is a deadline: the call ends and the server is told to cancel', async () => {
    const outcome = await callTool(toolOf(set, 'slow'), { ms: 30_000 }, { timeoutMs: 150 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    await waitFor(() => readLog(log).includes('slow cancelled'), 'the server to see the cancellation');
  });

  it('the timeout holds even when the server ignores the cancellation', async () => {
    // The server would answer after 120 s; this test's 10 s limit fails it if Weft waited for the server.
    const outcome = await callTool(toolOf(set, 'slow'), { ms: 120_000, stubborn: true }, { timeoutMs: 150 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', message: 'slow: no result after 150 ms' } });
    await waitFor(() => readLog(log).includes('slow ignored the cancellation'), 'the server to get the cancellation');
    expect(readLog(log)).not.toContain('slow done');
  }, 10_000);

  it('aborting the call throws ABORTED and cancels it on the server', async () => {
    const cancelledBefore = readLog(log).filter((line) => line === 'slow cancelled').length;
    const slowCalls = (): number => readLog(log).filter((line) => line === 'call slow').length;
    const callsBefore = slowCalls();
    const controller = new AbortController();
    const pending = callTool(toolOf(set, 'slow'), { ms: 30_000 }, { signal: controller.signal });
    await waitFor(() => slowCalls() > callsBefore, 'the slow call to start');
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    await waitFor(
      () => readLog(log).filter((line) => line === 'slow cancelled').length > cancelledBefore,
      'the server to see the cancellation',
    );
  });

  it('many calls at once each get their own answer', async () => {
    const texts = Array.from({ length: 60 }, (_, index) => `message ${index}`);
    const outcomes = await Promise.all(texts.map((text) => callTool(toolOf(set, 'echo'), { text })));
    expect(outcomes.map((outcome) => (outcome.ok ? outcome.result : outcome.error.message))).toEqual(texts);
  });

  it("a large result is capped by callTool: at the server's maxResultBytes, or the caller's", async () => {
    const capped = await callTool(toolOf(set, 'big'), { size: 100_000 });
    expect(capped).toMatchObject({ ok: true, truncated: true });
    expect(capped.ok && String(capped.result)).toMatch(/\[truncated: 50000 of 100002 bytes\]$/);
    const outcome = await callTool(toolOf(set, 'big'), { size: 100_000 }, { maxResultBytes: 1000 });
    expect(outcome).toMatchObject({ ok: true, truncated: true });
  });
});

describe('an MCP server that dies', () => {
  it('fails the call under way and every later call at once, naming the server, its exit code and stderr', async () => {
    const log = newLog();
    const set = await openMcpTools(stdioConfig({ log }));
    try {
      const slow = callTool(toolOf(set, 'slow'), { ms: 30_000 });
      await waitFor(() => readLog(log).includes('call slow'), 'the slow call to start');
      const crash = await callTool(toolOf(set, 'crash'), {});
      expect(crash.ok).toBe(false);
      const message = !crash.ok ? crash.error.message : '';
      expect(message).toMatch(/^crash: MCP server files \(stdio\) exited with code 3 during the call/);
      expect(message).toContain('fixture: crashing on purpose');
      expect(await slow).toMatchObject({ ok: false, error: { code: 'TOOL' } });
      const later = await callTool(toolOf(set, 'echo'), { text: 'anyone?' });
      expect(!later.ok && later.error.message).toMatch(/echo: MCP server files \(stdio\) is not running: it exited/);
      expect(readLog(log)).not.toContain('call echo');
    } finally {
      await set.close();
    }
  });
});

describe('MCP servers that fail to start', () => {
  it('a command that does not exist is BAD_INPUT at the server’s declaration', async () => {
    const error = await startFailure(
      openMcpTools({
        name: 'ghost',
        transport: { type: 'stdio', command: 'weft-no-such-mcp-server', args: [], env: {} },
        declaredAt: 'tools.yaml:7:5',
      }),
    );
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toBe(
      'MCP server ghost (stdio): command "weft-no-such-mcp-server" was not found (not a file, nor on PATH)',
    );
    expect(error.location).toEqual({ file: 'tools.yaml', line: 7, column: 5, field: 'mcp.ghost.command' });
  });

  it('runs the server in the configured working directory, and names one that does not exist', async () => {
    const base = stdioConfig();
    const inDir = (cwd: string) =>
      openMcpTools({ ...base, include: ['getenv'], transport: { ...base.transport, cwd } as typeof base.transport });
    const set = await inDir(FIXTURE_DIR);
    try {
      expect(await callTool(set.tools[0]!, { name: 'HOME' })).toMatchObject({ ok: true, result: { cwd: FIXTURE_DIR } });
    } finally {
      await set.close();
    }
    const error = await startFailure(inDir(join(FIXTURE_DIR, 'no-such-dir')));
    expect(error).toMatchObject({ code: 'BAD_INPUT' });
    expect(error.message).toMatch(/working directory ".*no-such-dir" does not exist/);
  });

  it('a process that exits before the handshake: its exit code and last stderr lines, secrets removed', async () => {
    const log = newLog();
    const error = await startFailure(
      openMcpTools(stdioConfig({ log, flags: ['--exit-before=7'], env: { FIXTURE_TOKEN: 'tok-7f3a9c2e1b' } })),
    );
    expect(error.code).toBe('TOOL');
    expect(error.message).toMatch(/^MCP server files \(stdio\) exited with code 7 before it finished starting/);
    expect(error.message).toContain('fixture: missing setting FIXTURE_REGION, giving up');
    expect(error.message).toContain('fixture: token *** rejected');
    expect(error.message).not.toContain('tok-7f3a9c2e1b');
  });

  it('a process that exits during the handshake', async () => {
    const error = await startFailure(openMcpTools(stdioConfig({ flags: ['--exit-on-initialize=5'] })));
    expect(error.message).toMatch(/exited with code 5 before it finished starting \(during initialize\)/);
    expect(error.message).toContain('fixture: cannot handle this client');
  });

  it('a server that never answers initialize times out and is stopped', async () => {
    const log = newLog();
    const error = await startFailure(
      openMcpTools(stdioConfig({ log, flags: ['--hang'] }), { startTimeoutMs: 3000, closeGraceMs: 100 }),
    );
    expect(error.code).toBe('TOOL');
    expect(error.message).toMatch(
      /^MCP server files \(stdio\) did not start within 3000 ms \(no answer to initialize\)/,
    );
    expect(error.message).toContain('fixture: warming up forever');
    await waitFor(() => !isAlive(serverPid(log)), 'the stalled server to be stopped');
  });

  it('a server that never answers tools/list times out too', async () => {
    const error = await startFailure(
      openMcpTools(stdioConfig({ flags: ['--hang-on-list'] }), { startTimeoutMs: 3000, closeGraceMs: 100 }),
    );
    expect(error.message).toMatch(/did not start within 3000 ms \(no answer to tools\/list\)/);
  });

  it('an abort that comes while the connection is being made is not missed', async () => {
    const controller = new AbortController();
    const pending = openMcpTools(stdioConfig({ flags: ['--hang'] }), {
      signal: controller.signal,
      startTimeoutMs: 60_000,
      closeGraceMs: 100,
    });
    // openMcpTools has checked the signal and is awaiting the SDK's modules: this abort precedes its listener.
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('aborting the start throws ABORTED', async () => {
    const controller = new AbortController();
    const pending = openMcpTools(stdioConfig({ flags: ['--hang'] }), { signal: controller.signal, closeGraceMs: 100 });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('a tool named in include that the server lacks is BAD_INPUT listing what it has', async () => {
    const error = await startFailure(
      openMcpTools(stdioConfig({ include: ['echo', 'delete_everything'], declaredAt: 'tools.yaml:3:3' })),
    );
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toMatch(
      /^MCP server files \(stdio\) has no tool "delete_everything" \(its tools: echo, add,/,
    );
    expect(error.location).toMatchObject({ file: 'tools.yaml', line: 3, field: 'mcp.files.include' });
  });

  it('a tool whose input schema is not valid JSON Schema is BAD_INPUT at start-up, naming server and tool', async () => {
    const error = await startFailure(openMcpTools(stdioConfig({ flags: ['--bad-schema'] })));
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toMatch(/^MCP server files \(stdio\): Tool "broken" has an invalid input schema/);
    // Left out by include, it is not compiled.
    const set = await openMcpTools(stdioConfig({ flags: ['--bad-schema'], include: ['echo'] }));
    await set.close();
  });

  it('a tool name models do not accept is refused unless include leaves it out', async () => {
    const error = await startFailure(openMcpTools(stdioConfig({ flags: ['--bad-name'] })));
    expect(error).toMatchObject({ code: 'BAD_INPUT' });
    expect(error.message).toBe(
      'MCP server files (stdio): tool name "files.read" is not one models accept (1-64 letters, digits, _ or -); list the others in include',
    );
    const set = await openMcpTools(stdioConfig({ flags: ['--bad-name'], include: ['echo', 'add'] }));
    expect(set.tools.map((tool) => tool.name)).toEqual(['echo', 'add']);
    await set.close();
  });

  it('lines on stdout that are not JSON-RPC do not stop a server that then speaks properly', async () => {
    const set = await openMcpTools(stdioConfig({ flags: ['--stdout-noise'], include: ['echo'] }));
    try {
      expect(set.tools.map((tool) => tool.name)).toEqual(['echo']);
      expect(await callTool(set.tools[0]!, { text: 'still here' })).toMatchObject({ ok: true, result: 'still here' });
    } finally {
      await set.close();
    }
  });
});

describe('closing an MCP server', () => {
  it('ends the process; close is idempotent and later calls fail naming the server', async () => {
    const log = newLog();
    const set = await openMcpTools(stdioConfig({ log }));
    const pid = serverPid(log);
    expect(isAlive(pid)).toBe(true);
    await Promise.all([set.close(), set.close()]);
    await set.close();
    expect(isAlive(pid)).toBe(false);
    const outcome = await callTool(toolOf(set, 'echo'), { text: 'hello?' });
    expect(!outcome.ok && outcome.error.message).toBe('echo: MCP server files (stdio) is closed');
  });

  it('a server that ignores stdin’s end and SIGTERM is killed after the grace, with what it started', async () => {
    const log = newLog();
    const set = await openMcpTools(stdioConfig({ log, flags: ['--ignore-sigterm', '--grandchild'] }), {
      closeGraceMs: 150,
    });
    const pid = serverPid(log);
    const grandchild = Number(
      readLog(log)
        .find((line) => line.startsWith('grandchild '))!
        .split(' ')[1],
    );
    expect(isAlive(grandchild)).toBe(true);
    await set.close();
    expect(readLog(log)).toContain('sigterm ignored');
    expect(isAlive(pid)).toBe(false);
    await waitFor(() => !isAlive(grandchild), 'the grandchild to be killed');
  });

  it('a call under way when the set is closed fails naming the server', async () => {
    const log = newLog();
    const set = await openMcpTools(stdioConfig({ log }), { closeGraceMs: 100 });
    const slow = callTool(toolOf(set, 'slow'), { ms: 30_000 });
    await waitFor(() => readLog(log).includes('call slow'), 'the slow call to start');
    await set.close();
    const outcome = await slow;
    expect(!outcome.ok && outcome.error.message).toMatch(/slow: MCP server files \(stdio\) was closed during the call/);
  });
});
