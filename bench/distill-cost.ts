/**
 * The cost saved by distillation (the distillation benchmark, imported by bench/distill.bench.ts): for each task, the model
 * calls and tokens to solve N instances with the execute agent, one agent run per instance, against distilling once
 * (execute on the train inputs, summarize) and running the workflow N times, which makes no model call at all.
 * Written against the suite harness's injected stages, so it runs with fakes today and with the real stages once
 * suite-stages.ts is wired. N instances are the task's test inputs, cycled.
 */
import { fileURLToPath } from 'node:url';
import { startBusinessApi } from '../examples/business-api/business-api.js';
import { loadSuite } from '../src/distill/load-suite.js';
import { openSuiteTools } from '../src/distill/open-suite-tools.js';
import { simModel } from '../src/llm/sim-model.js';
import type { ReportRow } from './report.js';
import {
  countingModel,
  type EvaluateSuiteOptions,
  runSuiteTask,
  type SuiteStagesFactory,
} from '../src/distill/evaluate-suite.js';
import { withDistillSim } from '../src/distill/distill-sim.js';
import type { SuiteTask } from '../src/distill/load-suite.js';
import { runWorkflow } from '../src/distill/run-workflow.js';
import type { DistillVariant } from '../src/distill/stage-types.js';
import type { StageUsage } from '../src/distill/suite-metrics.js';
import { sameJson } from '../src/text/same-json.js';
import { suiteStages } from '../src/distill/suite-stages.js';
import type { ChatModel, ChatResult } from '../src/llm/chat-model.js';
import type { Tool } from '../src/tools/tool.js';

const SUITE_DIR = fileURLToPath(new URL('../examples/distill-suite', import.meta.url));

export interface CostSavedOptions {
  readonly tasks: readonly SuiteTask[];
  readonly model: ChatModel;
  readonly toolsFor: (task: SuiteTask) => readonly Tool[];
  /** Instances per task (default 100). */
  readonly instances?: number;
  /** The ES variant whose execute stage solves and whose summarize stage distils (default es-pe). */
  readonly variant?: Extract<DistillVariant, 'es-pe' | 'es-react'>;
  /** Default: the real stages (suite-stages.ts). */
  readonly stages?: SuiteStagesFactory;
  readonly costOf?: (result: ChatResult) => number;
  readonly signal?: AbortSignal;
}

export interface TaskCostSaved {
  readonly task: string;
  readonly instances: number;
  /** The execute agent on every instance. */
  readonly solveEach: StageUsage & { readonly solved: number };
  /** Execute on the train inputs and summarize, once. */
  readonly distilOnce: StageUsage;
  /** The workflow on every instance: model calls (0), and how many outputs matched where the answer is known. */
  readonly execEach: {
    readonly llmCalls: number;
    readonly correct: number;
    readonly errors: number;
    readonly ms: number;
  };
  /** Set when distilling failed: the workflow side has nothing to run. */
  readonly error?: string;
}

export interface CostSaved {
  readonly simulated: boolean;
  readonly tasks: readonly TaskCostSaved[];
  readonly total: {
    readonly solveEach: StageUsage;
    readonly distilOnce: StageUsage;
    readonly execLlmCalls: number;
    /** Calls and tokens the workflow route saved (solve N minus distil once). */
    readonly savedCalls: number;
    readonly savedTokens: number;
  };
}

