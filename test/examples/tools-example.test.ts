/**
 * examples/tools, the tools example of docs/tools-file.md, run as a user runs it: the business API on 127.0.0.1, then
 * `weft run --plan examples/tools/plan.yaml --tools examples/tools/tools.yaml` with its scripted model. The agents
 * reach the API over HTTP and the policy server over MCP (stdio), and the server counts what they did. Run twice
 * against one API it gives the same result (each run has its own state there); against a shared state, the second
 * run's failed return is answered honestly.
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

const RUN = [
  'run',
  '--plan',
  'examples/tools/plan.yaml',
  '--tools',
  'examples/tools/tools.yaml',
  '--model',
  'scripted:examples/tools/replies.json',
];

describe('examples/tools', () => {
  it('returns and refunds the webcam through http and MCP tools, each side effect once, the postal code redacted', async () => {
    const run = await weft([...RUN, '--home', home, '--json'], { BUSINESS_API_URL: api.url });
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

  it("run again against the same API: the same result, because the API keeps each run's state apart", async () => {
    const before = api.stats().byEndpoint;
    const run = await weft([...RUN, '--home', home, '--json'], { BUSINESS_API_URL: api.url });
    expect(run.code, run.stderr).toBe(0);
    const summary = jsonDocument(run);
    expect(summary).toMatchObject({ status: 'completed', toolCalls: 8, toolCallsFailed: 0 });
    expect(JSON.stringify(summary.result)).toContain('refund RF-0001 of $69.00');
    // Every call reached the API a second time, and none was refused.
    const after = api.stats();
    expect(after.byEndpoint['POST /refunds']).toBe((before['POST /refunds'] ?? 0) + 1);
    expect(after.byEndpoint['POST /returns']).toBe((before['POST /returns'] ?? 0) + 1);
    expect(after.violations).toBe(0);
  }, 120_000);

  it("against an API whose state is shared (--shared), a second run's failed return gets an honest reply", async () => {
    const shared = await startBusinessApi({ shared: true });
    try {
      const first = await weft([...RUN, '--home', home], { BUSINESS_API_URL: shared.url });
      expect(first.code, first.stderr).toBe(0);
      const run = await weft([...RUN, '--home', home], { BUSINESS_API_URL: shared.url });
      // The example's scripted verifier accepts every output (a real model is shown the failed calls and can
      // reject a claim they do not support: test/run/verify-evidence.test.ts); the replies say what happened.
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('⚠ refund: completed, but 1 of its 1 tool call failed');
      expect(run.stdout).toContain('6 tool calls (1 failed)');
      expect(run.stdout).toContain('we could not complete the return of your webcam');
      expect(run.stdout).not.toContain('RF-0001');
      const runId = /^run (\S+):/m.exec(run.stdout)?.[1] ?? '';
      const shown = jsonDocument(await weft(['show', runId, '--home', home, '--json']));
      expect(shown.toolCallsFailed).toBe(1);
      expect(shown.tasks).toMatchObject([
        { id: 'policy', toolCalls: 2, toolCallsFailed: 0 },
        { id: 'identify', toolCalls: 3, toolCallsFailed: 0 },
        { id: 'refund', toolCalls: 1, toolCallsFailed: 1 },
        { id: 'reply', toolCalls: 0, toolCallsFailed: 0 },
      ]);
      const report = readFileSync(join(String(shown.runDir), 'report.md'), 'utf8');
      expect(report).toContain('| refund | refunds_agent | completed ⚠ | 1 | 1 (1 failed) |');
      expect(report).toContain('Could not open the return of WC-03: create_return: HTTP 422');
      expect(report).toContain('Nothing was approved or refunded.');
      // Neither approve nor refund was tried after the return failed.
      expect(shared.stats().byEndpoint['POST /returns/{id}/approve']).toBe(1);
      expect(shared.stats().byEndpoint['POST /refunds']).toBe(1);
    } finally {
      await shared.close();
    }
  }, 120_000);
});
