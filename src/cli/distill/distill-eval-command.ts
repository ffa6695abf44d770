/**
 * `weft distill eval --suite DIR --model M [--variant V|all] [--task NAME…] [--selection R] [--rollouts N]
 * [--max-visits N] [--time-limit MS] [--worker-memory MB] [--jobs N] [--concurrency N] [--out DIR] [--json]`: for each task of the suite, execute on its train
 * inputs, summarize the traces into a workflow, run the workflow on the held-out tests with no model, score it
 * against the task's reference with WorfEval, and report per task and overall. Each test case runs in a worker
 * thread with `weft exec`'s hard limits (the time and memory flags, or the config's keys), as do the suite's
 * workflow tools: a hostile model-written workflow fails its case alone; `--out` keeps every task run's
 * workflow, traces and case results (eval-out-folder.ts). Bad suites, tools files, flags and `--out` folders are
 * exit 2 before any model call; Ctrl-C gives the report of the tasks that finished. The budget flags bound the whole
 * suite: a spent budget gives the report of the tasks that finished and ends with the BUDGET error.
 */
import {
  evaluateSuite,
  formatError,
  MAX_ROLLOUTS,
  formatSuiteReport,
  loadSuite,
  openSuiteTools,
  redactModelSpec,
  SUITE_SELECTIONS,
  SUITE_VARIANTS,
  type SuiteReport,
  type SuiteStagesFactory,
  suiteStages,
  traceWorkflow,
  WeftError,
} from '../../internal.js';
import { budgetErrorJson, reportBudgetStop } from '../budget-stop.js';
import { loadContext, loadModel } from '../context.js';
import { prepareEvalFolder, type TaskRunFiles, writeEvalReport, writeTaskRun } from './eval-out-folder.js';
import { choiceFlag, integerFlag } from '../flags.js';
import { type IsolationFlags, type IsolationLimits, isolationLimits } from './isolation-limits.js';
import type { Output } from '../output.js';
import { BUDGET_FLAG_FIELDS, budgetFromFlags } from '../run-choices.js';
import { progressLogger } from '../team/team-command-support.js';
import type { BudgetFlags } from '../budget-options.js';

export interface DistillEvalFlags extends BudgetFlags, IsolationFlags {
  readonly suite?: string;
  readonly model?: string;
  readonly variant?: string;
  readonly task?: readonly string[];
  readonly selection?: string;
  readonly rollouts?: string;
  readonly maxVisits?: string;
  readonly out?: string;
  readonly concurrency?: string;
  readonly home?: string;
  readonly json?: boolean;
}

export interface DistillEvalDependencies {
  /** The stages (default suite-stages.ts's real ones); tests inject fakes. */
  readonly stages?: SuiteStagesFactory;
  readonly env?: NodeJS.ProcessEnv;
}