export async function measureCostSaved(options: CostSavedOptions): Promise<CostSaved> {
  const instances = options.instances ?? 100;
  const variant = options.variant ?? 'es-pe';
  const stages = options.stages ?? suiteStages;
  const signal = options.signal ?? new AbortController().signal;
  const results: TaskCostSaved[] = [];
  for (const task of options.tasks) {
    const cases = Array.from({ length: instances }, (_, index) => task.tests[index % task.tests.length]!);
    const tools = options.toolsFor(task);

    const solver = countingModel(withDistillSim(options.model, task.reference), options.costOf);
    const execute = stages(solver.model, variant).execute;
    if (!execute) throw new Error(`the ${variant} variant has no execute stage`);
    let solved = 0;
    for (const test of cases) {
      const trace = await execute(test.input, test.expected, { task, tools, signal });
      if (trace.success) solved += 1;
    }

    const harness: EvaluateSuiteOptions = {
      model: options.model,
      stages,
      variants: [variant],
      toolsFor: options.toolsFor,
      ...(options.costOf ? { costOf: options.costOf } : {}),
    };
    const made = await runSuiteTask(task, variant, harness, signal);
    const distilled = made.evaluation;
    const execEach = { llmCalls: 0, correct: 0, errors: 0, ms: 0 };
    if (made.workflow && distilled.graphValid) {
      const started = performance.now();
      for (const test of cases) {
        try {
          const run = await runWorkflow(made.workflow, { tools, input: test.input, signal });
          execEach.llmCalls += run.llmCalls;
          if (sameJson(run.output, test.expected)) execEach.correct += 1;
        } catch {
          execEach.errors += 1;
        }
      }
      execEach.ms = performance.now() - started;
    }
    results.push({
      task: task.name,
      instances,
      solveEach: { ...solver.usage(), solved },
      distilOnce: distilled.usage,
      execEach,
      ...(distilled.error !== undefined
        ? { error: distilled.error }
        : distilled.graphValid
          ? {}
          : { error: 'the distilled graph is invalid' }),
    });
  }
  const sum = (pick: (task: TaskCostSaved) => StageUsage): StageUsage =>
    results.reduce(
      (total, task) => {
        const usage = pick(task);
        return {
          calls: total.calls + usage.calls,
          inputTokens: total.inputTokens + usage.inputTokens,
          outputTokens: total.outputTokens + usage.outputTokens,
          costUsd: total.costUsd + usage.costUsd,
        };
      },
      { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
    );
  const solveEach = sum((task) => task.solveEach);
  const distilOnce = sum((task) => task.distilOnce);
  const tokens = (usage: StageUsage) => usage.inputTokens + usage.outputTokens;
  return {
    simulated: options.model.kind !== 'real',
    tasks: results,
    total: {
      solveEach,
      distilOnce,
      execLlmCalls: results.reduce((total, task) => total + task.execEach.llmCalls, 0),
      savedCalls: solveEach.calls - distilOnce.calls,
      savedTokens: tokens(solveEach) - tokens(distilOnce),
    },
  };
}

/** Instances per task in `npm run bench -- distill`'s cost section. */
const BENCH_INSTANCES = 50;

/**
 * The cost section of `npm run bench -- distill`: the whole shipped suite (examples/distill-suite, the business API
 * started in this process) with the sim model, N instances per task solved one agent run each, against distilling
 * once (ES-P&E) and running the workflow N times. Simulated: the sim's calls and estimated tokens, labelled so.
 */
export async function costSavedSection(): Promise<{ rows: ReportRow[]; notes: string[] }> {
  const api = await startBusinessApi({ port: 0 });
  const suite = await loadSuite(SUITE_DIR);
  const tools = await openSuiteTools(suite.tasks, { env: { ...process.env, BUSINESS_API_URL: api.url } });
  try {
    const measured = await measureCostSaved({
      tasks: suite.tasks,
      model: simModel('seed=1'),
      toolsFor: tools.toolsFor,
      instances: BENCH_INSTANCES,
    });
    const { total } = measured;
    const tokens = (usage: StageUsage) => usage.inputTokens + usage.outputTokens;
    const instances = measured.tasks.reduce((sum, task) => sum + task.instances, 0);
    const correct = measured.tasks.reduce((sum, task) => sum + task.execEach.correct, 0);
    const failed = measured.tasks.filter((task) => task.error !== undefined);
    return {
      rows: [
        { label: `model calls: solve each of ${instances} instances with the agent`, value: total.solveEach.calls },
        {
          label: 'model calls: distil once per task (execute on train inputs, summarize)',
          value: total.distilOnce.calls,
        },
        { label: 'model calls: run the distilled workflows on every instance', value: total.execLlmCalls },
        {
          label: 'calls ratio: solve each / (distil once + exec each)',
          value: total.solveEach.calls / Math.max(1, total.distilOnce.calls + total.execLlmCalls),
          unit: 'x',
        },
        { label: 'tokens: solve each', value: tokens(total.solveEach) },
        { label: 'tokens: distil once', value: tokens(total.distilOnce) },
        {
          label: 'tokens ratio: solve each / distil once',
          value: tokens(total.solveEach) / Math.max(1, tokens(total.distilOnce)),
          unit: 'x',
        },
        { label: 'instances the workflows answered exactly', value: correct / Math.max(1, instances), unit: 'share' },
      ],
      notes: [
        `simulated (sim model, estimated tokens): ${suite.tasks.length} tasks of examples/distill-suite, ${BENCH_INSTANCES} instances each (their tests, cycled)`,
        ...(failed.length > 0
          ? [`distilling failed for ${failed.map((task) => `${task.task} (${task.error})`).join(', ')}`]
          : []),
      ],
    };
  } finally {
    await tools.close();
    await api.close();
  }
}
