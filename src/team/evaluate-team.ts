/**
 * Accuracy and cost of a team on a dataset (`weft team eval`, docs/algorithms.md#team-evaluation): each item runs
 * through the engine, its answer is compared with the expected one by `answersAgree`, and calls are counted — DyLAN's
 * efficiency measure is API calls per query.
 *
 * Decisions:
 * - An item's kind is `answerKind` when given, else `choice` with choices and `exact` without (teamQueryOf).
 * - Items run `concurrency` at a time (default 4); `perItem` keeps the dataset's order. An item whose run fails
 *   (e.g. a provider error left after retries) is recorded with its error and counted as wrong, and the others
 *   go on: one bad call should not lose a long evaluation, and dropping the item would inflate the accuracy.
 *   Its calls are unknown (the run did not finish), so calls per query and the mean stop step are over the
 *   finished items. An abort (Ctrl-C) stops the evaluation, which then reports the items finished so far and
 *   says it was cancelled.
 * - Code items with tests are correct when the team's code passes every test in the code runner's sandbox: a
 *   reference solution is only one of many correct programs, and BLEU against it would misjudge the others.
 *   Other items (and code without tests) are compared with `answersAgree`.
 * - With no items every rate is 0 (the dataset reader never returns an empty dataset).
 */
import { isAbortError } from '../errors.js';
import { answersAgree } from './answers-agree.js';
import { runCandidate, type SandboxLimits } from './code-runner.js';
import { boundedMap } from '../runtime/bounded-map.js';
import type { TeamRunSettings } from './optimize-team.js';
import { runTeam, type Ranker } from './run-team.js';
import { teamQueryOf, type TeamDatasetItem } from './team-dataset.js';
import type { AnswerKind, TeamAgent, TeamResult } from './team.js';

export interface EvaluateTeamOptions {
  readonly agents: readonly TeamAgent[];
  readonly ranker?: Ranker;
  readonly items: readonly TeamDatasetItem[];
  readonly options?: TeamRunSettings;
  /** The team file's `answerKind`, when it sets one. */
  readonly answerKind?: AnswerKind;
  readonly taskType?: string;
  /** Items run at once. Default 4. */
  readonly concurrency?: number;
  /** Limits of the sandbox that checks code answers against their tests. */
  readonly sandbox?: SandboxLimits;
  readonly signal?: AbortSignal;
  /** After each item, in completion order. */
  readonly onProgress?: (progress: {
    readonly done: number;
    readonly total: number;
    readonly item: EvaluatedItem;
  }) => void;
}

export interface EvaluatedItem {
  readonly id: string;
  readonly answer: string;
  readonly expected: string;
  readonly correct: boolean;
  readonly calls: number;
  readonly stoppedAt: number;
  /** `failed`: the run did not finish (see `error`); `calls` and `stoppedAt` are then 0. */
  readonly stopReason: TeamResult['stopReason'] | 'failed';
  /** For code items with tests: how the final answer did. */
  readonly tests?: { readonly passed: number; readonly total: number };
  /** Why the run failed. */
  readonly error?: string;
}

export interface TeamEvaluation {
  /** correct / total. */
  readonly accuracy: number;
  readonly correct: number;
  readonly total: number;
  /** calls / finished items. */
  readonly callsPerQuery: number;
  readonly calls: number;
  /** Items stopped by the consensus rule (stopReason `consensus`, also when reached at the last step). */
  readonly earlyStops: number;
  /** Mean of the step each finished item stopped at. */
  readonly meanStop: number;
  /** Items whose run failed (counted as wrong). */
  readonly failed: number;
  /** Responses whose ratings were replaced by equal weights, and ranker answers that fell back. */
  readonly ratingFallbacks: number;
  readonly rankerFallbacks: number;
  /** In the dataset's order; after a cancel, the finished items only. */
  readonly perItem: EvaluatedItem[];
  /** Set when the signal aborted: every figure above is over the `finished` items of `of`. */
  readonly cancelled?: { readonly finished: number; readonly of: number };
}

