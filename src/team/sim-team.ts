/**
 * What the `sim:` model answers for DyLAN teams (docs/algorithms.md#dylan-teams): an agent's answer with its ratings of
 * the peers it was shown ('answer'), and a ranker's listwise order of the agents ('rank').
 *
 * The sim knows no truth of its own: the right answer is the literal `correct` (datasets for sim benchmarks use
 * it), unless an answer key (`answers=`, sim-answer-key.ts) gives the question's gold answer; wrong answers are
 * `wrong-1` … `wrong-3`. Skill is one number, `accuracy`:
 * - an agent's own answer is right with probability `accuracy`;
 * - a wrong agent that sees peers follows their majority with probability `follow` (so consensus can form,
 *   for better or worse: it follows a wrong majority too);
 * - it judges each peer with probability `accuracy` (right answers get 4–5, wrong ones 1–2), else rates it at
 *   random 1–5;
 * - as a ranker it puts the agents with right answers first with probability `accuracy`, else it orders them at
 *   random.
 * With multiple-choice options shown, answers are option texts: the right one is the option `correct` (or the
 * key's option; the team reads it as its letter), and peers' letters are read back as option texts.
 *
 * The prompts are read in the layout src/team/team-prompts.ts documents (peers as `Response k:` blocks with an
 * `Answer:` line; the ranker's anonymous `Solution k:` blocks). Pure: the random sources are passed in, so
 * the sim model keeps its determinism per tag.
 */
import { bernoulli, integerSample, pick, shuffled, type RandomSource } from '../llm/seeded-random.js';

export const SIM_RIGHT_ANSWER = 'correct';
export const SIM_WRONG_ANSWERS = ['wrong-1', 'wrong-2', 'wrong-3'] as const;

export interface SimTeamSkill {
  readonly accuracy: number;
  readonly follow: number;
}

export interface SimTeamAnswer {
  readonly answer: string;
  readonly reasoning: string;
  /** One rating 1–5 per peer, in the order shown. */
  readonly ratings: number[];
}

/** The random decisions of one answer, each from its own source so one probability never reshuffles another. */
export interface SimAnswerStreams {
  readonly answer: RandomSource;
  readonly wrong: RandomSource;
  readonly follow: RandomSource;
  readonly ratings: RandomSource;
}

/**
 * An agent's reply given the answers of the peers it is shown (in that order; none at step 1). A wrong answer is
 * one of `wrongAnswers` (with options shown: the other options' texts).
 */
export function simTeamAnswer(
  peerAnswers: readonly string[],
  skill: SimTeamSkill,
  streams: SimAnswerStreams,
  wrongAnswers: readonly string[] = SIM_WRONG_ANSWERS,
  right: string = SIM_RIGHT_ANSWER,
): SimTeamAnswer {
  const wrong = wrongAnswers.length > 0 ? wrongAnswers : SIM_WRONG_ANSWERS;
  const own = bernoulli(streams.answer, skill.accuracy) ? right : pick(streams.wrong, wrong);
  let answer = own;
  let reasoning = own === right ? 'worked it out' : 'made a mistake';
  if (own !== right && peerAnswers.length > 0 && bernoulli(streams.follow, skill.follow)) {
    answer = majorityAnswer(peerAnswers, streams.follow);
    reasoning = `followed the peers' majority (${answer})`;
  }
  return {
    answer,
    reasoning: `sim: ${reasoning}`,
    ratings: peerAnswers.map((peer) => simRating(peer, skill.accuracy, streams.ratings, right)),
  };
}

/** A rating 1–5 of one peer's answer: informed with probability `accuracy`, else uniform. */
export function simRating(
  peerAnswer: string,
  accuracy: number,
  random: RandomSource,
  right: string = SIM_RIGHT_ANSWER,
): number {
  const judged = bernoulli(random, accuracy);
  const draw = integerSample(random, 0, 1);
  if (!judged) return integerSample(random, 1, 5);
  return peerAnswer === right ? 4 + draw : 1 + draw;
}

/** The most frequent answer; a tie is broken at random among the tied (so no answer is favoured by position). */
export function majorityAnswer(answers: readonly string[], random: RandomSource): string {
  const counts = new Map<string, number>();
  for (const answer of answers) counts.set(answer, (counts.get(answer) ?? 0) + 1);
  const top = Math.max(...counts.values());
  return pick(
    random,
    [...counts].filter(([, count]) => count === top).map(([answer]) => answer),
  );
}