export async function distillEvalCommand(
  flags: DistillEvalFlags,
  output: Output,
  signal: AbortSignal,
  dependencies: DistillEvalDependencies = {},
): Promise<number> {
  const env = dependencies.env ?? process.env;
  if (flags.suite === undefined)
    throw new WeftError('BAD_INPUT', '--suite is required', { location: { field: '--suite' } });
  const variants =
    flags.variant === 'all'
      ? SUITE_VARIANTS
      : [choiceFlag('variant', flags.variant, [...SUITE_VARIANTS, 'all']) ?? 'es-pe'].filter(
          (variant) => variant !== 'all',
        );
  const selection = choiceFlag('selection', flags.selection, SUITE_SELECTIONS);
  const concurrency = integerFlag('concurrency', flags.concurrency, { min: 1 });
  const rollouts = integerFlag('rollouts', flags.rollouts, { min: 1 });
  if (rollouts !== undefined && rollouts > MAX_ROLLOUTS)
    throw new WeftError('BAD_INPUT', `--rollouts expects at most ${MAX_ROLLOUTS}, got ${rollouts}`, {
      location: { field: '--rollouts' },
    });
  const maxVisits = integerFlag('max-visits', flags.maxVisits, { min: 1 });
  const budget = budgetFromFlags(flags);
  const suite = await loadSuite(flags.suite, { only: flags.task ?? [] });
  for (const warning of suite.warnings) output.log(`warning: ${place(warning)}${warning.message}`);
  const context = await loadContext(flags, env);
  const limits = isolationLimits(flags, context.config);
  // Each call is a `chat` span (evaluateSuite makes them), under the span below when tracing.
  const { model, costOf } = await loadModel(flags.model, context.config, env);
  const stages = dependencies.stages ?? suiteStages;
  // Tools are opened before any model call: a bad file or an unset BUSINESS_API_URL stops here (exit 2).
  const tools = await openSuiteTools(suite.tasks, { env, signal, workflowLimits: limits });
  const out = flags.out;
  // Keyed by variant and task: the report names each task run's files.
  const files = new Map<string, TaskRunFiles>();
  try {
    // Before any model call: a folder that cannot take the results is work lost.
    if (out !== undefined) await prepareEvalFolder(out);
    // The stages are made once up front so that a variant whose stages are missing fails here, not once per task.
    for (const variant of variants) stages(model, variant as (typeof SUITE_VARIANTS)[number]);
    const jobs = suite.tasks.length * variants.length;
    output.log(
      `evaluating ${suite.tasks.length} ${suite.tasks.length === 1 ? 'task' : 'tasks'} × ${variants.join(', ')} with ${redactModelSpec(model.id)}${model.kind === 'real' ? '' : ` (${model.kind} model)`}`,
    );
    const progress = progressLogger('distill eval', output);
    // With tracing on: one `invoke_workflow` span over every task and variant.
    const report = await traceWorkflow(
      {
        attributes: {
          'weft.command': 'distill eval',
          'weft.tasks': suite.tasks.length,
          'weft.variants': variants.join(','),
        },
      },
      () =>
        evaluateSuite(suite.tasks, {
          model,
          stages,
          variants: variants as (typeof SUITE_VARIANTS)[number][],
          toolsFor: tools.toolsFor,
          ...(selection !== undefined ? { selection } : {}),
          ...(concurrency !== undefined ? { concurrency } : {}),
          ...(rollouts !== undefined ? { rollouts } : {}),
          ...(maxVisits !== undefined ? { maxVisits } : {}),
          caseLimits: limits,
          costOf: (result) => costOf(result, model.id),
          ...(budget ? { budget, budgetFields: BUDGET_FLAG_FIELDS } : {}),
          signal,
          ...(out !== undefined
            ? {
                onTaskRun: async (run) =>
                  void files.set(fileKey(run.evaluation.variant, run.task.name), await writeTaskRun(out, run)),
              }
            : {}),
          onProgress: ({ done, evaluation }) => {
            if (evaluation.error !== undefined)
              output.log(`distill eval: ${evaluation.task} (${evaluation.variant}) failed: ${evaluation.error}`);
            progress(done, jobs, `${evaluation.task} (${evaluation.variant}) ${evaluation.passed}/${evaluation.tests}`);
          },
        }),
    );
    const document = reportDocument(report, {
      suite: flags.suite,
      model: redactModelSpec(model.id),
      selection: selection ?? 'random_success',
      rollouts: rollouts ?? 1,
      ...(maxVisits !== undefined ? { maxVisits } : {}),
      ...(Object.keys(limits).length > 0 ? { caseLimits: limits } : {}),
      ...(out !== undefined ? { out } : {}),
      files,
    });
    const budgetError = reportBudgetStop(report.budget, output, 'distill eval', 'task runs');
    if (out !== undefined) await writeEvalReport(out, document);
    if (output.json) output.document({ ...document, ...(budgetError ? { error: budgetErrorJson(budgetError) } : {}) });
    else {
      for (const line of formatSuiteReport(report)) output.text(line);
      if (out !== undefined) output.text(`wrote ${out}/report.json and each task run's files under ${out}/tasks`);
    }
    if (report.cancelled)
      output.log(
        `distill eval cancelled: the report covers the ${report.cancelled.finished} of ${report.cancelled.of} task runs that finished`,
      );
    if (budgetError) {
      output.log(`weft: ${formatError(budgetError)}`);
      return 1;
    }
    return report.cancelled || report.variants.some((summary) => summary.errors > 0) ? 1 : 0;
  } finally {
    await tools.close();
  }
}

/** The --json report (and --out's report.json): the numbers, the settings, and with --out each task run's files. */
function reportDocument(
  report: SuiteReport,
  settings: {
    readonly suite: string;
    readonly model: string;
    readonly selection: string;
    readonly rollouts: number;
    readonly maxVisits?: number;
    /** The test cases' hard limits, as the flags or the config gave them (absent: the defaults). */
    readonly caseLimits?: IsolationLimits;
    readonly out?: string;
    readonly files: ReadonlyMap<string, TaskRunFiles>;
  },
) {
  const { files, ...shown } = settings;
  return {
    ...shown,
    simulated: report.simulated,
    variants: report.variants,
    tasks: report.tasks.map((task) => {
      const written = files.get(fileKey(task.variant, task.task));
      return written ? { ...task, files: written } : task;
    }),
    ...(report.cancelled ? { cancelled: report.cancelled } : {}),
    ...(report.budget ? { budget: report.budget } : {}),
  };
}

const fileKey = (variant: string, task: string) => `${variant}\u0000${task}`;

function place(issue: { file?: string; line?: number; column?: number; field?: string }): string {
  const where = issue.file
    ? `${issue.file}${issue.line !== undefined ? `:${issue.line}:${issue.column ?? 1}` : ''}`
    : '';
  return `${where}${issue.field ? ` ${issue.field}` : ''}${where || issue.field ? ': ' : ''}`;
}
