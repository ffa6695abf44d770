/**
 * weft_eval on a predictions file of 99 MB of `{}` lines (33 million records) in a real `weft mcp` child with a
 * 300 MB heap: refused by its line count before any record is parsed, and the server keeps serving. Parsing the
 * records first ran the server out of memory (a crash, every client's runs lost).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../e2e/weft-cli.js';

const home = mkdtempSync(join(tmpdir(), 'weft-mcp-huge-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

it('a 99 MB predictions file of tiny records is refused by its line count; the server lives on', async () => {
  const predictions = join(home, 'huge.jsonl');
  writeFileSync(predictions, '{}\n'.repeat(33_000_000));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--home', home, '--model', 'sim:seed=4'],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', NODE_OPTIONS: '--max-old-space-size=300' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'weft-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = await client.callTool(
      { name: 'weft_eval', arguments: { predictionsFile: predictions, goldFile: join(home, 'gold.json') } },
      undefined,
      { timeout: 60_000 },
    );
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toContain(
      '33000000 prediction lines; weft_eval scores at most 10000',
    );
    const runs = await client.callTool({ name: 'weft_runs', arguments: {} });
    expect(runs.isError).toBeFalsy();
  } finally {
    await client.close();
  }
}, 120_000);
