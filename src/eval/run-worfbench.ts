/**
 * The WorfBench benchmark runner: asks a model for a workflow for each gold record, either with the
 * single-shot two-shot prompt or with Weft's K-candidate planner, writes each prediction as it finishes,
 * resumes where an earlier run stopped, then scores everything with WorfEval.
 *
 * Files in `outDir`: `bench.json` (model and planner, checked on resume so two setups never mix),
 * `predictions.jsonl` (one line per record, see predictions-writer.ts) and `scores.json` (the `weft eval`
 * report). A rerun skips every record with a successful line and tries failed ones again. A model error for one
 * record is written as that record's result (empty output, `error`); an abort writes nothing for the records in
 * flight; a user error (bad configuration) stops the run, since every other record would fail the same way.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAbortError, isUserError, WeftError } from '../errors.js';
import type { ChatModel } from '../llm/chat-model.js';
import { createMeter } from '../runtime/budget.js';
import { uncountRefused } from '../runtime/uncount-refused.js';
import { meteredModel } from '../runtime/metered-model.js';
import { recordScopedModel } from './record-scoped-model.js';
import type { EvalReport } from './eval-report.js';
import { evaluatePredictions } from './evaluate.js';
import type { GoldRecord } from './gold-data.js';
import { parseWorkflowText } from './parse-workflow-text.js';
import { planAsWorkflowText } from './plan-as-workflow-text.js';
import { readPredictions } from './predictions-file.js';
import { openPredictionsWriter, type PredictionLine } from './predictions-writer.js';
import type { ScoreOptions } from './sample-score.js';
import { scoreWithSimilarity } from './score-workflow.js';
import type { Similarity } from './similarity.js';
import { worfbenchCall } from './worfbench-prompt.js';
import { redactModelSpec } from '../llm/model-spec.js';
import { boundedMap } from '../runtime/bounded-map.js';
import { integerOption } from '../integer-option.js';

export type WorfbenchPlanner = 'single' | 'weft';

export interface WorfbenchProgress {
  /** Records with a prediction (resumed ones included), of `total`. */
  readonly done: number;
  readonly total: number;
  readonly generated: number;
  readonly resumed: number;
  readonly errors: number;
  readonly calls: number;
  readonly elapsedMs: number;
  /** From the pace of this run so far; undefined before the first record finishes. */
  readonly etaMs?: number;
  /** Running means over the records generated in this run (only with a lexical similarity: it is free). */
  readonly meanF1Chain?: number;
  readonly meanF1Graph?: number;
}

export interface RunWorfbenchOptions {
  /** Gold records in file order; the first `limit` are run. */
  readonly records: readonly GoldRecord[];
  readonly model: ChatModel;
  readonly planner: WorfbenchPlanner;
  /** K for the `weft` planner (default 3). */
  readonly candidates?: number;
  /** Records in flight at once. */
  readonly concurrency: number;
  readonly outDir: string;
  readonly limit?: number;
  readonly similarity: Similarity;
  readonly scoreOptions?: ScoreOptions;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: WorfbenchProgress) => void;
}

export interface WorfbenchRunResult {
  readonly outDir: string;
  readonly predictionsFile: string;
  /** Undefined when the run was cancelled before scoring. */
  readonly scoresFile?: string;
  readonly planner: WorfbenchPlanner;
  readonly candidates: number;
  /** Records selected (the first `limit`). */
  readonly records: number;
  /** Predictions made by this run (errors included). */
  readonly generated: number;
  /** Records whose prediction an earlier run had already written. */
  readonly resumed: number;
  /** Records whose generation failed in this run (written with `error` and an empty output). */
  readonly errors: number;
  /** Calls and tokens of this run. */
  readonly calls: number;
  readonly tokens: { readonly input: number; readonly output: number };
  /** Mean calls per record over every selected record that has a prediction (resumed ones included). */
  readonly callsPerRecord: number;
  readonly cancelled: boolean;
  readonly report?: EvalReport;
}

