/**
 * No second execution of a non-idempotent call across a crash: `weft chat` (a child process, scripted bot) calls
 * a POST API on a real local HTTP server, which holds the request open; the chat is killed with SIGKILL mid-call;
 * `weft chat --session ID` resumes with a bot that proposes the same call again. The server counts one call, and the
 * session's record shows the interrupted call and the repetition controller's refusal.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonDocument } from '../e2e/weft-cli.js';
import { startChat, until } from './chat-harness.js';
import { cli } from './cli-harness.js';

const scratch = mkdtempSync(join(tmpdir(), 'weft-chat-once-'));
const renewals: unknown[] = [];
const held: IncomingMessage[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  // Counts every renewal that reaches it and never answers one: the call is in flight when the chat is killed.
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/renew') {
        renewals.push(JSON.parse(body || 'null'));
        held.push(request);
        return;
      }
      response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const request of held) request.socket.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

const PDL = [
  'Name: Loan renewal',
  'Desc: Renew a library loan.',
  'SLOTs: [loan_id]',
  'APIs:',
  '  - name: renew_loan',
  '    request: [loan_id]',
  '    response: [due]',
  'Procedure: |',
  '  [due] = API.renew_loan(loan_id)',
  'allowHosts: [127.0.0.1]',
  'tools:',
  '  - kind: http',
  '    name: renew_loan',
  '    description: Renews a loan by four weeks.',
  '    method: POST', // not idempotent: no idempotent: true
  '    url: ${env:LOAN_API}/renew',
  // Were the call repeated, the resumed chat would not hang on it: it times out and the counts below fail.
  '    timeoutMs: 10000',
  '    input: { type: object, properties: { loan_id: { type: string } }, required: [loan_id] }',
  '',
].join('\n');

const BOT = JSON.stringify({
  replies: [
    { toolCalls: [{ name: 'renew_loan', args: { loan_id: 'L-7' } }] },
    { text: 'Your loan L-7 may already be renewed; I will not renew it twice.' },
  ],
});

describe('weft chat: kill -9 during a non-idempotent call, then resume', () => {
  it('the resumed bot proposes the same call again: refused, and the server still counts one call', async () => {
    const home = join(scratch, 'home');
    const pdl = join(scratch, 'loan.pdl.yaml');
    const bot = join(scratch, 'bot.json');
    writeFileSync(pdl, PDL);
    writeFileSync(bot, BOT);
    const env = { LOAN_API: url };

    const first = startChat([pdl, '--model', `scripted:${bot}`, '--home', home], env);
    first.child.stdin?.write('please renew loan_id: L-7\n');
    await until(() => renewals.length === 1, 'the renewal to reach the server', first);
    const sessionId = /session (s-[\w-]+)/.exec(first.stderr)?.[1];
    expect(sessionId, first.stderr).toBeDefined();
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    // A fresh process and a fresh script: its first reply proposes the renewal again.
    const resumed = startChat(
      ['--session', sessionId as string, '--model', `scripted:${bot}`, '--home', home, '--json'],
      env,
    );
    resumed.child.stdin?.end();
    const done = await resumed.exited;
    expect(done.code, resumed.stderr).toBe(0);
    const document = JSON.parse(resumed.stdout) as { turns: { user: string; reply: string; rejections: number }[] };
    expect(document.turns[0]).toMatchObject({
      user: '(resumed turn)',
      reply: 'Your loan L-7 may already be renewed; I will not renew it twice.',
      rejections: 1,
    });
    expect(renewals).toEqual([{ loan_id: 'L-7' }]);

    const shown = jsonDocument(await cli(['show-session', sessionId as string, '--home', home, '--json'])) as {
      transcript: {
        role: string;
        name?: string;
        error?: string;
        unknownOutcome?: boolean;
        controller?: string;
        accepted?: boolean;
        reason?: string;
      }[];
    };
    const calls = shown.transcript.filter((entry) => entry.role === 'tool');
    expect(calls).toEqual([
      expect.objectContaining({
        name: 'renew_loan',
        ok: false,
        unknownOutcome: true,
        error: expect.stringContaining('interrupted'),
      }),
    ]);
    const refusals = shown.transcript.filter((entry) => entry.role === 'verdict' && entry.accepted === false);
    expect(refusals).toEqual([
      expect.objectContaining({
        controller: 'repetition',
        action: 'tool:renew_loan',
        reason: expect.stringContaining('its outcome is unknown'),
      }),
    ]);
  });
});
