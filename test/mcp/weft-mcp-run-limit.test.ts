/** weft_run refuses a run beyond the server's limit, as a tool error, and starts one again once a run has ended. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadContext, loadModel, openStore } from '../../src/cli/context.js';
import { createWeftMcpServer } from '../../src/cli/mcp-server.js';

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { text: string }[]).map((block) => block.text).join('');
}

describe('weft_run limit', () => {
  it('refuses a third run while two go, and takes one after they end', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-mcp-limit-'));
    scratch.push(home);
    const context = await loadContext({ home });
    const model = await loadModel('sim:seed=3,tasks=2,latency=fixed(100)', context.config);
    const store = await openStore(context);
    const stop = new AbortController();
    const { server, settled } = await createWeftMcpServer({
      context,
      model,
      store,
      signal: stop.signal,
      log: () => {},
      version: 'test',
      maxRuns: 2,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(clientSide);
    try {
      const start = () => client.callTool({ name: 'weft_run', arguments: { task: 'tea' } });
      const first = await start();
      const second = await start();
      expect(first.isError, text(first)).toBeFalsy();
      expect(second.isError, text(second)).toBeFalsy();
      const third = await start();
      expect(third.isError).toBe(true);
      expect(text(third)).toContain('at most 2');
      await settled();
      const fourth = await start();
      expect(fourth.isError, text(fourth)).toBeFalsy();
    } finally {
      stop.abort();
      await settled();
      await client.close();
      await store.close();
    }
  });
});
