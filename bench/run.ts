/**
 * `npm run bench` runs every benchmark in sequence, each in a process of its own, and prints one table each;
 * `npm run bench -- scheduler` runs only the named ones.
 */
// The benches import Weft's modules directly, not 'weft': this registers what the sim model answers each engine.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import '../src/sim-responders.js';
import { dashboardBench } from './dashboard.bench.js';
import { dialogBench } from './dialog.bench.js';
import { distillBench } from './distill.bench.js';
import { dylanReplayBench } from './dylan-replay.bench.js';
import { largeRunBench } from './large-run.bench.js';
import { limitsBench } from './limits.bench.js';
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
  limitsBench,
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
  let crashed = 0;
  for (const bench of selected) {
    const started = performance.now();
    // Each bench in a process of its own when several run: one bench's heap and compiled code (the scheduler bench
    // leaves hundreds of runs' worth) otherwise change the next one's numbers, by a fifth or more.
    const outcome = selected.length === 1 || process.send ? await runHere(bench) : await runInChild(bench.name);
    if (outcome === undefined) crashed += 1;
    else misses += outcome;
    if (!process.send) console.log(`  (${bench.name} took ${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  }
  if (process.send) return;
  console.log(misses === 0 ? 'All goals met.' : `${misses} goal(s) missed.`);
  if (crashed > 0) {
    console.log(`${crashed} bench(es) failed to finish (see above).`);
    process.exitCode = 1;
  }
}

/** Runs the bench in this process, prints its table and returns its missed goals (also to a parent, if any). */
async function runHere(bench: Bench): Promise<number> {
  const report = await bench.run();
  const misses = report.rows.filter((row) => row.goal && !meetsGoal(row.value, row.goal)).length;
  console.log(formatReport(report));
  process.send?.({ misses });
  return misses;
}

/** The bench in a child process (this script, same loader flags); its missed goals, or undefined if it failed. */
function runInChild(name: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    let misses: number | undefined;
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (message: { misses?: unknown }) => {
      if (typeof message?.misses === 'number') misses = message.misses;
    });
    child.on('error', (error) => {
      console.error(`bench ${name}: ${error.message}`);
      resolve(undefined);
    });
    child.on('exit', (code, signal) => {
      if (code !== 0 || misses === undefined) {
        console.error(`bench ${name} ended with ${signal ?? `exit code ${code}`} before reporting its goals`);
        resolve(undefined);
      } else resolve(misses);
    });
  });
}

await main(process.argv.slice(2));
