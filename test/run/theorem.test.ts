/**
 * Theorem 3.1 (docs/algorithms.md#expected-completion) reproduced by the executor: `strategy: 'none'` (a failed subtask
 * blocks its descendants) with the sim model's verifier failing each subtask with probability p. The sim's draw for a
 * subtask is seeded by (seed, 'verify', id, attempt), so different seeds give independent failures and,
 * within one seed, a subtask passes or fails the same way in both graphs of a pair.
 */
import { describe, expect, it } from 'vitest';
import { expectedCompleted, toWorkflowJson, workflowFromJson, type Workflow } from '../../src/graph/index.js';
import { simModel } from '../../src/llm/sim-model.js';
import { execute } from '../../src/run/execution.js';
import { workflowOf } from '../graph/workflow-fixtures.js';

const SEEDS = 300;
const P = 0.3;

// a → c, b → d, {c, d} → e, f alone. The extra edge e → f gives f five new ancestors.
const lean = workflowOf({ a: [], b: [], c: ['a'], d: ['b'], e: ['c', 'd'], f: [] });
const dense = workflowFromJson({
  ...toWorkflowJson(lean),
  subtasks: toWorkflowJson(lean).subtasks.map((subtask) =>
    subtask.id === 'f' ? { ...subtask, dependsOn: ['e'] } : subtask,
  ),
});

async function completedIds(workflow: Workflow, seed: number): Promise<Set<string>> {
  const result = await execute({
    workflow,
    model: simModel(`fail=${P},seed=${seed}`),
    strategy: 'none',
    verify: true,
    emit: () => {},
  });
  return new Set(
    result.workflow.subtasks.filter((subtask) => subtask.status === 'completed').map((subtask) => subtask.id),
  );
}

function meanAndStandardError(samples: readonly number[]): { mean: number; standardError: number } {
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  const variance = samples.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (samples.length - 1);
  return { mean, standardError: Math.sqrt(variance / samples.length) };
}

describe('Theorem 3.1 in the simulator', () => {
  it('matches expectedCompleted within a few standard errors, and the extra dependency lowers it', async () => {
    const leanCounts: number[] = [];
    const denseCounts: number[] = [];
    let sourceFailures = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const leanDone = await completedIds(lean, seed);
      const denseDone = await completedIds(dense, seed);
      // Same seed, same draws: the dense graph completes a subset of what the lean one completes.
      for (const id of denseDone) expect(leanDone.has(id)).toBe(true);
      leanCounts.push(leanDone.size);
      denseCounts.push(denseDone.size);
      if (!leanDone.has('a')) sourceFailures += 1;
    }

    const expectedLean = expectedCompleted(lean, P);
    const expectedDense = expectedCompleted(dense, P);
    expect(expectedDense).toBeLessThan(expectedLean);

    const simulatedLean = meanAndStandardError(leanCounts);
    const simulatedDense = meanAndStandardError(denseCounts);
    expect(Math.abs(simulatedLean.mean - expectedLean)).toBeLessThan(4 * simulatedLean.standardError);
    expect(Math.abs(simulatedDense.mean - expectedDense)).toBeLessThan(4 * simulatedDense.standardError);

    const differences = meanAndStandardError(leanCounts.map((count, index) => count - (denseCounts[index] ?? 0)));
    expect(differences.mean).toBeGreaterThan(0);
    expect(Math.abs(differences.mean - (expectedLean - expectedDense))).toBeLessThan(4 * differences.standardError);

    // Seeds give independent draws: a source subtask fails at rate p across seeds.
    const sourceStandardError = Math.sqrt((P * (1 - P)) / SEEDS);
    expect(Math.abs(sourceFailures / SEEDS - P)).toBeLessThan(4 * sourceStandardError);
  });
});
