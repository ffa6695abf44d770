/**
 * `weft chat` stopped by Ctrl-C (SIGINT) or SIGTERM in the middle of an API call: it saves the session, exits 130
 * and says how to resume; the resume finishes the cut turn without calling that API again. (kill -9 is in
 * test/cli/chat-command.test.ts; these two need four more child processes, so they run with the long tests.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAT_MODEL as MODEL, CHAT_PDL as PDL, reachedApis, startChat, until } from '../cli/chat-harness.js';
import { cli as weft } from '../cli/cli-harness.js';
import { jsonDocument } from '../e2e/weft-cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'weft-chat-signals-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
function fresh(): { home: string; log: string } {
  n++;
  return { home: join(scratch, `home-${n}`), log: join(scratch, `api-${n}.jsonl`) };
}

describe('weft chat stopped by a signal', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} in the middle of an API call: the resume does not call it again and finishes the turn`, async () => {
      const { home, log } = fresh();
      const chat = startChat([PDL, '--model', MODEL, '--home', home], {
        WEFT_TEST_API_LOG: log,
        WEFT_TEST_HANG: 'refund_order',
      });
      chat.child.stdin?.write('email: ada@example.com, order_id: O-9\n');
      await until(() => reachedApis(log).includes('refund_order'), 'the refund call', chat);
      const sessionId = /session (s-[\w-]+)/.exec(chat.stderr)?.[1];
      expect(sessionId).toBeDefined();
      chat.child.kill(signal);
      const exit = await chat.exited;
      expect(exit.code).toBe(130);
      expect(chat.stderr).toContain(`weft chat --session ${sessionId}`);

      const resumed = startChat(['--session', sessionId as string, '--home', home, '--json'], {
        WEFT_TEST_API_LOG: log,
      });
      resumed.child.stdin?.end('thanks\n');
      const done = await resumed.exited;
      expect(done.code, resumed.stderr).toBe(0);
      // find_customer, get_order and the one refund call that was cut: nothing was called twice.
      expect(reachedApis(log).filter((name) => name === 'refund_order')).toHaveLength(1);
      const document = JSON.parse(resumed.stdout) as { turns: { user: string; reply: string }[] };
      expect(document.turns[0]?.user).toBe('(resumed turn)');
      const shown = jsonDocument(await weft(['show-session', sessionId as string, '--home', home, '--json'])) as {
        transcript: { role: string; name?: string; ok?: boolean; error?: string }[];
      };
      const refund = shown.transcript.find((entry) => entry.role === 'tool' && entry.name === 'refund_order');
      expect(refund).toMatchObject({ ok: false, error: expect.stringContaining('not repeated') });
    });
  }
});
