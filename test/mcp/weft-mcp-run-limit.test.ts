/**
 * weft_run refuses a run beyond the server's limit, as a tool error, and starts one again once a run has ended; calls
 * at once count against the limit from their start, not once their files are loaded.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_RUNS_AT_ONCE } from '../../src/serve/mcp-server.js';
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

  it('20 calls at once start exactly the limit of 8 runs, and the others are refused', async () => {
    const { client, settled, close } = await startMcp({ model: 'sim:seed=3,tasks=2,latency=fixed(100)' });
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => client.callTool({ name: 'weft_run', arguments: { task: `tea ${i}` } })),
      );
      const started = results.filter((result) => !result.isError);
      const refused = results.filter((result) => result.isError);
      expect(started).toHaveLength(MAX_RUNS_AT_ONCE);
      expect(refused).toHaveLength(20 - MAX_RUNS_AT_ONCE);
      for (const result of refused) expect(text(result)).toContain(`at most ${MAX_RUNS_AT_ONCE}`);
      await settled();
      const listed = JSON.parse(text(await client.callTool({ name: 'weft_runs', arguments: { limit: 100 } }))) as {
        total: number;
      };
      expect(listed.total).toBe(MAX_RUNS_AT_ONCE);
    } finally {
      await close();
    }
  });

  it('calls refused for their input give their slot back', async () => {
    const { client, close } = await startMcp({ model: 'sim:seed=3,tasks=2,latency=fixed(100)', maxRuns: 2 });
    try {
      for (let i = 0; i < 5; i++) {
        const bad = await client.callTool({
          name: 'weft_run',
          arguments: { plan: join(tmpdir(), 'weft-no-such-plan.json') },
        });
        expect(bad.isError).toBe(true);
        expect(text(bad)).not.toContain('at most 2');
      }
      const good = await Promise.all(
        [1, 2].map(() => client.callTool({ name: 'weft_run', arguments: { task: 'tea' } })),
      );
      for (const result of good) expect(result.isError, text(result)).toBeFalsy();
    } finally {
      await close();
    }
  });
});
