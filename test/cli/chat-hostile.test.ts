/**
 * `weft chat`, `weft show-session` and `weft sessions` against what a careless or hostile user types: escape
 * sequences made inert before they reach a terminal, session ids that are not ids.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatSessionEvent, formatTranscriptEntry } from '../../src/dialog/transcript.js';
import { CHAT_MODEL as MODEL, CHAT_PDL as PDL, reachedApis, startChat, until } from './chat-harness.js';
import { cli as weft } from './cli-harness.js';

const scratch = mkdtempSync(join(tmpdir(), 'weft-chat-hostile-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('escape sequences are shown, not acted on', () => {
  it('a message with ESC [2J and a bidi override: chat echoes it inert and show-session prints it inert', async () => {
    const home = join(scratch, 'ansi');
    const chat = await weft(['chat', PDL, '--model', MODEL, '--home', home], {}, 'hi \u001b[2J there \u202egnp.exe\n');
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toContain('you> hi \\u001b[2J there \\u202egnp.exe');
    expect(chat.stdout).not.toContain('\u001b');
    const sessionId = /session (s-[\w-]+)/.exec(chat.stderr)?.[1] ?? '';
    const shown = await weft(['show-session', sessionId, '--home', home, '--verbose']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('user> hi \\u001b[2J there \\u202egnp.exe');
    expect(shown.stdout).not.toMatch(/[\u001b\u202e]/);
    // --json keeps the text as it was (JSON escapes the controls itself).
    const json = await weft(['show-session', sessionId, '--home', home, '--json']);
    expect(JSON.parse(json.stdout).transcript[0].text).toBe('hi \u001b[2J there \u202egnp.exe');
  });

  it('model and server text (replies, tool names, errors, thoughts) is inert in every view', () => {
    const title = '\u001b]0;owned\u0007';
    const lines = [
      formatTranscriptEntry({ turn: 1, role: 'bot', text: `ok${title}\rfake` }, false),
      formatTranscriptEntry({ turn: 1, role: 'thought', text: title }, true),
      formatTranscriptEntry(
        {
          turn: 1,
          role: 'tool',
          callId: 'c',
          name: `x${title}`,
          args: {},
          preconditionsMet: true,
          ok: false,
          error: title,
        },
        true,
      ),
      formatSessionEvent({
        type: 'tool-result',
        turn: 1,
        callId: 'c',
        name: 'x',
        ok: false,
        error: title,
        ms: 0,
        at: 0,
      }),
      formatSessionEvent({
        type: 'decision',
        turn: 1,
        attempt: 1,
        thought: `\u009b2J${title}`,
        action: { kind: 'reply', text: '' },
        at: 0,
      }),
    ];
    for (const line of lines) {
      expect(line).toBeDefined();
      expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
    expect(lines[0]).toBe('bot> ok\\u001b]0;owned\\u0007\\u000dfake');
  });
});

describe('session ids that are not ids', () => {
  it('refuses ../../x, 10 KB and an escape sequence as session ids, exit 2, with the value clipped and inert', async () => {
    const home = join(scratch, 'ids');
    for (const bad of ['../../x', 'a'.repeat(10_000), 's-1\u001b[2J']) {
      for (const args of [
        ['show-session', bad, '--home', home],
        ['chat', '--session', bad, '--home', home, '--model', MODEL],
      ]) {
        const run = await weft(args, {}, 'hi\n');
        expect(run.code).toBe(2);
        expect(run.stderr).toContain('is not a session id');
        expect(run.stderr.length).toBeLessThan(400);
        expect(run.stderr).not.toContain('\u001b');
      }
    }
  });
});

describe('flags out of range', () => {
  it('--max-actions 1000 is refused naming the flag, exit 2', async () => {
    const run = await weft(
      ['chat', PDL, '--model', MODEL, '--home', join(scratch, 'max'), '--max-actions', '1000'],
      {},
      '',
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--max-actions expects an integer from 1 to 100, got 1000');
  });
});

describe('runaway input on stdin', () => {
  it('a 2 MB line of NULs is refused and echoed cut, and the session goes on', async () => {
    const home = join(scratch, 'nul');
    const chat = await weft(
      ['chat', PDL, '--model', MODEL, '--home', home],
      {},
      `${'\u0000'.repeat(2_000_000)}\nhello\n`,
    );
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toContain('cannot take that message: the message is 2,000,000 bytes');
    expect(chat.stdout).toContain('… (2,000,000 characters)');
    expect(chat.stdout.length).toBeLessThan(40_000);
    expect(chat.stdout).toContain('you> hello');
  });
});

describe('kill -9 while the model is thinking', () => {
  it('the resume finishes the cut turn once, with the message recorded once', async () => {
    const home = join(scratch, 'kill-model');
    const log = join(scratch, 'kill-model.jsonl');
    const chat = startChat([PDL, '--model', 'sim:seed=1,latency=fixed(600000)', '--home', home], {
      WEFT_TEST_API_LOG: log,
    });
    await until(() => /session (s-[\w-]+)/.test(chat.stderr), 'the session id', chat);
    const sessionId = /session (s-[\w-]+)/.exec(chat.stderr)?.[1] as string;
    chat.child.stdin?.write('email: ada@example.com, order_id: O-3\n');
    await until(() => chat.stdout.includes('you> email'), 'the message taken', chat);
    // The user message is recorded before the model is asked; give the store write a moment by polling it.
    for (let tries = 0; tries < 40; tries++) {
      const shown = await weft(['show-session', sessionId, '--home', home, '--json']);
      if (shown.stdout.includes('"role": "user"')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    chat.child.kill('SIGKILL');
    expect((await chat.exited).signal).toBe('SIGKILL');
    expect(reachedApis(log)).toEqual([]);

    const resumed = await weft(
      ['chat', '--session', sessionId, '--home', home, '--model', MODEL, '--json'],
      { WEFT_TEST_API_LOG: log },
      '',
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('finishing the turn that was cut short');
    expect(reachedApis(log)).toEqual(['find_customer', 'get_order', 'refund_order']);
    const shown = JSON.parse((await weft(['show-session', sessionId, '--home', home, '--json'])).stdout) as {
      transcript: { role: string; turn: number }[];
    };
    const turns = shown.transcript.filter((entry) => entry.role === 'user' || entry.role === 'bot');
    expect(turns.map((entry) => [entry.role, entry.turn])).toEqual([
      ['user', 1],
      ['bot', 1],
    ]);
  });
});