/**
 * A listwise ranking of the entries (by `id`, best first): with probability `accuracy` the entries whose answer is
 * right come first (each group in random order), else all in random order.
 */
export function simRanking<T extends { readonly id: string; readonly answer: string }>(
  entries: readonly T[],
  accuracy: number,
  random: RandomSource,
  rightAnswer: string = SIM_RIGHT_ANSWER,
): string[] {
  const informed = bernoulli(random, accuracy);
  const order = shuffled(random, entries);
  if (!informed) return order.map((entry) => entry.id);
  const right = order.filter((entry) => entry.answer === rightAnswer);
  const rest = order.filter((entry) => entry.answer !== rightAnswer);
  return [...right, ...rest].map((entry) => entry.id);
}

/** What the sim reads from a team prompt: the options (letter → text) and the listed responses, in order. */
export interface SimTeamPrompt {
  /** The text of the `Question:` block, without its options. */
  readonly question: string;
  readonly options: ReadonlyMap<string, string>;
  /** Each listed response's heading (`Response 2:` → `2`, `Solution 3:` → `3`) and its answer as option text. */
  readonly responses: readonly { readonly id: string; readonly answer: string }[];
}

const OPTION_LINE = /^\(([A-Z])\) (.*)$/;
const PEER_HEADING = /^Response (\d+)(?: \(your previous response\))?:$/;
const RANKED_HEADING = /^Solution (\d+):$/;

/** Reads options and responses from a team agent's or ranker's prompt; lines that fit no block are skipped. */
export function readTeamPrompt(text: string): SimTeamPrompt {
  const lines = text.split('\n');
  const options = new Map<string, string>();
  const responses: { id: string; answer: string }[] = [];
  let inOptions = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line === 'Options:') {
      inOptions = true;
      continue;
    }
    const option = inOptions ? OPTION_LINE.exec(line) : null;
    if (option) {
      options.set(option[1]!, option[2]!.trim());
      continue;
    }
    inOptions = false;
    const id = headingId(line);
    if (id === undefined) continue;
    const read = answerAfter(lines, index + 1);
    responses.push({ id, answer: asOptionText(read.answer, options) });
    index = read.next - 1;
  }
  return { question: questionOf(text), options, responses };
}

/** What follows the question in the prompts of team-prompts.ts: its options, the peers, or the request to answer. */
const AFTER_QUESTION = [
  '\n\nOptions:\n',
  "\n\nThe team's latest responses to this question",
  '\n\nAnswer the question.',
  '\n\nSolutions to rank (in random order):',
];

function questionOf(text: string): string {
  const start = text.indexOf('Question:\n');
  if (start < 0) return '';
  const body = text.slice(start + 'Question:\n'.length);
  const ends = AFTER_QUESTION.map((marker) => body.indexOf(marker)).filter((index) => index >= 0);
  return body.slice(0, ends.length > 0 ? Math.min(...ends) : body.length).trim();
}

function headingId(line: string): string | undefined {
  const peer = PEER_HEADING.exec(line);
  if (peer) return peer[1]!;
  return RANKED_HEADING.exec(line)?.[1];
}

/** The `Answer:` of a block: on its line, or the ``` fence below it; `(none given)` is no answer. */
function answerAfter(lines: readonly string[], start: number): { answer: string; next: number } {
  const line = lines[start];
  if (line === undefined || !line.startsWith('Answer:')) return { answer: '', next: start };
  const inline = line.slice('Answer:'.length).trim();
  if (inline !== '') return { answer: inline === '(none given)' ? '' : inline, next: start + 1 };
  if (lines[start + 1]?.startsWith('```') !== true) return { answer: '', next: start + 1 };
  const end = lines.findIndex((candidate, index) => index > start + 1 && candidate.startsWith('```'));
  if (end < 0) return { answer: lines.slice(start + 2).join('\n'), next: lines.length };
  return { answer: lines.slice(start + 2, end).join('\n'), next: end + 1 };
}

/** A peer's letter as the option text it stands for (answers are compared as texts); other answers as they are. */
function asOptionText(answer: string, options: ReadonlyMap<string, string>): string {
  return options.get(answer.trim().toUpperCase()) ?? answer.trim();
}
