/**
 * The listwise LLM ranker of agent team reformation (SPEC §3.2): one call that reads the current responses
 * (shuffled, seeded, against positional bias) and names the best agents. A reply that cannot be used — no
 * ranking, an unknown agent, fewer than `keep` agents, a failed call — falls back visibly to
 * `fallbackRanking` with `fallback: true` and the reason; it is never silently random.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { isAbortError } from '../errors.js';
import { parseJsonValues } from '../llm/extract-json.js';
import { hashString, randomFrom, shuffled } from '../llm/seeded-random.js';
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
            json: { name: 'team_ranking' },
            tag: { purpose: 'rank', key: `rank/q-${hashString(query.question).toString(36)}`, attempt: 1 },
          },
          signal,
        );
        text = result.text;
      } catch (error) {
        if (isAbortError(error) || signal?.aborted) throw error;
        return fallbackResult(query, responses, `the ranker call failed: ${(error as Error).message}`);
      }
      const parsed = parseRanking(text, shown.map((r) => r.agent), keep);
      if (!parsed.ok) return fallbackResult(query, responses, parsed.error);
      return { ranking: parsed.ranking, calls: 1, fallback: false, reason: `LLM ranker: ${parsed.ranking.join(' > ')}` };
    },
  };
}

function fallbackResult(query: TeamQuery, responses: readonly PeerResponse[], why: string): RankResult {
  const { ranking, majority } = fallbackRanking(query, responses);
  return {
    ranking,
    calls: 1,
    fallback: true,
    reason: `ranker fallback: ${why}; kept the agents agreeing with the majority answer ${JSON.stringify(majority)}, then the rest, in input order`,
  };
}

/**
 * The visible fallback order: the agents whose answers agree with the majority answer of `responses`, then the
 * others, each in input order (so with 4 agents of which 3 agree and keep 2, the first two of the three).
 */
export function fallbackRanking(query: Pick<TeamQuery, 'kind'>, responses: readonly PeerResponse[]): { ranking: string[]; majority: string } {
  const { answer, members } = majorityAnswer(responses, query.kind);
  const agreeing = new Set(members);
  return {
    ranking: [...responses.filter((_, i) => agreeing.has(i)), ...responses.filter((_, i) => !agreeing.has(i))].map((r) => r.agent),
    majority: answer,
  };
}

export type ParsedRanking = { ok: true; ranking: string[] } | { ok: false; error: string };

/**
 * Reads `{"ranking": [...]}` (also `top`/`best`/`order`, or a bare array) whose items are agent names or the
 * 1-based numbers of the responses as shown. Numbers that include 0 and stay below the count are read as
 * 0-based. Duplicates are dropped. Any unknown item, or fewer than `keep` distinct agents, rejects the reply.
 */
export function parseRanking(text: string, shownAgents: readonly string[], keep: number): ParsedRanking {
  const values = parseJsonValues(text).map((v) => v.value);
  const list = values
    .map((value) => {
      if (Array.isArray(value)) return value;
      if (value !== null && typeof value === 'object') {
        const record = value as Record<string, unknown>;
        const field = record.ranking ?? record.top ?? record.best ?? record.order;
        if (Array.isArray(field)) return field;
      }
      return undefined;
    })
    .find((v) => v !== undefined);
  if (!list) return { ok: false, error: `no ranking found in the reply ${snippet(text)}` };
  const numbers = list.map((item) => (typeof item === 'number' ? item : typeof item === 'string' && /^\s*\d+\s*$/.test(item) ? Number(item) : undefined));
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
    if (agent === undefined) return { ok: false, error: `the ranking names ${JSON.stringify(item)}, which is not one of the ${shownAgents.length} responses` };
    if (!ranking.includes(agent)) ranking.push(agent);
  }
  const needed = Math.min(keep, shownAgents.length);
  if (ranking.length < needed) return { ok: false, error: `the ranking names ${ranking.length} agent(s), ${needed} are needed` };
  return { ok: true, ranking };
}

/** `"Agent geometer"`, `geometer`, `GEOMETER` all name the agent `geometer`. */
function normaliseName(name: string): string {
  return name.trim().replace(/^agent\s+/i, '').replace(/^["'`]+|["'`]+$/g, '').toLowerCase();
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 120 ? `${flat.slice(0, 120)}…` : flat);
}
