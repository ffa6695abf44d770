/**
 * `weft run`, `weft show` and report.md count failed tool calls and mark a subtask that completed with some: an http
 * refund tool whose service answers 409, an agent (scripted) that claims the refund went through. Verified, the
 * scripted verifier is shown the 409 and rejects the claim (exit 1); unverified (`--no-verify`), the subtask
 * completes and every summary marks it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempHome } from './cli-harness.js';

let server: Server;
let refunds = 0;
let dir: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    refunds += 1;
    request.resume();
    response.writeHead(409, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: 'return R-0001 is already refunded' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = tempHome();
  writeFileSync(
    join(dir, 'tools.yaml'),
    `allowHosts: [127.0.0.1]
tools:
  - kind: http
    name: issue_refund
    description: Refunds an approved return to a card.
    method: POST
    url: ${url}/refunds
    input:
      type: object
      properties: { return_id: { type: string }, card: { type: string } }
      required: [return_id, card]
    secretArgs: [card]
`,
  );
  writeFileSync(
    join(dir, 'plan.json'),
    JSON.stringify({
      task: 'Refund the webcam of order O-5005.',
      roles: [{ name: 'refunds', prompt: 'You issue refunds.', tools: ['issue_refund'] }],
      subtasks: [{ id: 'refund', objective: 'Refund return R-0001 to the card.', agent: 'refunds' }],
    }),
  );
  writeFileSync(
    join(dir, 'replies.json'),
    JSON.stringify({
      replies: [
        {
          when: `/You are Weft's verifier[\\s\\S]*status="failed" code="TOOL">[\\s\\S]*HTTP 409/`,
          text: '{"verdict":"replan","reason":"issue_refund answered HTTP 409; the refund the output claims was not made"}',
          repeat: true,
        },
        { when: "You are Weft's verifier", text: '{"verdict":"accept","reason":"ok"}', repeat: true },
        // Once the agent has the tool's answer (an error), it claims the refund anyway.
        { when: '/Error from tool issue_refund/', text: 'Refund RF-0001 of $69.00 was issued to the card.' },
        {
          when: '/objective>\\s*Refund/',
          toolCalls: [{ name: 'issue_refund', args: { return_id: 'R-0001', card: '4111111111111111' } }],
          repeat: true,
        },
      ],
    }),
  );
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** `weft run` of the plan, its tools and the replies, with `extra` flags, into `home`. */
function run(extra: readonly string[], home: string) {
  return cli([
    'run',
    '--plan',
    join(dir, 'plan.json'),
    '--tools',
    join(dir, 'tools.yaml'),
    '--model',
    `scripted:${join(dir, 'replies.json')}`,
    '--home',
    home,
    '--strategy',
    'none',
    ...extra,
  ]);
}

describe('failed tool calls in the run summaries', () => {
  it('verified: the verifier shown the 409 rejects the claim; the text and --json count the failed call', async () => {
    refunds = 0;
    const home = tempHome();
    const text = await run([], home);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toContain(
      'failed refund: the verifier answered replan: issue_refund answered HTTP 409; the refund the output claims was not made',
    );
    expect(text.stdout).toMatch(/, 1 tool call \(1 failed\)\n/);
    const json = await run(['--json'], tempHome());
    expect(json.code).toBe(1);
    expect(refunds).toBe(2);
    const document = JSON.parse(json.stdout) as {
      status: string;
      toolCalls: number;
      toolCallsFailed: number;
      tasks: { id: string; status: string; toolCalls: number; toolCallsFailed: number }[];
    };
    expect(document).toMatchObject({ status: 'failed', toolCalls: 1, toolCallsFailed: 1 });
    expect(document.tasks).toMatchObject([{ id: 'refund', status: 'failed', toolCalls: 1, toolCallsFailed: 1 }]);
  });

  it('unverified: the subtask completes, and weft run, weft show and report.md mark it with the count', async () => {
    refunds = 0;
    const home = tempHome();
    const text = await run(['--no-verify'], home);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('⚠ refund: completed, but 1 of its 1 tool call failed\n');
    expect(text.stdout).toMatch(/, 1 tool call \(1 failed\)\n/);
    const runId = /^run (\S+):/m.exec(text.stdout)?.[1] ?? '';

    const show = await cli(['show', runId, '--home', home]);
    expect(show.stdout).toContain('1 tool call (1 failed)');
    expect(show.stdout).toMatch(/ {2}refund +completed ⚠ +attempts 1\n/);
    expect(show.stdout).toContain('⚠ 1 of its 1 tool call failed: check its output against them');
    const shown = JSON.parse((await cli(['show', runId, '--home', home, '--json'])).stdout) as {
      toolCallsFailed: number;
      tasks: { status: string; toolCallsFailed: number }[];
    };
    expect(shown.toolCallsFailed).toBe(1);
    expect(shown.tasks[0]).toMatchObject({ status: 'completed', toolCallsFailed: 1 });
    const mermaid = (await cli(['show', runId, '--home', home, '--mermaid'])).stdout;
    expect(mermaid).toContain('n_refund["⚠ refund: Refund return R-0001 to the card."]');
    expect(mermaid).toContain('class n_refund warned');
    expect(mermaid).not.toContain('classDef completed');

    const report = readFileSync(join(home, 'runs', runId, 'report.md'), 'utf8');
    expect(report).toContain('tool calls: 1 (1 failed)');
    expect(report).toMatch(/\| refund \| refunds \| completed ⚠ \| 1 \| 1 \(1 failed\) \|/);
    expect(report).toContain('- ⚠ refund completed, but 1 of its 1 tool call failed.');
    expect(report).not.toContain('4111111111111111');
    expect(refunds).toBe(1);
  });
});
