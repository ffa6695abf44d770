/**
 * Provider faults (`sim:error=p`) and transport retries: does retrying recover, as it does from a real provider's
 * transient errors? Two measures, both seeded:
 * - calls: 200 calls, each with a fixed identity as a run's recorder gives it (`tag.sequence`), through
 *   `withRetries` (3 retries, no backoff wait): the calls still failed. Independent draws leave 200 · p⁴.
 * - runs: 50 seeded `runTask` runs of a generated plan, the model wrapped as the CLI wraps it (3 retries, no
 *   backoff wait), with the default strategy and with `none` (no repair): the share that completes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withResilience } from '../src/llm/resilient-model.js';
import { withRetries } from '../src/llm/retry.js';
import { simModel } from '../src/llm/sim-model.js';
import type { ExecutionStrategy } from '../src/run/execution.js';
import { runTask } from '../src/run/run-task.js';
import { openRunStore } from '../src/store/open-store.js';
import type { Bench, BenchReport } from './report.js';

const ERROR = 0.3;
const RETRIES = 3;
const CALLS = 200;
const RUNS = 50;
const noWait = async (): Promise<void> => {};

export const providerFaultsBench: Bench = {
  name: 'provider-faults',
  async run(): Promise<BenchReport> {
    const model = withRetries(simModel(`error=${ERROR},seed=1`), { retries: RETRIES, sleep: noWait });
    let failed = 0;
    for (let index = 0; index < CALLS; index++) {
      const tag = { purpose: 'execute' as const, key: `t${index}`, attempt: 1, sequence: 0 };
      await model.generate({ messages: [{ role: 'user', content: 'x' }], tag }).catch(() => (failed += 1));
    }
    const completed = async (strategy: ExecutionStrategy): Promise<number> => {
      const home = mkdtempSync(join(tmpdir(), 'weft-bench-faults-'));
      const store = await openRunStore({ home });
      let count = 0;
      try {
        for (let seed = 1; seed <= RUNS; seed++) {
          const run = await runTask({
            task: 'Build a Gobang game',
            model: withResilience(simModel(`error=${ERROR},seed=${seed}`), {
              retry: { retries: RETRIES, sleep: noWait },
            }),
            store,
            home,
            run: { strategy: strategy },
          });
          if (run.status === 'completed') count += 1;
        }
      } finally {
        await store.close();
      }
      return count / RUNS;
    };
    return {
      title: `Provider faults: sim:error=${ERROR}, ${RETRIES} retries (backoff not waited for)`,
      rows: [
        {
          label: `calls failed after ${RETRIES} retries, of ${CALLS}`,
          value: failed,
          goal: { comparison: '<=', target: 8 },
        },
        {
          label: `runs completed, on-failure (of ${RUNS})`,
          value: await completed('on-failure'),
          unit: '',
          goal: { comparison: '>=', target: 0.9 },
        },
        { label: `runs completed, strategy none (of ${RUNS})`, value: await completed('none'), unit: '' },
      ],
      notes: [
        `Independent retries leave ${CALLS} · ${ERROR}^${RETRIES + 1} ≈ ${(CALLS * ERROR ** (RETRIES + 1)).toFixed(1)} failed calls.`,
      ],
    };
  },
};
