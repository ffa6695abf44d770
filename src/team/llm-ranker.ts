/**
 * The listwise LLM ranker of agent team reformation (docs/algorithms.md#team-reformation): one call that reads the
 * current responses anonymously (shuffled, seeded, against positional bias; numbered, without agent names, so a
 * name cannot sway it), reasons in free text and ends with the numbers of the best, which are mapped back to the
 * agents here by the order shown. A reply that cannot be
 * used — no ranking, an unknown agent, fewer than `keep` agents, a failed call — falls back visibly to
 * `fallbackRanking` with `fallback: true` and the reason; it is never silently random.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { isAbortError, isWeftError } from '../errors.js';
import { parseJsonValues } from '../llm/extract-json.js';
import { hashString, randomFrom, shuffled } from '../llm/seeded-random.js';
import { isNoAnswer } from './answers-agree.js';
import { majorityAnswer } from './majority-answer.js';
import type { PeerResponse, TeamQuery } from './team.js';
import { RANKER_SYSTEM_PROMPT, rankerUserPrompt } from './team-prompts.js';

export interface RankResult {
  /** Agent names, best first; at least `keep` of them unless fewer responses were given. */
  readonly ranking: string[];
  /** Model calls made (a failed call counts too). */
  readonly calls: number;
  /** True when the ranking is `fallbackRanking`'s because the ranker's own answer could not be used. */
  readonly fallback: boolean;
  /** The ranker's order in words, or why it fell back. */
  readonly reason: string;
}

export interface Ranker {
  /** `responses` in the agents' input order; the ranker shuffles them itself if order could bias it. */
  rank(query: TeamQuery, responses: readonly PeerResponse[], keep: number, signal?: AbortSignal): Promise<RankResult>;
}

export interface LlmRankerOptions {
  /** Mixed into the shuffle's seed with the question. Default 0. */
  readonly seed?: number | string;
}

export function createLlmRanker(model: ChatModel, options: LlmRankerOptions = {}): Ranker {
  return {
    async rank(query, responses, keep, signal) {
      const agents = responses.map((r) => r.agent);
      const shown = shuffled(randomFrom(options.seed ?? 0, 'rank', query.question, ...agents), responses);
      let text: string;
      try {
        const result = await model.generate(
          {
            system: RANKER_SYSTEM_PROMPT,
            messages: [{ role: 'user', content: rankerUserPrompt(query, shown, keep) }],
            tag: { purpose: 'rank', key: `rank/q-${hashString(query.question).toString(36)}`, attempt: 1 },
          },
          signal,
        );
        text = result.text;
      } catch (error) {
        // A spent budget ends the team's run, as it does an agent's call: not a ranking by fallback.
        if (isAbortError(error) || signal?.aborted || (isWeftError(error) && error.code === 'BUDGET')) throw error;
        return fallbackResult(query, responses, `the ranker call failed: ${(error as Error).message}`);
      }
      const parsed = parseRanking(
        text,
        shown.map((r) => r.agent),
        keep,
      );
      if (!parsed.ok) return fallbackResult(query, responses, parsed.error);
      return {
        ranking: parsed.ranking,
        calls: 1,
        fallback: false,
        reason: `LLM ranker: ${parsed.ranking.join(' > ')}`,
      };
    },
  };
}

function fallbackResult(query: TeamQuery, responses: readonly PeerResponse[], why: string): RankResult {
  return { ...explainedFallback(query, responses, why), calls: 1, fallback: true };
}

/**
 * `fallbackRanking` with the reason shown to the user: why the ranker's answer was not used (`why`) and what was
 * done instead. Shared with the engine, which falls back the same way when there is no ranker.
 */
export function explainedFallback(
  query: Pick<TeamQuery, 'kind'>,
  responses: readonly PeerResponse[],
  why: string,
): { ranking: string[]; reason: string } {
  const { ranking, majority } = fallbackRanking(query, responses);
  const last =
    isNoAnswer(majority, query.kind) || !responses.some((r) => isNoAnswer(r.answer, query.kind))
      ? ''
      : ', those without an answer last';
  return {
    ranking,
    reason: `ranker fallback: ${why}; kept the agents agreeing with the majority answer ${JSON.stringify(majority)}, then the rest, in input order${last}`,
  };
}

/**
 * The visible fallback order: the agents whose answers agree with the majority answer of `responses`, then the
 * others that gave an answer, then those that gave none, each in input order (so with 4 agents of which 3 agree
 * and keep 2, the first two of the three). An agent without an answer is never kept before one with an answer.
 */
