/**
 * `weft chat`, `weft show-session` and `weft sessions` against what a careless or hostile user types: escape
 * sequences made inert before they reach a terminal, session ids that are not ids.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatSessionEvent, formatTranscriptEntry } from '../../src/dialog/transcript.js';
import { CHAT_MODEL as MODEL, CHAT_PDL as PDL } from './chat-harness.js';
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
