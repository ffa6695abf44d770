/** `weft resume <runId>`: continue an interrupted or cancelled run where its log ends. */
import {
  defaultRoleKinds,
  createQueueRunner,
  formatError,
  mayHaveRedactedCredentials,
  resumeRun,
  toolCallCount,
  WeftError,
  type Budget,
  type ToolSet,
} from '../../internal.js';
import { budgetErrorJson, watchRunBudget } from '../budget-stop.js';
import { loadContext, loadModel, openStore, modelMaker, runNotFound } from '../context.js';
import { isolationLimits } from '../distill/isolation-limits.js';
import { loadRunTools } from '../load-run-tools.js';
import type { Output, Streams } from '../output.js';
import { createProgressView } from './progress.js';
import { printResult, printResumeHint, printTaskMeasures, printToolWarnings, runJson } from './run-command.js';

export interface ResumeFlags {
  readonly model?: string;
  readonly home?: string;
  readonly workers?: string;
  /** The tools file to use instead of the one the run was started with (e.g. moved). */
  readonly tools?: string;
  readonly json?: boolean;
}

export async function resumeCommand(
  runId: string,
  flags: ResumeFlags,
  output: Output,
  streams: Streams,
  signal: AbortSignal,
): Promise<number> {
  const context = await loadContext(flags);
  const { home, config } = context;
  // Reach Redis first, so an unreachable one fails fast and the run stays as it was.
  const queue = flags.workers ? await createQueueRunner({ redisUrl: flags.workers, field: '--workers' }) : undefined;
  const store = await openStore(context).catch(async (error: unknown) => {
    await queue?.close();
    throw error;
  });
  const progress = createProgressView(streams.stderr, { live: streams.stderr.isTTY === true });
  let toolSet: ToolSet | undefined;
  try {
    const run = await store.getRun(runId);
    if (!run) throw runNotFound(runId, context);
    // The run continues with the model it was started with unless --model says otherwise. A spec whose URL had
    // credentials was stored without them, so it cannot be used as stored.
    if (flags.model === undefined && mayHaveRedactedCredentials(run.model)) {
      throw new WeftError(
        'BAD_INPUT',
        `Run "${runId}" used ${run.model}, whose credentials are not stored: pass the spec again with --model`,
        { location: { field: '--model' } },
      );
    }
    const { model, costOf } = await loadModel(flags.model ?? run.model, config);
    // The run's tools come from the files it was started with (recorded absolute), unless --tools names another
    // tools file.
    const recorded = run.options as { toolsFile?: unknown; planToolsFile?: unknown };
    const toolsFile = flags.tools ?? (typeof recorded.toolsFile === 'string' ? recorded.toolsFile : undefined);
    const planFile = typeof recorded.planToolsFile === 'string' ? recorded.planToolsFile : undefined;
    toolSet = (await loadRunTools({ toolsFile, planFile }, signal, isolationLimits({}, config))).toolSet;
    const budgetWatch = watchRunBudget(progress.onEvent);
    const result = await resumeRun({
      runId,
      model,
      store,
      home,
      costOf,
      signal,
      onEvent: budgetWatch.onEvent,
      roles: { createModel: modelMaker(config), kinds: defaultRoleKinds() },
      base: process.cwd(),
      ...(toolSet ? { tools: { available: toolSet.tools } } : {}),
      ...(queue ? { attemptRunner: queue.attemptRunner } : {}),
    });
    progress.close();
    // The run's own budgets, as it was started with them (a resume takes no budget flags).
    const budget = (run.options as { budget?: Budget }).budget ?? {};
    const budgetError = budgetWatch.error(result.status, budget);
    if (output.json)
      output.document({ ...runJson(result), ...(budgetError ? { error: budgetErrorJson(budgetError) } : {}) });
    else {
      output.text(`run ${result.runId}: ${result.status}${result.reason ? ` (${result.reason})` : ''}`);
      output.text(
        `plan v${result.planVersion}, ${result.tasks.filter((t) => t.status === 'completed').length}/${result.tasks.length} subtasks completed; ${result.calls} calls in all${result.toolCalls > 0 ? `, ${toolCallCount(result.toolCalls, result.toolCallsFailed)}` : ''}`,
      );
      printToolWarnings(result, output);
      printTaskMeasures(result, output);
      output.text(`report: ${result.runDir}/report.md`);
      printResult(result, output);
    }
    if (budgetError) output.log(`weft: ${formatError(budgetError)}; the run is kept (weft show ${result.runId})`);
    printResumeHint(result, output);
    return result.status === 'completed' ? 0 : 1;
  } finally {
    await toolSet?.close();
    await queue?.close();
    await store.close();
  }
}
