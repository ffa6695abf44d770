/** Runs a benchmark DAG through Weft's executor with the latency model and times it from call to result. */
import { execute, type ExecutionResult } from '../src/run/execution.js';
import { latencyModel } from './bench-models.js';
import type { BenchDag } from './random-dag.js';
import type { Span } from './schedule-check.js';

export interface WeftRun {
  readonly makespanMs: number;
  readonly spans: Span[];
  readonly status: ExecutionResult['status'];
}

export async function runWeft(dag: BenchDag): Promise<WeftRun> {
  const spans: Span[] = [];
  const model = latencyModel(dag.latencyMs, spans);
  const started = performance.now();
  const result = await execute({ workflow: dag.workflow, model, verify: false, emit: () => {} });
  return { makespanMs: performance.now() - started, spans, status: result.status };
}
