/** Child-process chats for the `weft chat` tests: start one with stdin piped, wait for its output, count API calls. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { jsonDocument, ROOT } from '../e2e/weft-cli.js';
import { cli } from './cli-harness.js';

export const CHAT_PDL = 'test/fixtures/chat/refund-chat.pdl.yaml';
export const CHAT_MODEL = 'sim:seed=1,latency=fixed(0)';

export function reachedApis(log: string): string[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { name: string }).name);
}

export interface Chat {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startChat(args: readonly string[], env: Record<string, string>): Chat {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'chat', ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const chat: Chat = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    chat.stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    chat.stderr += chunk.toString();
  });
  return chat;
}

export async function until(check: () => boolean, what: string, chat: Chat): Promise<void> {
  for (let waited = 0; !check(); waited += 50) {
    if (waited > 30_000)
      throw new Error(`timed out waiting for ${what}\nstdout:\n${chat.stdout}\nstderr:\n${chat.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A chat whose refund call hangs is stopped by `signal` while the call runs; then `weft chat --session ID` takes
 * the session up again. Checks what holds for every signal — the resume exits 0, finishes the cut turn, and the
 * refund reached the API once, recorded as "not repeated" — and returns the first chat for the signal's own checks.
 */
export async function cutMidCallAndResume(
  signal: NodeJS.Signals,
  paths: { readonly home: string; readonly log: string },
): Promise<{ first: Chat; exit: { code: number | null; signal: NodeJS.Signals | null }; sessionId: string }> {
  const { home, log } = paths;
  const first = startChat([CHAT_PDL, '--model', CHAT_MODEL, '--home', home], {
    WEFT_TEST_API_LOG: log,
    WEFT_TEST_HANG: 'refund_order',
  });
  first.child.stdin?.write('email: ada@example.com, order_id: O-9\n');
  await until(() => reachedApis(log).includes('refund_order'), 'the refund call', first);
  const sessionId = /session (s-[\w-]+)/.exec(first.stderr)?.[1];
  expect(sessionId).toBeDefined();
  first.child.kill(signal);
  const exit = await first.exited;

  const resumed = startChat(['--session', sessionId as string, '--home', home, '--json'], { WEFT_TEST_API_LOG: log });
  resumed.child.stdin?.end('thanks\n');
  const done = await resumed.exited;
  expect(done.code, resumed.stderr).toBe(0);
  // find_customer, get_order and the one refund call that was cut: nothing was called twice.
  expect(reachedApis(log).filter((name) => name === 'refund_order')).toHaveLength(1);
  const document = JSON.parse(resumed.stdout) as { turns: { user: string; reply: string }[] };
  expect(document.turns[0]?.user).toBe('(resumed turn)');
  const shown = jsonDocument(await cli(['show-session', sessionId as string, '--home', home, '--json'])) as {
    transcript: { role: string; name?: string; ok?: boolean; error?: string }[];
  };
  const refund = shown.transcript.find((entry) => entry.role === 'tool' && entry.name === 'refund_order');
  expect(refund).toMatchObject({ ok: false, error: expect.stringContaining('not repeated') });
  return { first, exit, sessionId: sessionId as string };
}
