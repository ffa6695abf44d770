/**
 * `weft chat` against a local server streaming OpenAI chat-completion chunks: the reply is printed as it arrives,
 * and Ctrl-C mid-reply keeps what came, says so, and stores it marked cut for `--session` to show.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonDocument } from '../e2e/weft-cli.js';
import { openAiChunk as chunk, type SseHandler, sseServers } from '../llm/providers/sse-server.js';
import { CHAT_PDL, startChat, until } from './chat-harness.js';
import { cli } from './cli-harness.js';

const home = mkdtempSync(join(tmpdir(), 'weft-chat-stream-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const serveEvents = sseServers();

/** A server answering every chat completion with `handler`; the spec of a model on it. */
async function serve(handler: SseHandler): Promise<string> {
  return `openai-compatible:${await serveEvents(handler)}/v1#gpt-test`;
}

describe('weft chat streaming a reply', () => {
  it('prints the pieces before the reply ends, then the whole reply once', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const model = await serve((response) => {
      response.write(chunk('Hello! What is '));
      response.write(chunk('your email'));
      // The last piece waits until the test has seen the first ones on the chat's stdout.
      void held.then(() => response.end(`${chunk('?')}data: [DONE]\n\n`));
    });
    const chat = startChat([CHAT_PDL, '--model', model, '--home', home], {});
    chat.child.stdin?.write('I want a refund\n');
    await until(() => chat.stdout.includes('bot> Hello! What is your email'), 'the first pieces', chat);
    expect(chat.stdout).not.toContain('your email?');
    release();
    await until(() => chat.stdout.includes('your email?\n'), 'the end of the reply', chat);
    chat.child.stdin?.end();
    const exit = await chat.exited;
    expect(exit.code, chat.stderr).toBe(0);
    // Printed once: the streamed line is the reply, not followed by a second copy.
    expect(chat.stdout.match(/What is your email/g)).toHaveLength(1);
    expect(chat.stdout).toContain('bot> Hello! What is your email?\n');
  });

  it('Ctrl-C mid-reply keeps what arrived, says so, and the session shows it marked cut', async () => {
    const model = await serve((response) => {
      // Two pieces, then nothing: only the interrupt ends this reply.
      response.write(chunk('Your refund is '));
      response.write(chunk('being processed'));
    });
    const chat = startChat([CHAT_PDL, '--model', model, '--home', home], {});
    chat.child.stdin?.write('refund O-9\n');
    await until(() => chat.stdout.includes('bot> Your refund is being processed'), 'the partial reply', chat);
    chat.child.kill('SIGINT');
    const exit = await chat.exited;
    expect(exit.code, chat.stderr).toBe(130);
    const kept = 'Your refund is being processed';
    expect(chat.stdout).toContain(`bot> ${kept} [reply cut after ${kept.length} characters]\n`);
    expect(chat.stderr).toContain('what arrived is kept');
    const sessionId = /session (s-[\w-]+)/.exec(chat.stderr)?.[1];
    expect(sessionId).toBeDefined();

    const shown = jsonDocument(await cli(['show-session', sessionId as string, '--home', home, '--json'])) as {
      transcript: { role: string; text?: string; cut?: { chars: number; reason: string } }[];
    };
    const bot = shown.transcript.find((entry) => entry.role === 'bot');
    expect(bot).toMatchObject({ text: kept, cut: { chars: kept.length, reason: expect.stringContaining('ABORTED') } });

    // A resume shows the session so far, the cut reply marked as such.
    const resumed = startChat(['--session', sessionId as string, '--home', home], {});
    resumed.child.stdin?.end();
    const done = await resumed.exited;
    expect(done.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`bot> ${kept} [reply cut after ${kept.length} characters]`);
  });
});
