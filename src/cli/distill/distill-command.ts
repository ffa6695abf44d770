/**
 * `weft distill TRACE_ID... --tools T --model M --out workflow.json`: the summarize stage. The traces come
 * from the store, or from `--traces FILE` (what `weft traces show --json` prints); `--selection` picks among them;
 * the model gets only the graph tools. A finished workflow is written to `--out`; an unfinished one (no accepted
 * `finish` within `--max-steps`) goes to `<out without .json>.partial.json` with exit 1. `--model
 * sim:reference=FILE` makes the sim emit that workflow through the graph tools. The budget flags bound the whole
 * command: a spent budget writes the graph so far as the partial workflow and ends with the BUDGET error.
 */
import { existsSync } from 'node:fs';
import {
  type AgentStrategy,
  DEFAULT_DISTILL_MAX_STEPS,
  displayTraceId,
  distillTraces,
  isTraceId,
  loadToolsFile,
  loadWorkflowFile,
  parseSimOptions,
  readTracesFile,
  selectTraces,
  TRACE_SELECTIONS,
  type NewTrace,
  type TraceSelection,
  type TraceStore,
  type ToolSet,
  toolArgsRedactor,
  traceAgent,
  tracedModel,
  WeftError,
  withDistillSim,
  type WorkflowProblem,
} from '../../internal.js';
import { budgetErrorJson, budgetJson, budgetScopeOf, endBudget } from '../budget-stop.js';
import { type CommonFlags, loadContext, loadModel, openExistingStore, requireValue, storePlace } from '../context.js';
import { choiceFlag, integerFlag } from '../flags.js';
import { checkOutFile, writeOutFile } from '../out-file.js';
import type { Output } from '../output.js';
import type { BudgetFlags } from '../budget-options.js';

interface DistillFlags extends CommonFlags, BudgetFlags {
  readonly tools?: string;
  readonly out?: string;
  readonly strategy?: string;
  readonly selection?: string;
  readonly seed?: string;
  readonly traces?: string;
  readonly maxSteps?: string;
}

export async function distillCommand(
  traceIds: readonly string[],
  flags: DistillFlags,
  output: Output,
  signal: AbortSignal,
): Promise<number> {
  const out = requireValue(flags.out, '--out');
  const toolsPath = requireValue(flags.tools, '--tools');
  const strategy = choiceFlag<AgentStrategy>('strategy', flags.strategy, ['react', 'plan-execute']) ?? 'plan-execute';
  const selection = choiceFlag<TraceSelection>('selection', flags.selection, TRACE_SELECTIONS) ?? 'random_success';
  const seed = integerFlag('seed', flags.seed) ?? 1;
  const maxSteps = integerFlag('max-steps', flags.maxSteps, { min: 1 }) ?? DEFAULT_DISTILL_MAX_STEPS;
  if (flags.traces !== undefined && traceIds.length > 0) {
    throw new WeftError('BAD_INPUT', 'give trace ids or --traces FILE, not both', { location: { field: '--traces' } });
  }
  const badId = traceIds.find((traceId) => !isTraceId(traceId));
  if (badId !== undefined) {
    // Checked before the store is opened; shown quoted and cut (an id is echoed to the terminal).
    throw new WeftError(
      'BAD_INPUT',
      `${displayTraceId(badId)} is not a trace id: ids look like t-20260101-120000-1a2b3c4d (see weft traces)`,
      { location: { field: '<traceIds>' } },
    );
  }
  if (flags.traces === undefined && traceIds.length === 0) {
    throw new WeftError('BAD_INPUT', 'give the trace ids to summarize (see `weft traces`), or --traces FILE', {
      location: { field: '<traceIds>' },
    });
  }
  // Before any model call: a summary that cannot be written is work lost, and the inputs must survive it.
  const inputs = [
    ...(flags.traces !== undefined ? [{ flag: '--traces', path: flags.traces }] : []),
    { flag: '--tools', path: toolsPath },
  ];
  // Checked with the other flags, before any file is read; the wall time starts here.
  const scope = budgetScopeOf(flags);
  await checkOutFile(out, '--out', inputs);
  await checkOutFile(partialPath(out), '--out', inputs);
  const context = await loadContext(flags);
  const traces =
    flags.traces !== undefined ? await readTracesFile(flags.traces) : await storedTraces(traceIds, context);
  const selected = selectTraces(traces, selection, seed);
  const loaded = await loadModel(flags.model, context.config);
  // The sim summarizes by emitting a reference workflow: its own `reference=` option names the file.
  const reference =
    loaded.model.kind === 'sim' ? parseSimOptions(loaded.model.id.replace(/^sim:/, '')).reference : undefined;
  if (loaded.model.kind === 'sim' && reference === undefined) {
    throw new WeftError(
      'BAD_INPUT',
      'the sim summarizer emits a reference workflow: give it with --model sim:reference=FILE',
      {
        location: { field: '--model' },
      },
    );
  }
  const simulated = withDistillSim(
    loaded.model,
    reference !== undefined ? (await loadWorkflowFile(reference)).workflow : undefined,
  );
  const tools = await openTools(toolsPath, signal);
  // With tracing on: a `chat` span per call under one `invoke_agent summarizer` span, the graph tools' calls in it.
  const traced = tracedModel(simulated, { costOf: loaded.costOf, redactToolArgs: toolArgsRedactor(tools.tools) });
  const model = scope ? scope.metered(traced, (result) => loaded.costOf(result, loaded.model.id)) : traced;
  try {
    const result = await traceAgent(
      {
        agent: 'summarizer',
        attributes: {
          'weft.command': 'distill',
          'weft.distill.traces': selected.length,
          'weft.distill.strategy': strategy,
        },
      },
      () =>
        distillTraces({
          model,
          traces: selected,
          tools: tools.tools,
          strategy,
          maxSteps,
          signal,
          // Ctrl-C or SIGTERM: the graph so far is written as the partial workflow, not lost.
          keepOnAbort: true,
        }),
      (distilled) => ({
        'weft.distill.finished': distilled.finished,
        'weft.distill.valid': distilled.valid,
        'weft.calls': distilled.usage.calls,
        'gen_ai.usage.input_tokens': distilled.usage.inputTokens,
        'gen_ai.usage.output_tokens': distilled.usage.outputTokens,
      }),
    );
    const written = result.finished ? out : partialPath(out);
    await writeOutFile(written, `${JSON.stringify(result.workflow, null, 2)}\n`, '--out');
    const errors = result.problems.filter((problem) => problem.severity === 'error').length;
    const budgetError = endBudget(scope, output, `the graph so far is in ${written}`);
    if (output.json) {
      output.document({
        out: written,
        finished: result.finished,
        valid: result.valid,
        problems: result.problems.map(shown),
        mixedCalls: result.mixedCalls,
        graphCalls: result.graphCalls,
        steps: result.steps,
        usage: { ...result.usage, costUsd: costOf(loaded, result.usage) },
        traces: selected.map((trace) => trace.traceId),
        ...budgetJson(scope),
        // A spent budget ends the command: its located error, as any command's.
        ...(budgetError ? { error: budgetErrorJson(budgetError) } : result.error ? { error: result.error } : {}),
        ...(model.kind === 'sim' ? { simulated: true } : {}),
      });
    } else {
      for (const problem of result.problems) output.text(`${written}: ${problem.severity}: ${problemText(problem)}`);
      const counts = `${result.workflow.nodes.length} nodes, ${result.workflow.edges.length} edges; ${result.graphCalls} graph calls, ${result.mixedCalls} mixed calls, ${result.steps} model calls${model.kind === 'sim' ? ' (simulated)' : ''}`;
      if (result.finished) output.text(`wrote ${written} (${counts})`);
      else {
        output.text(`wrote the partial graph to ${written} (${counts}; ${errors} errors)`);
        if (!budgetError)
          output.log(`weft distill: the workflow is unfinished: ${result.error ?? 'finish was never accepted'}`);
      }
    }
    return result.finished && !budgetError ? 0 : 1;
  } finally {
    scope?.close();
    await tools.close();
  }
}

