/**
 * The numbers of `weft dialog eval` (SPEC §4.3), pure: pass rate over judged turns, and for tool moves tool-name
 * and parameter precision/recall/F1, in-workflow and out-of-workflow turns apart.
 *
 * Decisions:
 * - Tool scores count over every turn where the reference or the prediction is an API call (micro-averaged): a
 *   call where the reference replied is a false positive, a reply where it called is a false negative.
 * - Parameters are `name=canonical JSON of the value` pairs of the top-level arguments, counted over the same
 *   turns (a prediction that calls the wrong API rarely shares pairs; when it does, they are right values).
 * - A turn whose prediction or judgement failed (`error`) is left out of every number and counted in `errors`.
 */
import type { DialogMoveSpec } from '../llm/dialog-prompt-tags.js';
import { canonicalJson } from '../text/canonical-json.js';
import { scoresFromCounts, type Scores } from './session-metrics.js';

export interface TurnReport {
  /** The reference session's id. */
  readonly session: string;
  /** Index of the reference move in the session's messages. */
  readonly index: number;
  /** The user turn it answers, from 1 (0: the bot moves before any user message). */
  readonly turn: number;
  /** `category/subtype` when the user message it answers was an out-of-workflow move. */
  readonly oow?: string;
  readonly reference: DialogMoveSpec;
  readonly prediction?: DialogMoveSpec;
  readonly consistent: boolean;
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
}

/** `name=value` pairs of a move's arguments; none for a reply or arguments that are not an object. */
export function paramPairs(move: DialogMoveSpec | undefined): string[] {
  if (move?.kind !== 'tool' || typeof move.args !== 'object' || move.args === null || Array.isArray(move.args))
    return [];
  return Object.entries(move.args as Record<string, unknown>).map(([name, value]) => `${name}=${canonicalJson(value)}`);
}

export function summarizeTurns(turns: readonly TurnReport[]): TurnSummary {
  const judged = turns.filter((turn) => turn.error === undefined);
  const tool = { tp: 0, fp: 0, fn: 0 };
  const params = { tp: 0, fp: 0, fn: 0 };
  let toolTurns = 0;
  for (const turn of judged) {
    const reference = turn.reference.kind === 'tool' ? turn.reference.name : undefined;
    const predicted = turn.prediction?.kind === 'tool' ? turn.prediction.name : undefined;
    if (reference === undefined && predicted === undefined) continue;
    toolTurns += 1;
    if (reference !== undefined && reference === predicted) tool.tp += 1;
    else {
      if (predicted !== undefined) tool.fp += 1;
      if (reference !== undefined) tool.fn += 1;
    }
    const expected = new Set(paramPairs(turn.reference));
    const got = new Set(paramPairs(turn.prediction));
    const hits = [...got].filter((pair) => expected.has(pair)).length;
    params.tp += hits;
    params.fp += got.size - hits;
    params.fn += expected.size - hits;
  }
  return {
    turns: judged.length,
    errors: turns.length - judged.length,
    passRate: judged.length === 0 ? 0 : judged.filter((turn) => turn.consistent).length / judged.length,
    toolTurns,
    tool: scoresFromCounts(tool.tp, tool.fp, tool.fn),
    params: scoresFromCounts(params.tp, params.fp, params.fn),
  };
}