export const DEFAULT_WORFBENCH_CANDIDATES = 3;

export async function runWorfbench(options: RunWorfbenchOptions): Promise<WorfbenchRunResult> {
  const concurrency = integerOption(options.concurrency, 'concurrency', { min: 1 });
  const candidates = integerOption(options.candidates ?? DEFAULT_WORFBENCH_CANDIDATES, 'candidates', { min: 1 });
  if (options.limit !== undefined) integerOption(options.limit, 'limit', { min: 0 });
  const selected = options.limit === undefined ? options.records : options.records.slice(0, options.limit);
  await mkdir(options.outDir, { recursive: true });
  await claimOutDir(options.outDir, {
    model: redactModelSpec(options.model.id),
    planner: options.planner,
    ...(options.planner === 'weft' ? { candidates } : {}),
  });
  const writer = await openPredictionsWriter(join(options.outDir, 'predictions.jsonl'));
  const todo = selected.filter((record) => !writer.existing.has(record.id));
  const resumed = selected.length - todo.length;

  const written: PredictionLine[] = [];
  const live = options.similarity.kind === 'lexical' ? { f1Chain: 0, f1Graph: 0, count: 0 } : undefined;
  let errors = 0;
  let calls = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  const started = performance.now();
  const report = () => {
    const elapsedMs = performance.now() - started;
    const generated = written.length;
    options.onProgress?.({
      done: resumed + generated,
      total: selected.length,
      generated,
      resumed,
      errors,
      calls,
      elapsedMs,
      ...(generated > 0 ? { etaMs: (elapsedMs / generated) * (todo.length - generated) } : {}),
      ...(live && live.count > 0
        ? { meanF1Chain: live.f1Chain / live.count, meanF1Graph: live.f1Graph / live.count }
        : {}),
    });
  };

  // Run by the bounded map, which stops on Ctrl-C and on an error no other record can get past (a bad model
  // configuration), and whose signal every call in flight listens to (K per record with the weft planner).
  const generateOne = async (record: GoldRecord, signal: AbortSignal): Promise<void> => {
    if (signal.aborted) return;
    // Counting is metering without a limit: the K-candidate planner costs K calls a record, the baseline one.
    const meter = createMeter();
    // A call the caller's budget refused (a command's --max-calls) was not made: not counted for the record.
    const counted = meteredModel(uncountRefused(recordScopedModel(options.model, record.id), meter), {
      budget: {},
      meter,
      now: () => 0,
      costOf: () => 0,
      // The caller's model is traced already (the CLI's tracedModel).
      trace: false,
    });
    const begin = performance.now();
    let output = '';
    let failure: { error: unknown } | undefined;
    try {
      output =
        options.planner === 'single'
          ? (await counted.generate(worfbenchCall(record), signal)).text
          : (await planAsWorkflowText({ task: record.task, model: counted, candidates, signal })).text;
    } catch (caught) {
      failure = { error: caught };
    }
    calls += meter.calls;
    inputTokens += meter.inputTokens;
    outputTokens += meter.outputTokens;
    // An abort is not an answer: the record stays unwritten and a rerun does it.
    if (failure && (signal.aborted || isAbortError(failure.error))) return;
    if (failure && isUserError(failure.error)) throw failure.error;
    const error = failure
      ? failure.error instanceof Error
        ? failure.error.message
        : String(failure.error)
      : undefined;
    const line: PredictionLine = {
      id: record.id,
      output,
      planner: options.planner,
      model: redactModelSpec(options.model.id),
      calls: meter.calls,
      tokens: { input: meter.inputTokens, output: meter.outputTokens },
      durationMs: Math.round(performance.now() - begin),
      ...(error !== undefined ? { error } : {}),
    };
    await writer.append(line);
    if (error === undefined && live) await addLiveScore(live, record, output, options);
    // From here to the report nothing awaits, so each report counts exactly the records finished before it.
    written.push(line);
    if (error !== undefined) errors += 1;
    report();
  };
  try {
    await boundedMap(todo, { concurrency, ...(options.signal ? { signal: options.signal } : {}) }, generateOne);
  } catch (error) {
    // Cancelled: what finished is written; the result says cancelled and nothing is scored.
    if (!(options.signal?.aborted && isAbortError(error))) throw error;
  }

  const byId = new Map<string, PredictionLine>(writer.existing);
  for (const line of written) byId.set(line.id, line);
  const predictions = selected.flatMap((record) => {
    const line = byId.get(record.id);
    return line ? [line] : [];
  });
  const common = {
    outDir: options.outDir,
    predictionsFile: writer.path,
    planner: options.planner,
    candidates: options.planner === 'weft' ? candidates : 1,
    records: selected.length,
    generated: written.length,
    resumed,
    errors,
    calls,
    tokens: { input: inputTokens, output: outputTokens },
    callsPerRecord:
      predictions.length === 0 ? 0 : predictions.reduce((sum, line) => sum + line.calls, 0) / predictions.length,
  };
  if (options.signal?.aborted) return { ...common, cancelled: true };

  // Scored from the file as written, so skip reasons point at its lines; other ids in it (an earlier run with a
  // larger limit) are left out.
  const wanted = new Set(selected.map((record) => record.id));
  const file = await readPredictions(writer.path);
  const evaluation = await evaluatePredictions({
    gold: selected,
    predictions: file.predictions.filter((prediction) => wanted.has(prediction.id)),
    skipped: file.skipped.filter((skip) => skip.id !== undefined && wanted.has(skip.id)),
    file: writer.path,
    similarity: options.similarity,
    ...(options.scoreOptions !== undefined ? { options: options.scoreOptions } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  const scoresFile = join(options.outDir, 'scores.json');
  await writeFile(scoresFile, `${JSON.stringify(evaluation, null, 2)}\n`);
  return { ...common, scoresFile, cancelled: false, report: evaluation };
}

async function addLiveScore(
  live: { f1Chain: number; f1Graph: number; count: number },
  record: GoldRecord,
  output: string,
  options: Pick<RunWorfbenchOptions, 'similarity' | 'scoreOptions'>,
): Promise<void> {
  live.count += 1;
  const parsed = parseWorkflowText(output);
  if (!parsed.ok) return;
  const score = await scoreWithSimilarity(
    record.workflow,
    parsed.workflow,
    options.similarity,
    options.scoreOptions ?? {},
  );
  live.f1Chain += score.f1_chain;
  live.f1Graph += score.f1_graph;
}

interface BenchMeta {
  readonly model: string;
  readonly planner: WorfbenchPlanner;
  readonly candidates?: number;
}

/**
 * Records which model and planner own the folder; a rerun with another setup is refused rather than mixing
 * two setups' predictions in one score.
 */
async function claimOutDir(outDir: string, meta: BenchMeta): Promise<void> {
  const file = join(outDir, 'bench.json');
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text === undefined) {
    await writeFile(file, `${JSON.stringify(meta, null, 2)}\n`);
    return;
  }
  let recorded: Partial<BenchMeta> = {};
  try {
    recorded = JSON.parse(text) as Partial<BenchMeta>;
  } catch {
    throw new WeftError('BAD_INPUT', `${file} is not JSON; delete it (or the folder) to start over`, {
      location: { file },
    });
  }
  for (const field of ['model', 'planner', 'candidates'] as const) {
    if (recorded[field] !== meta[field]) {
      throw new WeftError(
        'BAD_INPUT',
        `the predictions in ${outDir} were made with ${field} ${JSON.stringify(recorded[field] ?? null)}, not ${JSON.stringify(meta[field] ?? null)}; choose another output folder or delete this one`,
        { location: { file, field } },
      );
    }
  }
}