async function storedTraces(
  traceIds: readonly string[],
  context: Awaited<ReturnType<typeof loadContext>>,
): Promise<NewTrace[]> {
  const store = await openExistingStore(context);
  try {
    const traceStore = store as unknown as Partial<TraceStore> | undefined;
    if (store && typeof traceStore?.getTrace !== 'function') {
      throw new WeftError('STORE', `the store ${storePlace(context)} does not keep traces; use --traces FILE`);
    }
    const traces: NewTrace[] = [];
    for (const traceId of traceIds) {
      const trace = traceStore?.getTrace ? await traceStore.getTrace(traceId) : undefined;
      if (!trace) {
        throw new WeftError('NOT_FOUND', `No trace "${traceId}" in ${storePlace(context)} (see \`weft traces\`)`, {
          location: { field: '<traceIds>' },
        });
      }
      traces.push(trace);
    }
    return traces;
  } finally {
    await store?.close();
  }
}

async function openTools(path: string, signal: AbortSignal): Promise<ToolSet> {
  if (!existsSync(path)) throw new WeftError('BAD_INPUT', `no tools file ${path}`, { location: { field: '--tools' } });
  return loadToolsFile(path, { signal });
}

/** `workflow.json` → `workflow.partial.json`; other names get `.partial.json` added. */
export function partialPath(out: string): string {
  return /\.json$/i.test(out) ? out.replace(/\.json$/i, '.partial.json') : `${out}.partial.json`;
}

function costOf(loaded: Awaited<ReturnType<typeof loadModel>>, usage: { inputTokens: number; outputTokens: number }) {
  return loaded.costOf({ text: '', usage, model: loaded.model.id }, loaded.model.id);
}

function problemText(problem: WorkflowProblem): string {
  return `${problem.node ? `[${problem.node}] ` : ''}${problem.path ? `${problem.path}: ` : ''}${problem.message}`;
}

function shown(problem: WorkflowProblem) {
  return {
    severity: problem.severity,
    path: problem.path ?? null,
    ...(problem.node ? { node: problem.node } : {}),
    message: problem.message,
  };
}
