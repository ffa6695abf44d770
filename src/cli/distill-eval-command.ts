/**
 * `weft distill eval --suite DIR --model M [--variant V|all] [--task NAME…] [--concurrency N] [--json]` (issue 14,
 * SPEC §5.2): for each task of the suite, execute on its train inputs, summarize the traces into a workflow, run the
 * workflow on the held-out tests with no model, and report per task and overall. Bad suites, tools files and flags
 * are exit 2 before any model call; Ctrl-C gives the report of the tasks that finished.
 */
import {
  evaluateSuite,
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
} from '../index.js';
import { loadContext, loadModel } from './context.js';
import { choiceFlag, integerFlag } from './flags.js';
import type { Output } from './output.js';
import { progressLogger } from './team-command-support.js';

export interface DistillEvalFlags {
  readonly suite?: string;
  readonly model?: string;
  readonly variant?: string;
  readonly task?: readonly string[];
  readonly selection?: string;
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
  const suite = await loadSuite(flags.suite, { only: flags.task ?? [] });
  for (const warning of suite.warnings) output.log(`warning: ${place(warning)}${warning.message}`);
  const context = await loadContext(flags, env);
  // Each call is a `chat` span (evaluateSuite makes them), under the span below when tracing.
  const { model, costOf } = await loadModel(flags.model, context.config, env);
  const stages = dependencies.stages ?? suiteStages;
  // Tools are opened before any model call: a bad file or an unset BUSINESS_API_URL stops here (exit 2).
  const tools = await openSuiteTools(suite.tasks, { env, signal });
  try {
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
          costOf: (result) => costOf(result, model.id),
          signal,
          onProgress: ({ done, evaluation }) => {
            if (evaluation.error !== undefined)
              output.log(`distill eval: ${evaluation.task} (${evaluation.variant}) failed: ${evaluation.error}`);
            progress(done, jobs, `${evaluation.task} (${evaluation.variant}) ${evaluation.passed}/${evaluation.tests}`);
          },
        }),
    );
    if (output.json) output.document(reportDocument(report, flags.suite, redactModelSpec(model.id)));
    else for (const line of formatSuiteReport(report)) output.text(line);
    if (report.cancelled)
      output.log(
        `distill eval cancelled: the report covers the ${report.cancelled.finished} of ${report.cancelled.of} task runs that finished`,
      );
    return report.cancelled || report.variants.some((summary) => summary.errors > 0) ? 1 : 0;
  } finally {
    await tools.close();
  }
}

/** The report without the workflows (a `--json` reader wants the numbers; the workflows can be large). */
function reportDocument(report: SuiteReport, suite: string, model: string) {
  return {
    suite,
    model,
    simulated: report.simulated,
    variants: report.variants,
    tasks: report.tasks.map(({ workflow: _workflow, ...task }) => task),
    ...(report.cancelled ? { cancelled: report.cancelled } : {}),
  };
}

function place(issue: { file?: string; line?: number; column?: number; field?: string }): string {
  const where = issue.file
    ? `${issue.file}${issue.line !== undefined ? `:${issue.line}:${issue.column ?? 1}` : ''}`
    : '';
  return `${where}${issue.field ? ` ${issue.field}` : ''}${where || issue.field ? ': ' : ''}`;
}
