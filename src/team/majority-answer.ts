/**
 * Groups of agreeing answers: the consensus test of early stopping and the final answer by majority
 * (docs/algorithms.md#early-stopping). Pure.
 */
import { answersAgree, isNoAnswer } from './answers-agree.js';
import type { AnswerKind } from './team.js';

export interface Candidate {
  readonly answer: string;
  /** For code checked by a tool: tests passed / run for this answer. */
  readonly tests?: { readonly passed: number; readonly total: number };
}

/**
 * Every largest group of mutually agreeing answers, each as ascending indices, ordered by first member (then
 * lexicographically). For `choice`/`exact` agreement is an equivalence, so these are the largest classes; BLEU
 * agreement (`text`/`code`) is not transitive, so they are the maximum cliques of the agreement graph
 * (Bron–Kerbosch; layers are a handful of nodes), which may overlap.
 * An empty answer agrees with nothing, so it is a group of one; such groups are left out while any answer was
 * given, so "no answer" never wins (or ties) against an answer. A layer of empty answers gives one group per
 * node; no answers give `[]`.
 */
export function largestAgreeingGroups(answers: readonly string[], kind: AnswerKind): number[][] {
  // Neighbours only: Bron–Kerbosch's pivot rule needs a vertex not to be its own neighbour.
  const agree: boolean[][] = answers.map((a, i) => answers.map((b, j) => i !== j && answersAgree(a, b, kind)));
  let size = 0;
  let groups: number[][] = [];
  const consider = (group: number[]): void => {
    const sorted = [...group].sort((x, y) => x - y);
    if (sorted.length > size) {
      size = sorted.length;
      groups = [sorted];
    } else if (sorted.length === size) {
      groups.push(sorted);
    }
  };
  const expand = (clique: number[], candidates: number[], excluded: number[]): void => {
    if (candidates.length === 0 && excluded.length === 0) {
      consider(clique);
      return;
    }
    // Strictly smaller only: cliques as large as the best are kept, they are ties.
    if (clique.length + candidates.length < size) return;
    const pivot = [...candidates, ...excluded][0]!;
    for (const v of candidates.filter((u) => !agree[pivot]![u])) {
      expand(
        [...clique, v],
        candidates.filter((u) => agree[v]![u]),
        excluded.filter((u) => agree[v]![u]),
      );
      candidates = candidates.filter((u) => u !== v);
      excluded = [...excluded, v];
    }
  };
  if (answers.length > 0)
    expand(
      [],
      answers.map((_, i) => i),
      [],
    );
  const answered = groups.filter((group) => !isNoAnswer(answers[group[0]!]!, kind));
  return (answered.length > 0 ? answered : groups).sort(compareGroups);
}

/**
 * The first of `largestAgreeingGroups`: ties go to the group whose first member comes first, i.e. the answer
 * given first in input order, but an answer always beats no answer (`['', 'B']` gives `[1]`). A layer of empty
 * answers gives the group of its first node alone (or `[]` for no answers).
 */
export function largestAgreeingGroup(answers: readonly string[], kind: AnswerKind): number[] {
  return largestAgreeingGroups(answers, kind)[0] ?? [];
}

function compareGroups(x: readonly number[], y: readonly number[]): number {
  for (let index = 0; index < Math.min(x.length, y.length); index++)
    if (x[index] !== y[index]) return x[index]! - y[index]!;
  return x.length - y.length;
}

/**
 * True when more than 2/3 of the answers form one agreeing group (DyLAN's Byzantine bound: 4 nodes tolerate 1
 * dissenter). Integer test `3·size > 2·n`, so 3 of 4 and 2 of 2 agree, 2 of 3 do not.
 */
export function isConsensus(groupSize: number, n: number): boolean {
  return n > 0 && 3 * groupSize > 2 * n;
}

export interface Majority {
  readonly answer: string;
  /** Indices of the candidates in the winning group, ascending. */
  readonly members: readonly number[];
  /** The tests passed that decided the vote (code only; 0 when no test passed or none ran). */
  readonly testsPassed: number;
  /**
   * Present when other groups were as large as the winning one: each tied group's answer (its first member's),
   * the winner first, then in input order. Empty answers never tie with given ones.
   */
  readonly tie?: readonly string[];
}

/**
 * The final answer: the largest agreeing group's answer, given by its first member in input order; on a tie
 * the group whose first member comes first, and never an empty answer while any candidate answered.
 * For `code`, tests decide first: each candidate scores the most tests passed by it or by any candidate
 * agreeing with it (a tool node that tested a peer's code lends its result to that code), and only the
 * candidates with the best score vote. When no test passed, all vote.
 */
export function majorityAnswer(candidates: readonly Candidate[], kind: AnswerKind): Majority {
  if (candidates.length === 0) return { answer: '', members: [], testsPassed: 0 };
  let voters = candidates.map((_, i) => i);
  let testsPassed = 0;
  if (kind === 'code') {
    const scores = candidates.map((c, i) =>
      Math.max(
        0,
        ...candidates
          .filter((d, j) => j === i || answersAgree(c.answer, d.answer, kind))
          .map((d) => d.tests?.passed ?? 0),
      ),
    );
    testsPassed = Math.max(...scores);
    if (testsPassed > 0) voters = voters.filter((i) => scores[i] === testsPassed);
  }
  const groups = largestAgreeingGroups(
    voters.map((i) => candidates[i]!.answer),
    kind,
  ).map((group) => group.map((k) => voters[k]!));
  const group = groups[0]!;
  const answer = candidates[group[0]!]!.answer;
  // Overlapping BLEU cliques may share their first member: the same answer wins either way, no tie. Nor is a
  // layer where nobody answered a tie.
  const heads = [...new Set(groups.map((g) => g[0]!))];
  const tie = heads.length > 1 && !isNoAnswer(answer, kind) ? heads.map((head) => candidates[head]!.answer) : undefined;
  return { answer, members: group, testsPassed, ...(tie ? { tie } : {}) };
}
