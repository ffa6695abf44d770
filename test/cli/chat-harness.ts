/** Child-process chats for the `weft chat` tests: start one with stdin piped, wait for its output, count API calls. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { ROOT } from '../e2e/weft-cli.js';

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
