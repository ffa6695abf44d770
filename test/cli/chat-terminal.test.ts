/**
 * `weft chat` on a terminal: readline with a prompt, and Ctrl-C typed at the keyboard (a raw-mode terminal delivers
 * it to readline, not as a signal) saves the session and says how to resume. The terminal is a pseudo-terminal from
 * util-linux `script`; without it the test is skipped with the reason printed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../e2e/weft-cli.js';

const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.log('chat terminal test skipped: util-linux `script` (a pseudo-terminal) is not installed');
const home = mkdtempSync(join(tmpdir(), 'weft-chat-tty-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe.skipIf(!hasScript)('weft chat on a terminal', () => {
  it('prompts, answers, and Ctrl-C saves the session with a resume hint (exit 130)', async () => {
    const command = `node --import tsx src/cli/main.ts chat test/fixtures/chat/refund-chat.pdl.yaml --model 'sim:seed=1,latency=fixed(0)' --home '${home}'`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const waitFor = async (text: string) => {
      for (let waited = 0; !screen.includes(text); waited += 50) {
        if (waited > 30_000) throw new Error(`no "${text}" on the terminal:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await waitFor('you> ');
    child.stdin.write('I want a refund\r');
    await waitFor('bot> ');
    child.stdin.write('\u0003');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(screen).toMatch(/resume with: weft chat --session s-[\w-]+/);
    expect(code).toBe(130);
  });
});
