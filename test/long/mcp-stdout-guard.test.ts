/**
 * `weft mcp` over a real stdio child: a module tool that prints (console.log when imported and when called, and a
 * raw process.stdout.write) must not corrupt the protocol. Its lines go to stderr; the client sees only JSON-RPC.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../e2e/weft-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-mcp-noisy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("a module tool's console.log and stdout writes go to stderr, never into the protocol", async () => {
  copyFileSync(join(ROOT, 'test/fixtures/workflows/sum-to-n.workflow.json'), join(dir, 'sum.workflow.json'));
  // Absolute specifiers: the module lives outside the project, where `zod` would not resolve.
  const defineTool = pathToFileURL(join(ROOT, 'src/tools/define-tool.ts')).href;
  const zod = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('zod')).href;
  writeFileSync(
    join(dir, 'noisy.mjs'),
    [
      `import { z } from '${zod}';`,
      `import { defineTool } from '${defineTool}';`,
      "console.log('noisy: loaded');",
      'export const add = defineTool({',
      "  description: 'a + b',",
      '  inputSchema: z.object({ a: z.number(), b: z.number() }),',
      '  execute: async ({ a, b }) => {',
      '    console.log(`noisy: adding ${a} and ${b}`);',
      "    process.stdout.write('noisy: raw write\\n');",
      '    return a + b;',
      '  },',
      '});',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'tools.yaml'), 'tools:\n  - kind: module\n    path: ./noisy.mjs\n');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'mcp', '--home', dir, '--model', 'sim:seed=4'],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'weft-test', version: '1.0.0' });
  const clientErrors: Error[] = [];
  client.onerror = (error) => clientErrors.push(error);
  await client.connect(transport);
  try {
    const result = await client.callTool({
      name: 'weft_exec',
      arguments: { workflow: join(dir, 'sum.workflow.json'), tools: join(dir, 'tools.yaml'), input: { n: 4 } },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({ output: 10 });
    // The server still answers after the noise.
    expect((await client.callTool({ name: 'weft_runs', arguments: {} })).isError).toBeFalsy();
    expect(clientErrors.map((error) => error.message)).toEqual([]);
    expect(stderr).toContain('noisy: loaded');
    expect(stderr).toContain('noisy: adding');
    expect(stderr).toContain('noisy: raw write');
  } finally {
    await client.close();
  }
}, 120_000);
