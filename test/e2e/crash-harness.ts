/**
 * The crash test: a `weft run` process is killed with SIGKILL at seeded points, then resumed. Each resume
 * must finish with no completed subtask run again, no output lost, no recorded call repeated, and the same final
 * state as an uninterrupted run with the same seed. `npm test` runs a few points (test/e2e/crash-resume.test.ts);
 * `npm run test:long` runs the 20-point sweep (test/long/crash-resume-sweep.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createModel } from '../../src/llm/resolve-model.js';
import { randomFrom, integerSample } from '../../src/llm/seeded-random.js';
import type { WeftEvent } from '../../src/run/events.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { runTask, type RunTaskResult } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { runEvents } from '../../src/run/run-events.js';

export const TASK = 'write a report in ten parts';
export const SIM = 'sim:seed=33,latency=lognormal(3.6,0.4),tasks=10,fail=0.2,badjson=0.1,clock=virtual';
const ROOT = new URL('../..', import.meta.url).pathname;

interface FinalState {
  status: string;
  planVersion: number;
  calls: number;
  tasks: {
    id: string;
    status: string;
    attempts: number;
    output: string | undefined;
    objective: string;
    dependsOn: readonly string[];
  }[];
}

function finalState(result: RunTaskResult): FinalState {
  const outputs = new Map(result.workflow?.subtasks.map((s) => [s.id, s]) ?? []);
  return {
    status: result.status,
    planVersion: result.planVersion,
    calls: result.calls,
    tasks: result.tasks.map((t) => ({
      id: t.id,
      status: t.status,
      attempts: t.attempts,
      output: outputs.get(t.id)?.output,
      objective: outputs.get(t.id)?.objective ?? '',
      dependsOn: t.dependsOn,
    })),
  };
}

/** Starts `weft run` and kills it with SIGKILL after its `lines`-th progress line; resolves when it is gone. */
function runAndKill(home: string, lines: number): Promise<{ killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'run', TASK, '--model', SIM, '--home', home, '--json'],
      {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let seen = 0;
    let killed = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      seen += chunk.split('\n').filter((line) => line.startsWith('[')).length;
      if (!killed && seen >= lines) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', () => resolve({ killed }));
  });
}

/** Kills `points` runs at seeded points (the first `points` of one seeded sequence) and checks each resume. */
export async function crashSweep(points: number): Promise<void> {
  const referenceHome = mkdtempSync(join(tmpdir(), 'weft-crash-ref-'));
  const referenceStore = await openRunStore({ home: referenceHome });
  const reference = finalState(
    await runTask({ task: TASK, model: await createModel(SIM), store: referenceStore, home: referenceHome }),
  );
  await referenceStore.close();
  expect(reference.status).toBe('completed');
  // The seed must exercise repairs and re-prompts, or the test proves little.
  expect(reference.planVersion).toBeGreaterThan(1);

  const random = randomFrom('crash-points', 1);
  let interrupted = 0;
  for (let point = 0; point < points; point++) {
    const home = mkdtempSync(join(tmpdir(), 'weft-crash-'));
    const lines = integerSample(random, 1, 45);
    const { killed } = await runAndKill(home, lines);
    const store = await openRunStore({ home });
    try {
      const runs = await store.listRuns();
      if (runs.length === 0) continue; // killed before the run was recorded: nothing to resume, nothing lost
      const runId = runs[0]!.runId;
      const before = await runEvents(store, runId);
      const finished = runs[0]!.status !== 'running';
      if (!finished) interrupted += 1;
      const result = finished
        ? undefined
        : await resumeRun({ runId, model: await createModel(SIM), store, home }).result.catch((error: unknown) => {
            throw new Error(
              `point ${point} (killed after ${lines} lines): resume failed: ${error instanceof Error ? error.message : String(error)}`,
              { cause: error },
            );
          });
      const after = await runEvents(store, runId);

      // No output lost: every subtask accepted before the crash is completed at the end with the same output.
      const acceptedBefore = acceptedOutputs(before);
      const final = result ? finalState(result) : undefined;
      for (const [id, output] of acceptedBefore) {
        const task = final?.tasks.find((t) => t.id === id);
        if (final && task && task.objective === objectiveAt(before, id)) {
          expect(task.status, `point ${point} (${lines} lines): ${id}`).toBe('completed');
          expect(task.output).toBe(output);
        }
      }
      // No completed subtask runs again: after a subtask's acceptance, it starts again only under a new objective.
      expect(restartsAfterAcceptance(after), `point ${point}`).toEqual([]);
      // No recorded call is repeated.
      expect(repeatedCalls(after), `point ${point}`).toEqual([]);
      if (final) expect(final, `point ${point} killed after ${lines} lines (killed: ${killed})`).toEqual(reference);
    } finally {
      await store.close();
    }
  }
  // Most points must really interrupt a run, or the test proves little.
  expect(interrupted).toBeGreaterThanOrEqual(points / 2);
}

export function acceptedOutputs(events: readonly WeftEvent[]): Map<string, string> {
  const outputs = new Map<string, string>();
  const pending = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'task-end' && event.output !== undefined && event.outcome === undefined)
      pending.set(`${event.taskId}#${event.attempt}`, event.output);
    if (event.type === 'task-verify' && event.verdict === 'accept') {
      const output = pending.get(`${event.taskId}#${event.attempt}`);
      if (output !== undefined) outputs.set(event.taskId, output);
    }
  }
  return outputs;
}

export function objectiveAt(events: readonly WeftEvent[], id: string): string | undefined {
  let objective: string | undefined;
  for (const event of events) {
    if (event.type === 'plan-chosen' || event.type === 'plan-update')
      objective = event.workflow.subtasks.find((s) => s.id === id)?.objective;
  }
  return objective;
}

export function restartsAfterAcceptance(events: readonly WeftEvent[]): string[] {
  const accepted = new Map<string, string | undefined>(); // id → objective when accepted
  const objectives = new Map<string, string>();
  const problems: string[] = [];
  for (const event of events) {
    if (event.type === 'plan-chosen' || event.type === 'plan-update') {
      for (const subtask of event.workflow.subtasks) objectives.set(subtask.id, subtask.objective);
    }
    if (event.type === 'task-verify' && event.verdict === 'accept')
      accepted.set(event.taskId, objectives.get(event.taskId));
    if (
      event.type === 'task-start' &&
      accepted.has(event.taskId) &&
      accepted.get(event.taskId) === objectives.get(event.taskId)
    ) {
      problems.push(`${event.taskId} attempt ${event.attempt} started after it was accepted`);
    }
  }
  return problems;
}

export function repeatedCalls(events: readonly WeftEvent[]): string[] {
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const event of events) {
    if (event.type !== 'model-call' || event.error !== undefined || event.sequence === undefined) continue;
    const key = JSON.stringify([event.purpose, event.key, event.attempt, event.sequence]);
    if (seen.has(key)) repeated.push(key);
    seen.add(key);
  }
  return repeated;
}
