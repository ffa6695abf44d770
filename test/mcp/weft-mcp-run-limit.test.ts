/** weft_run refuses a run beyond the server's limit, as a tool error, and starts one again once a run has ended. */
import { describe, expect, it } from 'vitest';
import { startMcp, text } from './mcp-harness.js';

describe('weft_run limit', () => {
  it('refuses a third run while two go, and takes one after they end', async () => {
    const { client, settled, close } = await startMcp({ model: 'sim:seed=3,tasks=2,latency=fixed(100)', maxRuns: 2 });
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
      await close();
    }
  });
});
