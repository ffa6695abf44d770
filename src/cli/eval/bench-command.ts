/**
 * `weft bench worfbench --data <dir|file> --model M [--planner single|weft] [--candidates K] [--limit N]
 * [--concurrency N] [--out <dir>] [--similarity spec] [--json]`: generates a workflow for each WorfBench gold
 * record with the model (the single-shot prompt, or Weft's K-candidate planner), writes the predictions as it
 * goes, resumes where an earlier run stopped, and scores them with WorfEval.
 */
import { join } from 'node:path';
import {
  createSimilarity,
  DEFAULT_WORFBENCH_CANDIDATES,
  loadGold,
  redactModelSpec,
  runWorfbench,
  traceWorkflow,
  tracedModel,
  WeftError,
  type ChatModel,
  type WorfbenchPlanner,
  type WorfbenchProgress,
  type WorfbenchRunResult,
} from '../../internal.js';
import { budgetErrorJson, budgetJson, budgetScopeOf, commandBudget, endBudget } from '../budget-stop.js';
import { loadContext, loadModel, requireValue } from '../context.js';
import { choiceFlag, integerFlag } from '../flags.js';
import type { Output, Streams } from '../output.js';
import type { BudgetFlags } from '../budget-options.js';

export interface BenchWorfbenchFlags extends BudgetFlags {
  readonly data?: string;
  readonly model?: string;
  readonly planner?: string;
  readonly candidates?: string;
  readonly limit?: string;
  readonly concurrency?: string;
  readonly out?: string;
  readonly similarity?: string;
  readonly home?: string;
  readonly json?: boolean;
}

export const DEFAULT_BENCH_CONCURRENCY = 4;

export async function benchWorfbenchCommand(
  flags: BenchWorfbenchFlags,
  output: Output,
  streams: Streams,
  signal: AbortSignal,
): Promise<number> {
  // Every flag is checked before anything is loaded or written.
  const data = requireValue(flags.data, '--data');
  const planner = choiceFlag<WorfbenchPlanner>('planner', flags.planner, ['single', 'weft']) ?? 'single';
  const candidates = integerFlag('candidates', flags.candidates, { min: 1 });
  if (candidates !== undefined && planner !== 'weft') {
    throw new WeftError(
      'BAD_INPUT',
      '--candidates applies to --planner weft only (the single-shot baseline makes one call per record)',
      { location: { field: '--candidates' } },
    );
  }
  const limit = integerFlag('limit', flags.limit, { min: 1 });
  const concurrency = integerFlag('concurrency', flags.concurrency, { min: 1 }) ?? DEFAULT_BENCH_CONCURRENCY;
  if (flags.out !== undefined && flags.out.trim() === '')
    throw new WeftError('BAD_INPUT', '--out needs a folder path', { location: { field: '--out' } });
  const scope = budgetScopeOf(flags);
  try {
    return await bench(scope);
  } finally {
    // However the bench ends, the budget's timer stops with it.
    scope?.close();
  }

  async function bench(scope: ReturnType<typeof budgetScopeOf>): Promise<number> {
    // A spent budget stops the bench as a cancel does: the predictions so far are kept, and a rerun resumes.
    const budget = scope ? commandBudget(scope, signal) : undefined;
    const benchSignal = budget?.signal ?? signal;
    const { home, config } = await loadContext(flags);
    const records = await loadGold(data);
    const loaded = await loadModel(flags.model, config);
    // With tracing on, a `chat` span per call, under one `invoke_workflow` span over the bench (below).
    const traced = tracedModel(loaded.model, { costOf: loaded.costOf });
    const model = budget ? budget.charge(traced, (result) => loaded.costOf(result, loaded.model.id)) : traced;
    const k = candidates ?? DEFAULT_WORFBENCH_CANDIDATES;
    const outDir =
      flags.out ??
      join(
        home,
        'bench',
        'worfbench',
        `${modelSlug(redactModelSpec(model.id))}-${planner === 'weft' ? `weft-k${k}` : 'single'}`,
      );
    const similarity = await createSimilarity(flags.similarity ?? 'lexical', {
      corpus: records.flatMap((record) => record.workflow.nodes),
      cacheDir: join(home, 'cache', 'embeddings'),
    });
    output.log(
      `worfbench: ${describeModel(model)}, planner ${planner === 'weft' ? `weft (K=${k} candidates)` : 'single-shot'}, ` +
        `${limit === undefined ? records.length : Math.min(limit, records.length)} of ${records.length} record(s), similarity ${similarity.name}`,
    );
    if (model.kind !== 'real')
      output.log(`note: ${model.kind} model — these numbers measure Weft's pipeline, not a language model's planning`);
    const progress = progressReporter(streams.stderr);
    let result: WorfbenchRunResult;
    try {
      result = await traceWorkflow(
        {
          attributes: {
            'weft.command': 'bench worfbench',
            'weft.bench.planner': planner,
            'weft.items': records.length,
          },
        },
        () =>
          runWorfbench({
            records,
            model,
            planner,
            ...(planner === 'weft' ? { candidates: k } : {}),
            concurrency,
            outDir,
            ...(limit !== undefined ? { limit } : {}),
            similarity,
            signal: benchSignal,
            onProgress: progress.update,
          }),
      );
    } finally {
      progress.close();
      await similarity.close?.();
    }

    // Spent, not cancelled by the user: the BUDGET error, and the predictions so far kept for a resume.
    const budgetError = signal.aborted
      ? undefined
      : endBudget(
          scope,
          output,
          `${result.resumed + result.generated} of ${result.records} prediction(s) kept in ${result.predictionsFile}; run the same command with a larger budget to resume`,
        );
    const document = {
      out: result.outDir,
      planner,
      ...(planner === 'weft' ? { candidates: k } : {}),
      model: model.id,
      modelKind: model.kind,
      similarity: similarity.name,
      records: result.records,
      generated: result.generated,
      resumed: result.resumed,
      errors: result.errors,
      calls: result.calls,
      callsPerRecord: result.callsPerRecord,
      tokens: result.tokens,
      ...(result.cancelled && !budgetError ? { cancelled: true } : {}),
      report: result.report ?? null,
      ...budgetJson(scope),
      ...(budgetError ? { error: budgetErrorJson(budgetError) } : {}),
    };
    if (result.cancelled) {
      if (!budgetError)
        output.log(
          `cancelled: ${result.resumed + result.generated} of ${result.records} prediction(s) kept in ${result.predictionsFile}; run the same command again to resume`,
        );
      if (output.json) output.document(document);
      return 1;
    }
    if (output.json) {
      output.document(document);
      return 0;
    }
    printSummary(output, result, model);
    return 0;
  }
}