export async function evaluateTeam(options: EvaluateTeamOptions): Promise<TeamEvaluation> {
  const { agents, ranker, items, answerKind, taskType } = options;
  // Kept as they finish, so that a cancelled evaluation still reports what it measured.
  const finishedByIndex = new Map<number, { result?: TeamResult; evaluated: EvaluatedItem }>();
  let cancelled: TeamEvaluation['cancelled'];
  let done = 0;
  const results = await boundedMap(
    items,
    { concurrency: options.concurrency ?? 4, ...(options.signal ? { signal: options.signal } : {}) },
    async (item, signal, index): Promise<{ result?: TeamResult; evaluated: EvaluatedItem }> => {
      let outcome: { result?: TeamResult; evaluated: EvaluatedItem };
      try {
        const query = teamQueryOf(item, answerKind, taskType);
        const result = await runTeam({ ...options.options, agents, query, ...(ranker ? { ranker } : {}), signal });
        const tests =
          query.kind === 'code' && item.tests !== undefined
            ? await runCandidate(result.answer, item.tests, { ...options.sandbox, signal }).then((report) =>
                report.total > 0 ? { passed: report.passed, total: report.total } : undefined,
              )
            : undefined;
        outcome = { result, evaluated: evaluated(item, query.kind, result, tests) };
      } catch (error) {
        if (isAbortError(error) || signal.aborted) throw error;
        outcome = { evaluated: failedItem(item, error) };
      }
      finishedByIndex.set(index, outcome);
      options.onProgress?.({ done: ++done, total: items.length, item: outcome.evaluated });
      return outcome;
    },
  ).catch((error: unknown) => {
    if (!(isAbortError(error) || options.signal?.aborted)) throw error;
    cancelled = { finished: finishedByIndex.size, of: items.length };
    return [...finishedByIndex].sort(([a], [b]) => a - b).map(([, outcome]) => outcome);
  });

  const perItem = results.map((outcome) => outcome.evaluated);
  const total = perItem.length;
  const failed = perItem.filter((item) => item.error !== undefined).length;
  const finished = total - failed;
  const correct = perItem.filter((item) => item.correct).length;
  const calls = perItem.reduce((sum, item) => sum + item.calls, 0);
  const ratio = (value: number, of: number): number => (of === 0 ? 0 : value / of);
  return {
    accuracy: ratio(correct, total),
    correct,
    total,
    callsPerQuery: ratio(calls, finished),
    calls,
    earlyStops: perItem.filter((item) => item.stopReason === 'consensus').length,
    meanStop: ratio(
      perItem.reduce((sum, item) => sum + item.stoppedAt, 0),
      finished,
    ),
    failed,
    ratingFallbacks: results.reduce((sum, { result }) => sum + (result?.ratingFallbacks ?? 0), 0),
    rankerFallbacks: results.reduce((sum, { result }) => sum + (result?.rankerFallbacks ?? 0), 0),
    perItem,
    ...(cancelled ? { cancelled } : {}),
  };
}

function failedItem(item: TeamDatasetItem, error: unknown): EvaluatedItem {
  const message = error instanceof Error ? error.message : String(error);
  return {
    id: item.id,
    answer: '',
    expected: item.answer,
    correct: false,
    calls: 0,
    stoppedAt: 0,
    stopReason: 'failed',
    error: message,
  };
}

function evaluated(
  item: TeamDatasetItem,
  kind: AnswerKind,
  result: TeamResult,
  tests: EvaluatedItem['tests'],
): EvaluatedItem {
  return {
    id: item.id,
    answer: result.answer,
    expected: item.answer,
    correct: tests ? tests.passed === tests.total : answersAgree(result.answer, item.answer, kind),
    calls: result.calls,
    stoppedAt: result.stoppedAt,
    stopReason: result.stopReason,
    ...(tests ? { tests } : {}),
  };
}
