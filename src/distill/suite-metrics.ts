/**
 * The metrics of a distillation suite (the FlowMind paper's table, plus its white-box diagnostic): per task, then
 * per variant. Pure: evaluate-suite.ts gathers the facts, these functions count.
 *
 * - correct: the workflow returns exactly the expected output on every held-out test (the case pass rate, CRate,
 *   is the share of tasks that are correct);
 * - test pass rate (TRate): passed tests over all tests of the variant's tasks;
 * - execution completeness: every train input of the task has a successful trace among its rollouts (with one
 *   rollout, the paper's single execute pass: every train trace succeeded); the trace success rate counts every
 *   rollout;
 * - graph validity: the summarized graph has no error under the harness's own check (tools included);
 * - both: execution complete and graph valid;
 * - mixed-call rate: the share of tasks whose summarize stage called a business tool at least once;
 * - LLM calls at exec time: model calls made while the workflow ran its tests (must be 0);
 * - stage usage: model calls, tokens and cost of execute and summarize;
 * - WorfEval: f1_chain and f1_graph of the workflow against the task's reference (score-against-reference.ts),
 *   averaged over the tasks that have one.
 */
import type { WorfColumn } from './score-against-reference.js';
import type { DistillVariant } from './stage-types.js';

export interface StageUsage {
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

export const NO_USAGE: StageUsage = { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };

export function addUsage(a: StageUsage, b: StageUsage): StageUsage {
  return {
    calls: a.calls + b.calls,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}

export interface TestCaseResult {
  readonly index: number;
  readonly ok: boolean;
  readonly output?: unknown;
  readonly error?: string;
}

/** The facts gathered for one task under one variant. */
export interface TaskEvaluation {
  readonly task: string;
  readonly category?: string;
  readonly variant: DistillVariant;
  /** Train inputs the execute stage solved (a baseline solves the first only). */
  readonly trainInputs: number;
  /** Traces per train input (`--rollouts`; 1 for a baseline). */
  readonly rollouts: number;
  /** Train inputs with at least one successful trace. */
  readonly solvedInputs: number;
  readonly trainTraces: number;
  readonly successfulTraces: number;
  /** Every train input solved (solvedInputs = trainInputs). */
  readonly executionComplete: boolean;
  /** The trace ids the summarizer got (the selection's choice; a baseline summarizes nothing). */
  readonly selectedTraces?: readonly string[];
  /** The summarizer said it finished. */
  readonly finished: boolean;
  readonly graphValid: boolean;
  /** The check's errors on the graph (at most a few), for the report. */
  readonly graphErrors: readonly string[];
  readonly mixedCalls: number;
  readonly graphCalls: number;
  readonly tests: number;
  readonly passed: number;
  readonly passRate: number;
  readonly correct: boolean;
  readonly cases: readonly TestCaseResult[];
  /** Model calls made while the workflow ran on the tests. */
  readonly execLlmCalls: number;
  readonly usage: StageUsage;
  /** WorfEval of the workflow against the task's reference; absent without a reference (or see `worfError`). */
  readonly worf?: WorfColumn;
  /** Why a task with a reference has no WorfEval score. */
  readonly worfError?: string;
  /** A stage failed (threw): the task counts as failed, the suite goes on. */
  readonly error?: string;
}

export interface VariantSummary {
  readonly variant: DistillVariant;
  readonly tasks: number;
  readonly correct: number;
  /** CRate: correct tasks over tasks. */
  readonly caseRate: number;
  readonly tests: number;
  readonly passed: number;
  /** TRate: passed tests over tests. */
  readonly testPassRate: number;
  readonly executionCompleteness: number;
  /** Successful traces over all traces of the variant's tasks (every rollout counted). */
  readonly traceSuccessRate: number;
  readonly graphValidity: number;
  readonly both: number;
  readonly mixedCallRate: number;
  readonly mixedCalls: number;
  readonly execLlmCalls: number;
  readonly usage: StageUsage;
  /** Means of the tasks' WorfEval scores over the `scored` tasks (null when none has a score). */
  readonly worf: (WorfColumn & { readonly scored: number }) | null;
  /** Tasks whose stage threw. */
  readonly errors: number;
}

/** Test-level numbers of one task from its case results. */
export function testScore(
  cases: readonly TestCaseResult[],
  tests: number,
): {
  passed: number;
  passRate: number;
  correct: boolean;
} {
  const passed = cases.filter((result) => result.ok).length;
  return { passed, passRate: tests === 0 ? 0 : passed / tests, correct: tests > 0 && passed === tests };
}

export function summarizeVariant(variant: DistillVariant, tasks: readonly TaskEvaluation[]): VariantSummary {
  const n = tasks.length;
  const share = (test: (task: TaskEvaluation) => boolean) => (n === 0 ? 0 : tasks.filter(test).length / n);
  const tests = tasks.reduce((sum, task) => sum + task.tests, 0);
  const passed = tasks.reduce((sum, task) => sum + task.passed, 0);
  const correct = tasks.filter((task) => task.correct).length;
  const traces = tasks.reduce((sum, task) => sum + task.trainTraces, 0);
  const scored = tasks.flatMap((task) => (task.worf ? [task.worf] : []));
  const mean = (pick: (score: WorfColumn) => number) =>
    scored.reduce((sum, score) => sum + pick(score), 0) / scored.length;
  return {
    variant,
    tasks: n,
    correct,
    caseRate: n === 0 ? 0 : correct / n,
    tests,
    passed,
    testPassRate: tests === 0 ? 0 : passed / tests,
    executionCompleteness: share((task) => task.executionComplete),
    traceSuccessRate: traces === 0 ? 0 : tasks.reduce((sum, task) => sum + task.successfulTraces, 0) / traces,
    graphValidity: share((task) => task.graphValid),
    both: share((task) => task.executionComplete && task.graphValid),
    mixedCallRate: share((task) => task.mixedCalls > 0),
    mixedCalls: tasks.reduce((sum, task) => sum + task.mixedCalls, 0),
    execLlmCalls: tasks.reduce((sum, task) => sum + task.execLlmCalls, 0),
    usage: tasks.reduce((sum, task) => addUsage(sum, task.usage), NO_USAGE),
    worf:
      scored.length === 0
        ? null
        : {
            scored: scored.length,
            f1_chain: mean((score) => score.f1_chain),
            f1_graph: mean((score) => score.f1_graph),
          },
    errors: tasks.filter((task) => task.error !== undefined).length,
  };
}
