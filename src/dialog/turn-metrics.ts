/**
 * The numbers of `weft dialog eval`, pure, by two protocols side by side (docs/dialog-evaluation.md):
 *
 * Weft's:
 * - pass rate: turns the judge found consistent with the reference / turns judged.
 * - tool name and parameter precision/recall/F1, micro-averaged over every turn where the reference or the
 *   prediction is an API call (a call where the reference replied is a false positive, a reply where it called a
 *   false negative); parameters are `name=canonical JSON of the value` pairs of the top-level arguments. With no
 *   such turn both are 1 by convention (shown as not applicable).
 * - out of workflow: every move that answers a user message tagged out-of-workflow (the whole turn).
 *
 * The FlowAgent paper's (its authors' evaluation code), under `paper`:
 * - the judge's 1–10 score; a turn passes at 9 or more; pass rate over the turns; mean score = the mean over
 *   sessions of each session's mean score.
 * - tool name precision/recall/F1 micro-averaged over the turns as above, but 0 where a denominator is 0.
 * - parameters as the SET of argument values (names ignored; a string as written, any other value as its JSON
 *   text, so `"1"` and `1` are one value, as the authors' `str()` makes them), counted over the same turns.
 * - out of workflow: only the move right after the out-of-workflow user message.
 *
 * A turn whose prediction or judgement failed (`error`) is left out of every number and counted in `errors`.
 */
import type { DialogMoveSpec } from './dialog-prompt-tags.js';
import { canonicalJson } from '../text/canonical-json.js';
import {
  type MatchCounts,
  paperScores,
  scoresFromCounts,
  type Scores,
  setCounts,
  sumCounts,
} from './session-metrics.js';

export interface TurnReport {
  /** The reference session's id. */
  readonly session: string;
  /** Index of the reference move in the session's messages. */
  readonly index: number;
  /** The user turn it answers, from 1 (0: the bot moves before any user message). */
  readonly turn: number;
  /** `category/subtype` when the user message it answers was an out-of-workflow move. */
  readonly oow?: string;
  /** The move comes right after that out-of-workflow message (the paper counts only these as out of workflow). */
  readonly rightAfterOow?: boolean;
  readonly reference: DialogMoveSpec;
  readonly prediction?: DialogMoveSpec;
  readonly consistent: boolean;
  /** The judge's 1–10 score (the paper's verdict); absent when the turn failed. */
  readonly score?: number;
  readonly reason?: string;
  readonly error?: string;
}

export interface TurnSummary {
  /** Turns judged (errors excluded). */
  readonly turns: number;
  readonly errors: number;
  readonly passRate: number;
  /** Turns where the reference or the prediction is an API call: what `tool` and `params` count over (with none, both are 1 by convention: print them as not applicable). */
  readonly toolTurns: number;
  readonly tool: Scores;
  readonly params: Scores;
  /** The same turns by the paper's protocol. */
  readonly paper: PaperTurnSummary;
}

/** The FlowAgent paper's turn-level figures over a set of turns. */
export interface PaperTurnSummary {
  /** Turns scored 9 or more / turns judged. */
  readonly passRate: number;
  /** The mean over sessions of each session's mean score; 0 with no turn. */
  readonly meanScore: number;
  readonly toolPrecision: number;
  readonly toolRecall: number;
  readonly toolF1: number;
  readonly paramsPrecision: number;
  readonly paramsRecall: number;
  readonly paramsF1: number;
  readonly toolCounts: MatchCounts;
  readonly paramsCounts: MatchCounts;
}

/** The paper's pass mark on its 1–10 scale. */
export const PAPER_PASS_SCORE = 9;

/** `name=value` pairs of a move's arguments; none for a reply or arguments that are not an object. */
export function paramPairs(move: DialogMoveSpec | undefined): string[] {
  if (move?.kind !== 'tool' || typeof move.args !== 'object' || move.args === null || Array.isArray(move.args))
    return [];
  return Object.entries(move.args as Record<string, unknown>).map(([name, value]) => `${name}=${canonicalJson(value)}`);
}

/** The set of a move's argument values as the paper compares them: a string as written, others as JSON text. */
export function paramValues(move: DialogMoveSpec | undefined): string[] {
  if (move?.kind !== 'tool' || typeof move.args !== 'object' || move.args === null || Array.isArray(move.args))
    return [];
  return [
    ...new Set(
      Object.values(move.args as Record<string, unknown>).map((value) =>
        typeof value === 'string' ? value : canonicalJson(value),
      ),
    ),
  ];
}

/** The paper's figures over judged turns (errors left out). */
export function summarizePaperTurns(turns: readonly TurnReport[]): PaperTurnSummary {
  const judged = turns.filter((turn) => turn.error === undefined);
  const tool: MatchCounts[] = [];
  const params: MatchCounts[] = [];
  const bySession = new Map<string, number[]>();
  for (const turn of judged) {
    const score = turn.score ?? 0;
    const scores = bySession.get(turn.session) ?? [];
    scores.push(score);
    bySession.set(turn.session, scores);
    const reference = turn.reference.kind === 'tool' ? [turn.reference.name] : [];
    const predicted = turn.prediction?.kind === 'tool' ? [turn.prediction.name] : [];
    tool.push(setCounts(predicted, reference));
    params.push(setCounts(paramValues(turn.prediction), paramValues(turn.reference)));
  }
  const toolCounts = sumCounts(tool);
  const paramsCounts = sumCounts(params);
  const toolScores = paperScores(toolCounts);
  const paramsScores = paperScores(paramsCounts);
  const sessionMeans = [...bySession.values()].map((scores) => scores.reduce((a, b) => a + b, 0) / scores.length);
  return {
    passRate:
      judged.length === 0 ? 0 : judged.filter((turn) => (turn.score ?? 0) >= PAPER_PASS_SCORE).length / judged.length,
    meanScore: sessionMeans.length === 0 ? 0 : sessionMeans.reduce((a, b) => a + b, 0) / sessionMeans.length,
    toolPrecision: toolScores.precision,
    toolRecall: toolScores.recall,
    toolF1: toolScores.f1,
    paramsPrecision: paramsScores.precision,
    paramsRecall: paramsScores.recall,
    paramsF1: paramsScores.f1,
    toolCounts,
    paramsCounts,
  };
}

export function summarizeTurns(turns: readonly TurnReport[]): TurnSummary {
  const judged = turns.filter((turn) => turn.error === undefined);
  // Weft counts tool names as the paper does (a reply against a reply adds nothing either way); it differs in its
  // convention for no tool turn at all, and in comparing parameters as name=value pairs.
  const paper = summarizePaperTurns(judged);
  const tool = paper.toolCounts;
  const params = sumCounts(judged.map((turn) => setCounts(paramPairs(turn.prediction), paramPairs(turn.reference))));
  return {
    turns: judged.length,
    errors: turns.length - judged.length,
    passRate: judged.length === 0 ? 0 : judged.filter((turn) => turn.consistent).length / judged.length,
    toolTurns: judged.filter((turn) => turn.reference.kind === 'tool' || turn.prediction?.kind === 'tool').length,
    tool: scoresFromCounts(tool.truePositives, tool.falsePositives, tool.falseNegatives),
    params: scoresFromCounts(params.truePositives, params.falsePositives, params.falseNegatives),
    paper,
  };
}
