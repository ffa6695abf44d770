/**
 * `weft chat`, `weft sessions` and `weft show-session`: chats as a user runs them (child processes through tsx, stdin
 * piped), the read commands in-process. A chat fed from stdin, kill -9 in the middle of an API call, and the resume
 * that finishes the cut turn without calling that API again. The bot is the sim model (history-driven, seeded); the APIs are module tools that
 * log every call that reaches them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonDocument } from '../e2e/weft-cli.js';
import {
  CHAT_MODEL as MODEL,
  CHAT_PDL as PDL,
  cutMidCallAndResume,
  reachedApis,
  startChat,
  until,
} from './chat-harness.js';
import { cli as weft } from './cli-harness.js';
const scratch = mkdtempSync(join(tmpdir(), 'weft-chat-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
function fresh(): { home: string; log: string } {
  n++;
  return { home: join(scratch, `home-${n}`), log: join(scratch, `api-${n}.jsonl`) };
}

describe('weft chat', () => {
  it('chats from stdin, records the session, and lists and shows it', async () => {
    const { home, log } = fresh();
    const chat = await weft(
      ['chat', PDL, '--model', MODEL, '--home', home, '--json'],
      { WEFT_TEST_API_LOG: log },
      'I want a refund\nemail: ada@example.com, order_id: O-7\n',
    );
    expect(chat.code, chat.stderr).toBe(0);
    const document = JSON.parse(chat.stdout) as {
      sessionId: string;
      status: string;
      turns: { user: string; reply: string; toolCalls: number }[];
      totals: { toolCalls: number; violationsExecuted: number };
    };
    expect(document.status).toBe('open');
    expect(document.turns).toHaveLength(2);
    expect(document.turns[0]?.reply).toMatch(/email/);
    expect(document.turns[1]?.toolCalls).toBe(3);
    expect(reachedApis(log)).toEqual(['find_customer', 'get_order', 'refund_order']);
    expect(chat.stderr).toContain(`weft chat --session ${document.sessionId}`);
    expect(chat.stderr).toContain('simulated');

    const sessions = jsonDocument(await weft(['sessions', '--home', home, '--json'])) as {
      sessions: { sessionId: string; status: string; turns: number; procedure: string }[];
    };
    expect(sessions.sessions).toEqual([
      expect.objectContaining({ sessionId: document.sessionId, status: 'open', turns: 2, procedure: 'Refund chat' }),
    ]);
    const shown = await weft(['show-session', document.sessionId, '--home', home]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('user> email: ada@example.com, order_id: O-7');
    expect(shown.stdout).toContain('→ refund_order({"order_id":"O-7"}) = {"refund_id":"RF-O-7"}');
    const json = jsonDocument(await weft(['show-session', document.sessionId, '--home', home, '--json'])) as {
      transcript: { role: string }[];
      totals: { toolCalls: number };
    };
    expect(json.totals.toolCalls).toBe(3);
    expect(json.transcript.filter((entry) => entry.role === 'bot')).toHaveLength(2);
    const missing = await weft(['show-session', 's-20260101-000000-00000000', '--home', home]);
    expect(missing.code).toBe(2);
  });

  it('/end ends the session, and an ended session cannot go on', async () => {
    const { home, log } = fresh();
    const chat = await weft(
      ['chat', PDL, '--model', MODEL, '--home', home, '--json'],
      { WEFT_TEST_API_LOG: log },
      'hello\n/end\nnot read\n',
    );
    expect(chat.code).toBe(0);
    const { sessionId, status } = JSON.parse(chat.stdout) as { sessionId: string; status: string };
    expect(status).toBe('ended');
    const again = await weft(['chat', '--session', sessionId, '--home', home], {}, 'more\n');
    expect(again.stderr).toContain('has ended');
  });

  it('kill -9 in the middle of an API call: the resume does not call it again and finishes the turn', async () => {
    const { exit } = await cutMidCallAndResume('SIGKILL', fresh());
    expect(exit.signal).toBe('SIGKILL');
  });

  it('refuses a second chat on a session a live chat holds', async () => {
    const { home, log } = fresh();
    const first = startChat([PDL, '--model', MODEL, '--home', home], { WEFT_TEST_API_LOG: log });
    await until(() => /session (s-[\w-]+)/.test(first.stderr), 'the session id', first);
    const sessionId = /session (s-[\w-]+)/.exec(first.stderr)?.[1] as string;
    const second = await weft(['chat', '--session', sessionId, '--home', home]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('in use');
    first.child.stdin?.end();
    expect((await first.exited).code).toBe(0);
  });

  it('bad input: a broken PDL file exits 2 naming the line, no file and no session is a usage error', async () => {
    const broken = join(scratch, 'broken.pdl.yaml');
    writeFileSync(broken, 'Name: x\nDesc: y\nAPIs:\n  - name: a\n    precondition: [nope]\nProcedure: API.a()\n');
    const result = await weft(['chat', broken, '--model', MODEL, '--home', fresh().home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/broken\.pdl\.yaml:5:\d+/);
    const none = await weft(['chat', '--home', fresh().home]);
    expect(none.code).toBe(2);
  });
});
