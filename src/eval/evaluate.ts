/**
 * WorfEval over a predictions file: each prediction is parsed and scored against its gold record, and the scores
 * are averaged overall, by scenario and by source. A prediction that cannot be scored (unknown or repeated id,
 * unusable workflow text) is skipped with a located reason; the evaluation itself never stops for one.
 */
import { boundedMap } from '../runtime/bounded-map.js';
import { integerOption } from '../integer-option.js';
import { compareGroups, scenarioGroupOf } from './scenarios.js';
import type { EvalReport, GroupScore, SampleReport } from './eval-report.js';
import type { GoldRecord } from './gold-data.js';
import { parseWorkflowText } from './parse-workflow-text.js';
import {
  locatedReason,
  type Prediction,
  type PredictionSkipProblem,
  type SkippedPrediction,
} from './predictions-file.js';
import { DEFAULT_BETA, DEFAULT_MAX_ORDERS, DEFAULT_MCIS_TIME_LIMIT_MS, type ScoreOptions } from './sample-score.js';
import { scoreWithSimilarity } from './score-workflow.js';
import type { Similarity } from './similarity.js';
import type { WorkflowText } from './workflow-text.js';

/**
 * Samples scored at once. Embedding similarities gather the texts of concurrent samples into batched requests;
 * a lexical similarity answers at once, so the number does not slow it down.
 */
export const DEFAULT_EVAL_CONCURRENCY = 16;

export interface EvaluateInput {
  readonly gold: readonly GoldRecord[];
  readonly predictions: readonly Prediction[];
  readonly similarity: Similarity;
  readonly options?: ScoreOptions;
  /** Lines already skipped while reading the file (readPredictions); counted and listed with the others. */
  readonly skipped?: readonly SkippedPrediction[];
  /** The predictions file, to locate skip reasons by `file:line`. */
  readonly file?: string;
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  /** Called after each scored sample, with the number of samples to score. */
  readonly onProgress?: (done: number, total: number) => void;
}

interface Job {
  readonly prediction: Prediction;
  readonly gold: GoldRecord;
  readonly workflow: WorkflowText;
}

