/**
 * What tracing costs: a 1,000-subtask run of the zero-latency sim model through `runTask` (SQLite store),
 * with no OpenTelemetry SDK (every span a no-op) against the Node SDK registered by startTelemetry with an in-memory
 * exporter (spans built, batched and handed over, no network), with and without message content.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';
import type { Workflow } from '../src/graph/index.js';
import { createModel } from '../src/llm/resolve-model.js';
import { startTelemetry } from '../src/llm/start-telemetry.js';
import { runTask } from '../src/run/run-task.js';
import { openRunStore } from '../src/store/open-store.js';
import { randomDag } from './random-dag.js';
import type { Bench, BenchReport } from './report.js';
import { percentile } from './stats.js';

const NODES = 1_000;
const REPEATS = 5;
type Mode = 'off' | 'on' | 'content';

export const otelBench: Bench = {
  name: 'otel',
  async run(): Promise<BenchReport> {
    const { workflow } = randomDag(15, { nodes: NODES, depth: 20, extraParents: 2 });
    await timeRun(workflow, 'on'); // JIT warm-up, SDK loaded
    await timeRun(workflow, 'off');
    const samples: Record<Mode, number[]> = { off: [], on: [], content: [] };
    let spans = 0;
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      for (const mode of ['off', 'on', 'content'] as const) {
        const run = await timeRun(workflow, mode);
        samples[mode].push(run.ms);
        if (mode === 'on') spans = run.spans;
      }
    }
    const median = (mode: Mode) => percentile(samples[mode], 0.5);
    return {
      title: `Tracing overhead: ${NODES}-subtask zero-latency sim run, SQLite store (median of ${REPEATS})`,
      rows: [
        { label: 'no SDK (no-op spans)', value: median('off'), unit: 'ms' },
        { label: 'SDK + in-memory exporter', value: median('on'), unit: 'ms' },
        { label: 'SDK + in-memory exporter, content', value: median('content'), unit: 'ms' },
        { label: 'ratio SDK / no SDK', value: median('on') / median('off'), goal: { comparison: '<', target: 1.5 } },
      ],
      notes: [
        `${spans} spans per traced run; runs (ms): off ${list(samples.off)}; on ${list(samples.on)}; content ${list(samples.content)}.`,
      ],
    };
  },
};

async function timeRun(workflow: Workflow, mode: Mode): Promise<{ ms: number; spans: number }> {
  const home = mkdtempSync(join(tmpdir(), 'weft-bench-otel-'));
  const kept: ReadableSpan[] = [];
  const exporter: SpanExporter = {
    export(batch, done) {
      kept.push(...batch);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const telemetry = mode === 'off' ? undefined : await startTelemetry({ exporter, content: mode === 'content' });
  try {
    const model = await createModel('sim:seed=1');
    const started = performance.now();
    const store = await openRunStore({ home });
    const result = await runTask({ task: workflow.task, plan: workflow, model, store, home });
    await store.close();
    const stopped = await telemetry?.stop();
    const ms = performance.now() - started;
    if (result.status !== 'completed') throw new Error(`The run ended ${result.status}: ${result.reason ?? ''}`);
    if (stopped && stopped.failed > 0) throw new Error(`${stopped.failed} spans were not exported`);
    return { ms, spans: kept.length };
  } finally {
    await telemetry?.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

function list(samples: readonly number[]): string {
  return samples.map((sample) => sample.toFixed(0)).join(', ');
}
