/**
 * A workflow whose expression runs for a long time (a model wrote it, or someone hostile): weft_exec runs its case
 * in a worker thread, so the server answers `ping` meanwhile, and the case ends with an error naming node and field.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeWorkflowWorkers } from '../../src/distill/run-workflow-isolated.js';
import { callError, startMcp } from './mcp-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-mcp-hostile-exec-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await closeWorkflowWorkers();
});

describe('weft mcp: a hostile weft_exec', () => {
  it('answers ping while the case runs, and the case fails alone with a located error', async () => {
    const file = join(dir, 'sort.workflow.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'sorts',
        nodes: [
          { id: 's', kind: 'start' },
          { id: 'e', kind: 'end', output: '{% $sort([1..1000000], function($a, $b){ $a < $b }) %}' },
        ],
        edges: [{ from: 's', to: 'e' }],
      }),
    );
    const mcp = await startMcp();
    try {
      const order: string[] = [];
      const exec = callError(mcp.client, 'weft_exec', { workflow: file }).then((message) => {
        order.push('exec');
        return message;
      });
      // Pings while the case runs: each is answered before the case ends.
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        await mcp.client.ping();
        order.push('ping');
      }
      const message = await exec;
      expect(order).toEqual(['ping', 'ping', 'ping', 'exec']);
      // Stopped at its time limit, or at its memory limit when it allocates faster than the clock runs out; either
      // way located once, at the node and field.
      expect(message).toMatch(
        /^(TIMEOUT: node e \(output\): stopped at the case's time limit|WORKFLOW: node e \(output\): stopped: it ran out)/,
      );
      expect(message.split('node e (output)')).toHaveLength(2);
      // The server goes on: another exec runs.
      const fine = join(dir, 'fine.workflow.json');
      writeFileSync(
        fine,
        JSON.stringify({
          name: 'fine',
          nodes: [
            { id: 's', kind: 'start' },
            { id: 'e', kind: 'end', output: '{% 6 * 7 %}' },
          ],
          edges: [{ from: 's', to: 'e' }],
        }),
      );
      const result = await mcp.client.callTool({ name: 'weft_exec', arguments: { workflow: fine } });
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({ output: 42 });
    } finally {
      await mcp.close();
    }
  });
});
