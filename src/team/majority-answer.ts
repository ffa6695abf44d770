/**
 * Groups of agreeing answers: the consensus test of early stopping and the final answer by majority
 * (SPEC §3.3). Pure.
 */
import { answersAgree } from './answers-agree.js';
import type { AnswerKind } from './team.js';

export interface Candidate {
  readonly answer: string;
  /** For code checked by a tool: tests passed / run for this answer. */
  readonly tests?: { readonly passed: number; readonly total: number };
}

/**
 * The indices (ascending) of the largest group of mutually agreeing answers. For `choice`/`exact` agreement
 * is an equivalence, so this is the largest class; BLEU agreement (`text`/`code`) is not transitive, so the
 * group is a maximum clique of the agreement graph (Bron–Kerbosch; layers are a handful of nodes).
 * Ties go to the group whose first member comes first, i.e. the answer given first in input order.
 * Empty answers agree with nothing, so a layer of empty answers gives the group of its first node alone
 * (or `[]` for no answers).
 */
export function largestAgreeingGroup(answers: readonly string[], kind: AnswerKind): number[] {
  const n = answers.length;
  // Neighbours only: Bron–Kerbosch's pivot rule needs a vertex not to be its own neighbour.
  const agree: boolean[][] = answers.map((a, i) => answers.map((b, j) => i !== j && answersAgree(a, b, kind)));
  let best: number[] = n > 0 ? [0] : [];
  const consider = (group: number[]): void => {
    const sorted = [...group].sort((x, y) => x - y);
    if (sorted.length > best.length || (sorted.length === best.length && sorted[0]! < best[0]!)) best = sorted;
  };
  const expand = (clique: number[], candidates: number[], excluded: number[]): void => {
    if (candidates.length === 0 && excluded.length === 0) {
      consider(clique);
      return;
    }
    if (clique.length + candidates.length < best.length) return;
    const pivot = [...candidates, ...excluded][0]!;
    for (const v of candidates.filter((u) => !agree[pivot]![u])) {
      expand([...clique, v], candidates.filter((u) => agree[v]![u]), excluded.filter((u) => agree[v]![u]));
      candidates = candidates.filter((u) => u !== v);
      excluded = [...excluded, v];
    }
  };
  expand([], answers.map((_, i) => i), []);
  return best;
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
}

/**
 * The final answer: the largest agreeing group's answer, given by its first member in input order.
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
      Math.max(0, ...candidates.filter((d, j) => j === i || answersAgree(c.answer, d.answer, kind)).map((d) => d.tests?.passed ?? 0)),
    );
    testsPassed = Math.max(...scores);
    if (testsPassed > 0) voters = voters.filter((i) => scores[i] === testsPassed);
  }
  const group = largestAgreeingGroup(voters.map((i) => candidates[i]!.answer), kind).map((k) => voters[k]!);
  return { answer: candidates[group[0]!]!.answer, members: group, testsPassed };
}