export async function evaluatePredictions(input: EvaluateInput): Promise<EvalReport> {
  const { similarity, signal } = input;
  const options = {
    beta: input.options?.beta ?? DEFAULT_BETA,
    maxOrders: input.options?.maxOrders ?? DEFAULT_MAX_ORDERS,
    mcisTimeLimitMs: input.options?.mcisTimeLimitMs ?? DEFAULT_MCIS_TIME_LIMIT_MS,
  };
  const goldById = new Map(input.gold.map((record) => [record.id, record]));
  const skips: SkippedPrediction[] = [...(input.skipped ?? [])];
  const jobs: Job[] = [];
  const firstLine = new Map<string, number>();

  for (const prediction of input.predictions) {
    const skip = (problem: PredictionSkipProblem, message: string, field?: string) => {
      skips.push({
        line: prediction.line,
        id: prediction.id,
        reason: locatedReason(message, { file: input.file, line: prediction.line, field }),
        problem,
        ...(field === undefined ? {} : { field }),
      });
    };
    const gold = goldById.get(prediction.id);
    if (!gold) {
      skip('unknown-id', `no gold record with id "${prediction.id}"`, 'id');
      continue;
    }
    const earlier = firstLine.get(prediction.id);
    if (earlier !== undefined) {
      skip('duplicate-id', `duplicate id "${prediction.id}": line ${earlier} already has a prediction for it`, 'id');
      continue;
    }
    firstLine.set(prediction.id, prediction.line);
    const parsed = parseWorkflowText(prediction.output);
    if (!parsed.ok) {
      const issue = parsed.issues[0];
      if (!issue) {
        skip('bad-edge', 'the workflow text is not usable', 'output');
      } else if (issue.problem === 'empty') {
        skip(
          'empty',
          prediction.error === undefined ? issue.message : `${issue.message} (generation failed: ${prediction.error})`,
          'output',
        );
      } else {
        skip(issue.problem, `${issue.message} (line ${issue.line}, column ${issue.column} of the output)`, 'output');
      }
      continue;
    }
    jobs.push({ prediction, gold, workflow: parsed.workflow });
  }

  if (similarity.kind === 'embedding' && jobs.length > 0) {
    // Embedding similarities cache by text: asking for every distinct text once up front lets them send full
    // batches, where sample by sample they would send a handful of texts per request.
    const texts = new Set(jobs.flatMap((job) => [...job.gold.workflow.nodes, ...job.workflow.nodes]));
    await similarity.matrix([...texts], [], signal);
  }

  // Rejected like every engine's concurrency (never quietly turned into 1), before any sample is scored.
  const concurrency = integerOption(input.concurrency ?? DEFAULT_EVAL_CONCURRENCY, 'concurrency', { min: 1 });
  // Aborted before scoring: the caller's own reason, as it gave it.
  signal?.throwIfAborted();
  let done = 0;
  const samples = await boundedMap(
    jobs,
    { concurrency, ...(signal ? { signal } : {}) },
    async (job, jobSignal): Promise<SampleReport> => {
      const score = await scoreWithSimilarity(job.gold.workflow, job.workflow, similarity, {
        ...options,
        signal: jobSignal,
      });
      const sample: SampleReport = {
        id: job.prediction.id,
        f1_chain: score.f1_chain,
        f1_graph: score.f1_graph,
        p_chain: score.p_chain,
        r_chain: score.r_chain,
        p_graph: score.p_graph,
        r_graph: score.r_graph,
        matched: score.matched,
        chainLength: score.chainLength,
        graphNodes: score.graphNodes,
        goldNodes: job.gold.workflow.nodes.length,
        predictedNodes: job.workflow.nodes.length,
        mcisExact: score.mcisExact,
        scenario: scenarioGroupOf(job.gold.source),
        source: job.gold.source,
        line: job.prediction.line,
      };
      input.onProgress?.(++done, jobs.length);
      return sample;
    },
  );

  skips.sort((a, b) => a.line - b.line);
  const scoredIds = new Set(samples.map((sample) => sample.id));
  const named = new Set([
    ...input.predictions.map((prediction) => prediction.id),
    ...skips.flatMap((skip) => (skip.id === undefined ? [] : [skip.id])),
  ]);
  // Each gold record with prediction lines but no scored one counts once as 0.
  const zeroIds = new Set(
    skips.flatMap((skip) =>
      skip.id !== undefined && goldById.has(skip.id) && !scoredIds.has(skip.id) ? [skip.id] : [],
    ),
  );
  const zeroCount = samples.length + zeroIds.size;

  return {
    count: samples.length,
    skipped: skips.length,
    f1_chain: mean(samples, 'f1_chain'),
    f1_graph: mean(samples, 'f1_graph'),
    byScenario: groupScores(samples, (sample) => sample.scenario),
    samples,
    similarity: similarity.name,
    beta: options.beta,
    maxOrders: options.maxOrders,
    mcisTimeLimitMs: options.mcisTimeLimitMs,
    bySource: groupScores(samples, (sample) => sample.source),
    skips,
    missing: input.gold.filter((record) => !named.has(record.id)).length,
    withSkipsAsZero: {
      count: zeroCount,
      f1_chain: zeroCount === 0 ? 0 : sum(samples, 'f1_chain') / zeroCount,
      f1_graph: zeroCount === 0 ? 0 : sum(samples, 'f1_graph') / zeroCount,
    },
    mcisTimeLimitHits: samples.filter((sample) => !sample.mcisExact).map((sample) => sample.id),
  };
}

function groupScores(
  samples: readonly SampleReport[],
  groupOf: (sample: SampleReport) => string,
): Record<string, GroupScore> {
  const groups = new Map<string, SampleReport[]>();
  for (const sample of samples) {
    const key = groupOf(sample);
    const group = groups.get(key);
    if (group) group.push(sample);
    else groups.set(key, [sample]);
  }
  const result: Record<string, GroupScore> = {};
  for (const key of [...groups.keys()].sort(compareGroups)) {
    const group = groups.get(key) ?? [];
    result[key] = { count: group.length, f1_chain: mean(group, 'f1_chain'), f1_graph: mean(group, 'f1_graph') };
  }
  return result;
}

function sum(samples: readonly SampleReport[], key: 'f1_chain' | 'f1_graph'): number {
  let total = 0;
  for (const sample of samples) total += sample[key];
  return total;
}

function mean(samples: readonly SampleReport[], key: 'f1_chain' | 'f1_graph'): number {
  return samples.length === 0 ? 0 : sum(samples, key) / samples.length;
}
