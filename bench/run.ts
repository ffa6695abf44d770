/**
 * `npm run bench` runs every benchmark in sequence and prints one table each; `npm run bench -- scheduler` runs
 * only the named ones.
 */
// The benches import Weft's modules directly, not 'weft': this registers what the sim model answers each engine.
import '../src/sim-responders.js';
import { dashboardBench } from './dashboard.bench.js';
import { dialogBench } from './dialog.bench.js';
import { distillBench } from './distill.bench.js';
import { dylanReplayBench } from './dylan-replay.bench.js';
import { largeRunBench } from './large-run.bench.js';
import { otelBench } from './otel.bench.js';
import { persistedRunBench } from './persisted-run.bench.js';
import { providerFaultsBench } from './provider-faults.bench.js';
import { formatReport, meetsGoal, type Bench } from './report.js';
import { schedulerBench } from './scheduler.bench.js';
import { strategiesBench } from './strategies.bench.js';
import { teamsBench } from './teams.bench.js';
import { theoremBench } from './theorem.bench.js';
import { toolRunBench } from './tool-run.bench.js';
import { toolsBench } from './tools.bench.js';
import { workersBench } from './workers.bench.js';
import { worfevalBench } from './worfeval.bench.js';

const BENCHES: readonly Bench[] = [
  schedulerBench,
  largeRunBench,
  dashboardBench,
  persistedRunBench,
  strategiesBench,
  providerFaultsBench,
  theoremBench,
  workersBench,
  worfevalBench,
  teamsBench,
  dylanReplayBench,
  toolsBench,
  toolRunBench,
  dialogBench,
  distillBench,
  otelBench,
];

async function main(names: readonly string[]): Promise<void> {
  const unknown = names.filter((name) => !BENCHES.some((bench) => bench.name === name));
  if (unknown.length > 0) {
    console.error(
      `Unknown bench: ${unknown.join(', ')}. Choose from: ${BENCHES.map((bench) => bench.name).join(', ')}`,
    );
    process.exitCode = 2;
    return;
  }
  const selected = names.length === 0 ? BENCHES : BENCHES.filter((bench) => names.includes(bench.name));
  let misses = 0;
  for (const bench of selected) {
    const started = performance.now();
    const report = await bench.run();
    misses += report.rows.filter((row) => row.goal && !meetsGoal(row.value, row.goal)).length;
    console.log(formatReport(report));
    console.log(`  (${bench.name} took ${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  }
  console.log(misses === 0 ? 'All goals met.' : `${misses} goal(s) missed.`);
}

await main(process.argv.slice(2));
