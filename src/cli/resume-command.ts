/** `weft resume <runId>`: continue an interrupted or cancelled run where its log ends. */
import { defaultRoleKinds, createQueueRunner, mayHaveRedactedCredentials, resumeRun, WeftError } from '../index.js';
import { loadContext, loadModel, openStore, modelMaker, runNotFound } from './context.js';
import type { Output, Streams } from './output.js';
import { createProgressView } from './progress.js';
import { printResult, runJson } from './run-command.js';

export interface ResumeFlags {
  readonly model?: string;
  readonly home?: string;
  readonly workers?: string;
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
    const result = await resumeRun({
      runId,
      model,
      store,
      home,
      costOf,
      signal,
      onEvent: progress.onEvent,
      createModel: modelMaker(config),
      roleKinds: defaultRoleKinds(),
      base: process.cwd(),
      ...(queue ? { attemptRunner: queue.attemptRunner } : {}),
    });
    progress.close();
    if (output.json) output.document(runJson(result));
    else {
      output.text(`run ${result.runId}: ${result.status}${result.reason ? ` (${result.reason})` : ''}`);
      output.text(
        `plan v${result.planVersion}, ${result.tasks.filter((t) => t.status === 'completed').length}/${result.tasks.length} subtasks completed; ${result.calls} calls in all`,
      );
      output.text(`report: ${result.runDir}/report.md`);
      printResult(result, output);
    }
    return result.status === 'completed' ? 0 : 1;
  } finally {
    await queue?.close();
    await store.close();
  }
}
