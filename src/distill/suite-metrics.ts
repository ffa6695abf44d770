/**
 * The metrics of a distillation suite (SPEC §5.2, the FlowMind paper's table): per task, then per variant.
 * Pure: evaluate-suite.ts gathers the facts, these functions count.
 *
 * - correct: the workflow returns exactly the expected output on every held-out test (the case pass rate, CRate,
 *   is the share of tasks that are correct);
 * - test pass rate (TRate): passed tests over all tests of the variant's tasks;
 * - execution completeness: every train trace of the task succeeded;
 * - graph validity: the summarized graph has no error under the harness's own check (tools included);
 * - both: execution complete and graph valid;
 * - mixed-call rate: the share of tasks whose summarize stage called a business tool at least once;
 * - LLM calls at exec time: model calls made while the workflow ran its tests (must be 0);
 * - stage usage: model calls, tokens and cost of execute and summarize.
 */
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
  readonly trainTraces: number;
  readonly successfulTraces: number;
  readonly executionComplete: boolean;
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
  readonly graphValidity: number;
  readonly both: number;
  readonly mixedCallRate: number;
  readonly mixedCalls: number;
  readonly execLlmCalls: number;
  readonly usage: StageUsage;
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
  return {
    variant,
    tasks: n,
    correct,
    caseRate: n === 0 ? 0 : correct / n,
    tests,
    passed,
    testPassRate: tests === 0 ? 0 : passed / tests,
    executionCompleteness: share((task) => task.executionComplete),
    graphValidity: share((task) => task.graphValid),
    both: share((task) => task.executionComplete && task.graphValid),
    mixedCallRate: share((task) => task.mixedCalls > 0),
    mixedCalls: tasks.reduce((sum, task) => sum + task.mixedCalls, 0),
    execLlmCalls: tasks.reduce((sum, task) => sum + task.execLlmCalls, 0),
    usage: tasks.reduce((sum, task) => addUsage(sum, task.usage), NO_USAGE),
    errors: tasks.filter((task) => task.error !== undefined).length,
  };
}
