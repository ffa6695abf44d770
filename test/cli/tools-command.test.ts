/**
 * `weft tools list` and `weft tools call`, run as a user runs them (a child process through tsx), against the
 * example business API on 127.0.0.1: exit 0 with the result, 2 for bad input (a file's line and field, an argument),
 * 1 for a tool error.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BusinessApi, startBusinessApi } from '../../examples/business-api/business-api.js';
import { type CliResult, weft as weftCli } from '../e2e/weft-cli.js';

const TOOLS = 'examples/business-api/tools.yaml';
const scratch = mkdtempSync(join(tmpdir(), 'weft-tools-cli-'));

let api: BusinessApi;
beforeAll(async () => {
  api = await startBusinessApi();
});
afterAll(async () => {
  await api.close();
  rmSync(scratch, { recursive: true, force: true });
});

function weft(args: readonly string[]): Promise<CliResult> {
  return weftCli(args, { BUSINESS_API_URL: api.url, API_TOKEN: 'tok-cli-secret' });
}

describe('weft tools', () => {
  it('lists every tool with its source, description and arguments; --json adds the schemas', async () => {
    // The children start at once: each spends most of its time loading tsx.
    const [text, json] = await Promise.all([
      weft(['tools', 'list', '--tools', TOOLS]),
      weft(['tools', 'list', '--tools', TOOLS, '--json']),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'get_order  http GET ${env:BUSINESS_API_URL}/orders/{order_id} (examples/business-api/tools.yaml:52)  (idempotent)',
    );
    expect(text.stdout).toContain('    postal_code: string (required, secret)');
    expect(json.code).toBe(0);
    const document = JSON.parse(json.stdout) as { tools: { name: string; inputSchema: { required: string[] } }[] };
    expect(document.tools).toHaveLength(12);
    expect(document.tools.find((tool) => tool.name === 'issue_refund')?.inputSchema.required).toEqual([
      'return_id',
      'method',
    ]);
    expect(json.stdout).not.toContain(api.url);
  });

  it('calls a tool and prints its result; a tool error exits 1 with the error', async () => {
    api.resetStats();
    const [found, missing] = await Promise.all([
      weft(['tools', 'call', 'find_customer', '--args', '{"email":"ada@example.com"}', '--tools', TOOLS]),
      weft(['tools', 'call', 'get_order', '--args', '{"order_id":"O-1"}', '--tools', TOOLS, '--json']),
    ]);
    expect(found).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(found.stdout)).toEqual({
      customer_id: 'C-1001',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      verified: false,
    });

    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'weft: get_order: HTTP 404: {"error":{"code":"ORDER_NOT_FOUND","message":"no order O-1"}}',
    );
    expect(JSON.parse(missing.stdout)).toMatchObject({
      tool: 'get_order',
      ok: false,
      error: { code: 'TOOL', retryable: false },
      attempts: 1,
    });
    expect(api.stats().byEndpoint).toEqual({ 'GET /customers': 1, 'GET /orders/{id}': 1 });
  });

  it('exits 2 for bad arguments (named, nothing sent), an unknown tool, and --args that is not an object', async () => {
    api.resetStats();
    const [bad, unknown, notJson] = await Promise.all([
      weft(['tools', 'call', 'issue_refund', '--args', '{"return_id":"R-1","method":"cash"}', '--tools', TOOLS]),
      weft(['tools', 'call', 'get_ordr', '--tools', TOOLS]),
      weft(['tools', 'call', 'get_order', '--args', '[1]', '--tools', TOOLS]),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('weft: --args: issue_refund: argument "method" must be one of');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'no tool "get_ordr" in examples/business-api/tools.yaml (did you mean "get_order"?)',
    );
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('--args expects a JSON object, got an array');
    expect(api.stats().total).toBe(0);
  });

  it('exits 2 for a bad tools file, naming file, line and field, never a secret', async () => {
    const file = join(scratch, 'bad.yaml');
    writeFileSync(
      file,
      `allowHosts: [127.0.0.1]
tools:
  - kind: http
    name: x
    description: d
    url: http://example.com/x
    headers: { Authorization: "Bearer \${env:API_TOKEN}" }
  - kind: mcp
    name: files
    command: /no/such/mcp-server
`,
    );
    const result = await weft(['tools', 'list', '--tools', file, '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${file}:6:5 tools[0].url: the host of http://example.com/x (example.com) is not on allowHosts`,
    );
    expect(result.stderr).toContain(
      `${file}:10:5 tools[1].command: MCP server files: command "/no/such/mcp-server" not found`,
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'BAD_INPUT' } });
    expect(result.stderr + result.stdout).not.toContain('tok-cli-secret');
  });
});
