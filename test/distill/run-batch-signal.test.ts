/**
 * The signal a batch gives each case: many listeners are expected on it (one per running case and per tool call),
 * and the tool loop reads its listener limit. On Node 20 a limit of 0 made `getMaxListeners` throw on it, so every
 * case that ran a tool loop failed; the limit is Infinity instead.
 */
import { getMaxListeners } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBatchCases } from '../../src/distill/batch-cases.js';
import { runBatch } from '../../src/distill/run-batch.js';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.js';

const home = mkdtempSync(join(tmpdir(), 'weft-run-batch-signal-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("runBatch's case signal", () => {
  it('can be read for its listener limit and takes many listeners without a warning', async () => {
    const inputs = join(home, 'cases.jsonl');
    writeFileSync(inputs, `${[1, 2, 3].map((id) => JSON.stringify({ id, input: { n: id } })).join('\n')}\n`);
    const store = await openSqliteRunStore(':memory:');
    await store.createBatch({ batchId: 'b-signal', manifest: {} });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const limits: number[] = [];
    try {
      const summary = await runBatch({
        batchId: 'b-signal',
        store,
        cases: () => readBatchCases(inputs),
        total: 3,
        concurrency: 3,
        runCase: async (item, _attempt, signal) => {
          limits.push(getMaxListeners(signal));
          for (let i = 0; i < 20; i++) signal.addEventListener('abort', () => {}, { once: true });
          return { output: item.input, steps: 1, toolCalls: 0 };
        },
      });
      // Warnings are emitted on the next turn.
      await new Promise((resolve) => setImmediate(resolve));
      expect(summary.passed).toBe(3);
      expect(summary.errors).toBe(0);
      expect(limits).toEqual([Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]);
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await store.close();
    }
  });
});