function printSummary(output: Output, result: WorfbenchRunResult, model: ChatModel): void {
  const report = result.report;
  output.text(
    `WorfBench with ${describeModel(model)}, planner ${result.planner === 'weft' ? `weft (K=${result.candidates})` : 'single-shot'}`,
  );
  output.text(
    `records ${result.records}: ${result.generated} generated, ${result.resumed} resumed, ${result.errors} error(s)`,
  );
  output.text(
    `calls ${result.calls} (${result.callsPerRecord.toFixed(2)} per record), tokens ${result.tokens.input} in / ${result.tokens.output} out`,
  );
  if (report) {
    output.text('');
    output.text(`scenario            count  f1_chain  f1_graph`);
    for (const [name, scenario] of Object.entries(report.byScenario)) {
      output.text(
        `${name.padEnd(18)} ${String(scenario.count).padStart(6)}  ${scenario.f1_chain.toFixed(4).padStart(8)}  ${scenario.f1_graph.toFixed(4).padStart(8)}`,
      );
    }
    output.text(
      `${'all'.padEnd(18)} ${String(report.count).padStart(6)}  ${report.f1_chain.toFixed(4).padStart(8)}  ${report.f1_graph.toFixed(4).padStart(8)}`,
    );
    if (report.skipped > 0)
      output.text(`${report.skipped} prediction(s) could not be read and scored 0 (see scores.json)`);
  }
  output.text('');
  output.text(`predictions: ${result.predictionsFile}`);
  if (result.scoresFile) output.text(`scores: ${result.scoresFile}`);
  if (model.kind !== 'real')
    output.text(`(${model.kind} model: pipeline numbers, not a measure of any language model)`);
}

/** `openai:gpt-4o-mini` → `openai-gpt-4o-mini`: a folder name from a model id. */
export function modelSlug(id: string): string {
  const slug = id
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|-+$/g, '');
  return (slug || 'model').slice(0, 80).replace(/-+$/, '');
}

function describeModel(model: ChatModel): string {
  const id = redactModelSpec(model.id);
  return model.kind === 'real' ? id : `${id} (${model.kind} model)`;
}

interface ProgressReporter {
  readonly update: (progress: WorfbenchProgress) => void;
  readonly close: () => void;
}

/** One redrawn line on a TTY; elsewhere a line every 10 % (and at the end). Always stderr. */
export function progressReporter(stream: Streams['stderr']): ProgressReporter {
  const live = stream.isTTY === true;
  let last: WorfbenchProgress | undefined;
  let lastDecile = -1;
  let timer: NodeJS.Timeout | undefined;
  let drawn = false;
  const draw = () => {
    timer = undefined;
    if (!last) return;
    const width = Math.max(40, (stream.columns ?? 100) - 1);
    stream.write(`\r\u001b[2K${progressLine(last).slice(0, width)}`);
    drawn = true;
  };
  return {
    update(progress) {
      last = progress;
      if (live) {
        timer ??= setTimeout(draw, 100);
        return;
      }
      const decile = progress.total === 0 ? 10 : Math.floor((progress.done / progress.total) * 10);
      if (decile > lastDecile) {
        lastDecile = decile;
        stream.write(`${progressLine(progress)}\n`);
      }
    },
    close() {
      if (timer) clearTimeout(timer);
      if (live && last) {
        draw();
        stream.write('\n');
      } else if (live && drawn) stream.write('\n');
    },
  };
}

export function progressLine(progress: WorfbenchProgress): string {
  const parts = [`worfbench ${progress.done}/${progress.total}`];
  if (progress.resumed > 0) parts.push(`${progress.resumed} resumed`);
  if (progress.errors > 0) parts.push(`${progress.errors} error(s)`);
  parts.push(`${progress.calls} calls`);
  if (progress.meanF1Chain !== undefined && progress.meanF1Graph !== undefined) {
    parts.push(`f1 chain ${progress.meanF1Chain.toFixed(3)} graph ${progress.meanF1Graph.toFixed(3)}`);
  }
  if (progress.etaMs !== undefined && progress.done < progress.total)
    parts.push(`ETA ${formatDuration(progress.etaMs)}`);
  return parts.join(' · ');
}

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
