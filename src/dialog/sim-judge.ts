/**
 * The sim model as a judge (purpose `judge`), with each verdict flipped with probability `noise`, so an
 * evaluation can be run against a judge of known error.
 *
 * - Session level (`<goals>` + `<api-calls>`): a goal with `apis` is achieved when every one of them has a
 *   successful call. A goal without `apis` (the profile did not say which) is achieved when at least one call
 *   succeeded and every API that was called succeeded at least once (the bot did something and left nothing
 *   failed). Then each goal's verdict flips with probability `noise`; success = every goal achieved (no goals: the
 *   rule for a goal without apis, flipped alike). Reply `{ "success", "achieved": [indices from 0], "reason" }`.
 * - Turn level (`<reference>` + `<prediction>`): consistent when both are tool calls of the same name, or both are
 *   replies (arguments and wording are not compared); flipped with probability `noise`. The paper's 1–10 score
 *   follows the verdict: 10 for the same move to the letter (a reply's case and spacing aside), 9 for another
 *   consistent one, 5 for an inconsistent move of the same kind, 3 for a call against a reply. Reply
 *   `{ "consistent", "score", "reason" }`.
 *
 * The flips are seeded by the blocks' content (with the seed, key and attempt), so asking again about the same
 * session gives the same verdict, and sessions with different calls draw independently even without a key.
 */
import { canonicalJson } from '../text/canonical-json.js';
import type { DialogApiCallSpec, DialogGoalSpec, DialogMoveSpec } from './dialog-prompt-tags.js';
import { bernoulli, type RandomSource } from '../llm/seeded-random.js';

/** The noise draws for a verdict about `content` (the blocks, canonical JSON): one source per goal index. */
export type JudgeStreams = (content: string) => (index: number) => RandomSource;

export interface SimSessionVerdict {
  readonly success: boolean;
  readonly achieved: number[];
  readonly reason: string;
}

export interface SimTurnVerdict {
  readonly consistent: boolean;
  /** The FlowAgent paper's 1–10 score: 10 the same move to the letter, 9 consistent, 5 another call, 3 a call against a reply. */
  readonly score: number;
  readonly reason: string;
}

export function simSessionVerdict(
  goals: readonly DialogGoalSpec[],
  calls: readonly DialogApiCallSpec[],
  noise: number,
  streams: JudgeStreams,
): SimSessionVerdict {
  const noiseFor = streams(canonicalJson([goals, calls]));
  const succeeded = new Set(calls.filter((call) => call.ok).map((call) => call.name));
  const anyOutcome = succeeded.size > 0 && calls.every((call) => succeeded.has(call.name));
  const flipped = (index: number): boolean => bernoulli(noiseFor(index), noise);
  if (goals.length === 0) {
    const success = anyOutcome !== flipped(0);
    return { success, achieved: [], reason: `sim judge: no goals given; ${describeCalls(succeeded, calls)}` };
  }
  const achieved = goals.flatMap((goal, index) => {
    const truth =
      goal.apis !== undefined && goal.apis.length > 0 ? goal.apis.every((api) => succeeded.has(api)) : anyOutcome;
    return truth !== flipped(index) ? [index] : [];
  });
  return {
    success: achieved.length === goals.length,
    achieved,
    reason: `sim judge: ${achieved.length} of ${goals.length} goals achieved; ${describeCalls(succeeded, calls)}`,
  };
}

export function simTurnVerdict(
  reference: DialogMoveSpec,
  prediction: DialogMoveSpec,
  noise: number,
  streams: JudgeStreams,
): SimTurnVerdict {
  const truth =
    reference.kind === 'tool'
      ? prediction.kind === 'tool' && prediction.name === reference.name
      : prediction.kind === 'reply';
  const flip = bernoulli(streams(canonicalJson([reference, prediction]))(0), noise);
  const consistent = truth !== flip;
  const identical = canonicalJson(normalized(reference)) === canonicalJson(normalized(prediction));
  const score = consistent ? (identical ? 10 : 9) : reference.kind === prediction.kind ? 5 : 3;
  return { consistent, score, reason: `sim judge: ${describeMove(reference)} vs ${describeMove(prediction)}` };
}

/** A move with its reply text's case and spacing ignored. */
function normalized(move: DialogMoveSpec): DialogMoveSpec {
  return move.kind === 'reply' ? { kind: 'reply', text: move.text.trim().replace(/\s+/g, ' ').toLowerCase() } : move;
}

function describeMove(move: DialogMoveSpec): string {
  return move.kind === 'tool' ? `a call of ${JSON.stringify(move.name).slice(0, 80)}` : 'a reply';
}

function describeCalls(succeeded: ReadonlySet<string>, calls: readonly DialogApiCallSpec[]): string {
  if (calls.length === 0) return 'no API was called';
  return `${succeeded.size} of ${new Set(calls.map((call) => call.name)).size} APIs called succeeded`;
}
