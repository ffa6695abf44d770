/**
 * No MCP server outlives the program that started it, however that program ends (a real parent process running
 * the sources through tsx, a real server as its child), and an idle server does not keep the program running.
 * In npm run test:long: each case starts a parent and a server, about 14 s in all.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpMcpServer } from '../fixtures/mcp/http-server.mjs';
import { FIXTURE_DIR, isAlive, newLog, readLog, serverPid, waitFor } from '../fixtures/mcp/helpers.js';

/** A server that ignores its stdin's end and SIGTERM: only Weft's kill stops it, so these tests can fail. */
const STUBBORN = '--ignore-sigterm';

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** Parents still running after a test (one that failed): killed, so that a failing test leaves nothing behind. */
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function startParent(
  mode: string,
  log: string,
  flags: string[] = [],
): { child: ChildProcess; ready: Promise<void>; ended: Promise<Ended> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(FIXTURE_DIR, 'parent.ts'), mode, log, ...flags], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      if (text.includes('ready')) resolve();
    });
    child.once('exit', () => reject(new Error(`the parent ended before it was ready: ${stderr}`)));
  });
  const ended = new Promise<Ended>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, ready, ended };
}

async function expectGone(pid: number): Promise<void> {
  await waitFor(() => !isAlive(pid), `process ${pid} to end`);
  expect(isAlive(pid)).toBe(false);
}

describe('MCP servers when their program ends', () => {
  it('a program that returns without closing ends anyway, and its server with it (and what the server started)', async () => {
    const log = newLog();
    const parent = startParent('return', log, [STUBBORN, '--grandchild']);
    await parent.ready;
    const ended = await parent.ended;
    expect(ended).toMatchObject({ code: 0, signal: null });
    const grandchild = Number(
      readLog(log)
        .find((line) => line.startsWith('grandchild '))!
        .split(' ')[1],
    );
    await expectGone(serverPid(log));
    await expectGone(grandchild);
  }, 30_000);

  it('an HTTP session nobody closed does not keep the program running either', async () => {
    const server = await startHttpMcpServer();
    try {
      const parent = startParent('return-http', server.url);
      await parent.ready;
      expect(await parent.ended).toMatchObject({ code: 0, signal: null });
    } finally {
      await server.close();
    }
  }, 30_000);

  it('an uncaught error', async () => {
    const log = newLog();
    const parent = startParent('throw', log, [STUBBORN]);
    await parent.ready;
    const ended = await parent.ended;
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain('an uncaught error in the parent');
    await expectGone(serverPid(log));
  }, 30_000);

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} that the program does not handle: it still dies of it, and the server is stopped`, async () => {
      const log = newLog();
      const parent = startParent('wait', log, [STUBBORN]);
      await parent.ready;
      const pid = serverPid(log);
      expect(isAlive(pid)).toBe(true);
      parent.child.kill(signal);
      expect(await parent.ended).toMatchObject({ code: null, signal });
      await expectGone(pid);
    }, 30_000);
  }

  it('SIGINT that the program handles by exiting (as Weft’s CLI does on a second Ctrl-C)', async () => {
    const log = newLog();
    const parent = startParent('handled', log, [STUBBORN]);
    await parent.ready;
    parent.child.kill('SIGINT');
    expect(await parent.ended).toMatchObject({ code: 130, signal: null });
    await expectGone(serverPid(log));
  }, 30_000);

  it('kill -9 of the program: the server sees its stdin end and exits (what the MCP spec asks of servers)', async () => {
    const log = newLog();
    const parent = startParent('wait', log);
    await parent.ready;
    parent.child.kill('SIGKILL');
    await parent.ended;
    await expectGone(serverPid(log));
  }, 30_000);
});