export function fallbackRanking(
  query: Pick<TeamQuery, 'kind'>,
  responses: readonly PeerResponse[],
): { ranking: string[]; majority: string } {
  const { answer, members } = majorityAnswer(responses, query.kind);
  const agreeing = new Set(members);
  const rest = responses.filter((_, i) => !agreeing.has(i));
  const answered = rest.filter((r) => !isNoAnswer(r.answer, query.kind));
  const unanswered = rest.filter((r) => isNoAnswer(r.answer, query.kind));
  return {
    ranking: [...responses.filter((_, i) => agreeing.has(i)), ...answered, ...unanswered].map((r) => r.agent),
    majority: answer,
  };
}

export type ParsedRanking = { ok: true; ranking: string[] } | { ok: false; error: string };

/** The keys a ranking object may use, in order of preference (`ranking` is the one the prompt asks for). */
const RANKING_KEYS = ['ranking', 'top', 'best', 'order'] as const;

/**
 * Reads `{"ranking": [...]}` whose items are agent names or the 1-based numbers of the responses as shown.
 * Which JSON counts: the last object (by position, fenced or not) with a `ranking` key, else the last with
 * `top`/`best`/`order`, else the last bare array with at least `keep` items — so a bracketed `[2]` or `[3]` in
 * the prose is never read as the ranking. Numbers that include 0 and stay below the count are read as
 * 0-based. Duplicates are dropped. Any unknown item, or fewer than `keep` distinct agents, rejects the reply.
 */
export function parseRanking(text: string, shownAgents: readonly string[], keep: number): ParsedRanking {
  // parseJsonValues lists fenced JSON before the rest, so order by where each value's text sits in the reply.
  const values = parseJsonValues(text)
    .map((candidate) => ({ value: candidate.value, at: text.lastIndexOf(candidate.text.trim()) }))
    .sort((x, y) => x.at - y.at)
    .map((v) => v.value);
  const lastOf = <T>(items: readonly (T | undefined)[]): T | undefined =>
    items.filter((item) => item !== undefined).at(-1);
  const field = (key: (typeof RANKING_KEYS)[number]): unknown[] | undefined =>
    lastOf(
      values.map((value) => (isRecord(value) && Array.isArray(value[key]) ? (value[key] as unknown[]) : undefined)),
    );
  // Bare arrays: prose references like `[3]` may come before or after the list, so the last one long enough.
  const arrays = values.filter((value): value is unknown[] => Array.isArray(value));
  const longEnough = arrays.filter((array) => array.length >= Math.min(keep, shownAgents.length));
  const list = RANKING_KEYS.map(field).find((v) => v !== undefined) ?? longEnough.at(-1) ?? arrays.at(-1);
  if (!list) return { ok: false, error: `no ranking found in the reply ${snippet(text)}` };
  const numbers = list.map((item) =>
    typeof item === 'number' ? item : typeof item === 'string' && /^\s*\d+\s*$/.test(item) ? Number(item) : undefined,
  );
  const zeroBased = numbers.some((n) => n === 0) && numbers.every((n) => n === undefined || n < shownAgents.length);
  const byName = new Map(shownAgents.map((agent) => [normaliseName(agent), agent]));
  const ranking: string[] = [];
  for (const [index, item] of list.entries()) {
    const number = numbers[index];
    const agent =
      number !== undefined && !byName.has(normaliseName(String(item)))
        ? shownAgents[zeroBased ? number : number - 1]
        : typeof item === 'string'
          ? byName.get(normaliseName(item))
          : undefined;
    if (agent === undefined)
      return {
        ok: false,
        error: `the ranking names ${JSON.stringify(item)}, which is not one of the ${shownAgents.length} responses`,
      };
    if (!ranking.includes(agent)) ranking.push(agent);
  }
  const needed = Math.min(keep, shownAgents.length);
  if (ranking.length < needed)
    return { ok: false, error: `the ranking names ${ranking.length} agent(s), ${needed} are needed` };
  return { ok: true, ranking };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `"Agent geometer"`, `geometer`, `GEOMETER` all name the agent `geometer`. */
function normaliseName(name: string): string {
  return name
    .trim()
    .replace(/^agent\s+/i, '')
    .replace(/^["'`]+|["'`]+$/g, '')
    .toLowerCase();
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 120 ? `${flat.slice(0, 120)}…` : flat);
}
