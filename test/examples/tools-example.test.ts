/**
 * examples/tools, the tools example of docs/tools-file.md, run as a user runs it: the business API on 127.0.0.1, then
 * `weft run --plan examples/tools/plan.yaml --tools examples/tools/tools.yaml` with its scripted model. The agents
 * reach the API over HTTP and the policy server over MCP (stdio), and the server counts what they did.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BusinessApi, startBusinessApi } from '../../examples/business-api/business-api.js';
import { jsonDocument, weft } from '../e2e/weft-cli.js';

let api: BusinessApi;
const home = mkdtempSync(join(tmpdir(), 'weft-tools-example-'));
beforeAll(async () => {
  api = await startBusinessApi();
});
afterAll(async () => {
  await api.close();
  rmSync(home, { recursive: true, force: true });
});

describe('examples/tools', () => {
  it('returns and refunds the webcam through http and MCP tools, each side effect once, the postal code redacted', async () => {
    const run = await weft(
      [
        'run',
        '--plan',
        'examples/tools/plan.yaml',
        '--tools',
        'examples/tools/tools.yaml',
        '--model',
        'scripted:examples/tools/replies.json',
        '--home',
        home,
        '--json',
      ],
      { BUSINESS_API_URL: api.url },
    );
    expect(run.code, run.stderr).toBe(0);
    const summary = jsonDocument(run);
    expect(summary.status).toBe('completed');
    expect(summary.toolCalls).toBe(8);
    expect(JSON.stringify(summary.result)).toContain('refund RF-0001 of $69.00');
    expect(api.stats().byEndpoint).toEqual({
      'GET /customers': 1,
      'POST /customers/{id}/verify': 1,
      'GET /orders/{id}': 1,
      'POST /returns': 1,
      'POST /returns/{id}/approve': 1,
      'POST /refunds': 1,
    });
    expect(api.stats().violations).toBe(0);
    const report = readFileSync(join(String(summary.runDir), 'report.md'), 'utf8');
    expect(report).toContain('get_policy {"topic":"electronics"} → ok');
    expect(report).toContain('"postal_code":"[redacted]"');
    expect(report).not.toContain('"postal_code":"20500"');
    // One heading per subtask attempt, although the two first subtasks' calls interleave in the log.
    expect(report.match(/^### policy \(attempt 1\)$/gm)).toHaveLength(1);
    expect(summary.toolCallsFailed).toBe(0);
  });

  it('run again against the same API, the refund calls fail: the summaries count them and mark the refund', async () => {
    const run = await weft(
      [
        'run',
        '--plan',
        'examples/tools/plan.yaml',
        '--tools',
        'examples/tools/tools.yaml',
        '--model',
        'scripted:examples/tools/replies.json',
        '--home',
        home,
      ],
      { BUSINESS_API_URL: api.url },
    );
    // The example's scripted verifier accepts every output (a real model is shown the failed calls and can
    // reject the claim: test/run/verify-evidence.test.ts); what the run did is still plain in its summary.
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('⚠ refund: completed, but 3 of its 3 tool calls failed');
    expect(run.stdout).toContain('8 tool calls (3 failed)');
    const runId = /^run (\S+):/m.exec(run.stdout)?.[1] ?? '';
    const shown = jsonDocument(await weft(['show', runId, '--home', home, '--json']));
    expect(shown.toolCallsFailed).toBe(3);
    expect(shown.tasks).toMatchObject([
      { id: 'policy', toolCalls: 2, toolCallsFailed: 0 },
      { id: 'identify', toolCalls: 3, toolCallsFailed: 0 },
      { id: 'refund', toolCalls: 3, toolCallsFailed: 3 },
      { id: 'reply', toolCalls: 0, toolCallsFailed: 0 },
    ]);
    const report = readFileSync(join(String(shown.runDir), 'report.md'), 'utf8');
    expect(report).toContain('| refund | refunds_agent | completed ⚠ | 1 | 3 (3 failed) |');
    expect(report).toContain('create_return: HTTP 422');
  });
});
