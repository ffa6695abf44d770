/**
 * The numbers of `weft simulate` (docs/dialog-evaluation.md), pure: tool precision/recall/F1 of one session, what its events say
 * (violations, rejections, turns, calls), and the report's aggregation, overall and per out-of-workflow category.
 *
 * Decisions:
 * - Tool F1 compares the APIs a session *called* (tool-call events: they reached the API, ok or not) with the
 *   profile's `required_apis`. Over the SET of names as the paper does, and over the MULTISET, where each extra
 *   repeat of a call is a false positive (repeats cost the user time and the business money).
 * - Nothing predicted and nothing required is a perfect score (1); one side empty and the other not scores 0.
 * - A violation *proposed* is a tool decision whose PDL preconditions did not all hold at that moment (whether a
 *   controller then refused it or not), by the dependency controller's rule (unmet-preconditions.ts: the APIs
 *   returned successfully, and result conditions hold for their latest successful results); *executed* is a
 *   tool-call event with `preconditionsMet: false` — what reached the API.
 * - A rejection is a proposal (turn, attempt) that at least one controller refused.
 * - Aggregates: success and the F1s are means over the sessions that finished (a session with `error` is counted
 *   in `errors` and left out of the means, since its judge never ran); violations and rejections are totals;
 *   turns and calls are means per finished session; cost is the total over every session.
 */
import type { JsonValue } from '../tools/tool.js';
import type { OowCategory, SessionEvent } from './session-events.js';
import type { Pdl } from './pdl.js';
import { unmetPreconditions } from './unmet-preconditions.js';

export interface Scores {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

/** Precision, recall and F1 from counts of true positives, false positives and false negatives. */
export function scoresFromCounts(truePositives: number, falsePositives: number, falseNegatives: number): Scores {
  const predicted = truePositives + falsePositives;
  const reference = truePositives + falseNegatives;
  if (predicted === 0 && reference === 0) return { precision: 1, recall: 1, f1: 1 };
  const precision = predicted === 0 ? 0 : truePositives / predicted;
  const recall = reference === 0 ? 0 : truePositives / reference;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

/** Over the sets of names: calling an API twice is the same as once. */
export function setScores(predicted: readonly string[], reference: readonly string[]): Scores {
  const p = new Set(predicted);
  const r = new Set(reference);
  const hits = [...p].filter((name) => r.has(name)).length;
  return scoresFromCounts(hits, p.size - hits, r.size - hits);
}

/** Over multisets: each call counts, so a repeat the reference does not have is a false positive. */
export function multisetScores(predicted: readonly string[], reference: readonly string[]): Scores {
  const remaining = new Map<string, number>();
  for (const name of reference) remaining.set(name, (remaining.get(name) ?? 0) + 1);
  let hits = 0;
  for (const name of predicted) {
    const left = remaining.get(name) ?? 0;
    if (left > 0) {
      hits += 1;
      remaining.set(name, left - 1);
    }
  }
  return scoresFromCounts(hits, predicted.length - hits, reference.length - hits);
}

/** What a session's events say, apart from the judge. */
export interface SessionEventCounts {
  /** Names of the APIs called (tool-call events), in order, repeats kept. */
  readonly calledApis: readonly string[];
  readonly violationsProposed: number;
  readonly violationsExecuted: number;
  readonly rejections: number;
  /** User turns (messages the bot saw). */
  readonly turns: number;
  /** The bot's model calls. */
  readonly modelCalls: number;
  /** The bot's model cost, from its model-call events. */
  readonly costUsd: number;
}

export function countSessionEvents(pdl: Pick<Pdl, 'apis'>, events: readonly SessionEvent[]): SessionEventCounts {
  // The latest successful result of each API, as the dependency controller reads them.
  const latest = new Map<string, JsonValue>();
  const calledApis: string[] = [];
  const rejected = new Set<string>();
  let violationsProposed = 0;
  let violationsExecuted = 0;
  let turns = 0;
  let modelCalls = 0;
  let costUsd = 0;
  for (const event of events) {
    switch (event.type) {
      case 'user-message':
        turns += 1;
        break;
      case 'model-call':
        modelCalls += 1;
        costUsd += event.costUsd;
        break;
      case 'decision': {
        if (event.action.kind !== 'tool') break;
        if (unmetPreconditions(pdl, event.action.name, latest).length > 0) violationsProposed += 1;
        break;
      }
      case 'verdict':
        if (!event.accepted) rejected.add(`${event.turn}/${event.attempt}`);
        break;
      case 'tool-call':
        calledApis.push(event.name);
        if (!event.preconditionsMet) violationsExecuted += 1;
        break;
      case 'tool-result':
        if (event.ok) latest.set(event.name, event.result ?? null);
        break;
      default:
        break;
    }
  }
  return {
    calledApis,
    violationsProposed,
    violationsExecuted,
    rejections: rejected.size,
    turns,
    modelCalls,
    costUsd,
  };
}

/** One simulated session in the report. */
export interface SessionReport {
  /** `<profile id>#<n>`: unique in the batch even when profiles are cycled. */
  readonly id: string;
  readonly profile: string;
  /** Tags of the injected out-of-workflow turns, `category/subtype`, in order. */
  readonly oow: readonly string[];
  readonly success: boolean;
  /** Goals achieved / goals, from the judge. */
  readonly progress: number;
  readonly achieved: readonly number[];
  readonly toolF1: number;
  readonly toolF1Multiset: number;
  readonly calledApis: readonly string[];
  readonly violationsProposed: number;
  readonly violationsExecuted: number;
  readonly rejections: number;
  readonly turns: number;
  /** Model calls: the bot's, the user model's and the judge's. */
  readonly calls: number;
  readonly costUsd: number;
  /** How the session ended: the user said [END], the bot closed it, or the turn limit. */
  readonly ended?: 'user' | 'bot' | 'turn-limit';
  /** The judge's one-sentence reason, when it gave one. */
  readonly judgeReason?: string;
  /** The stored session (`weft show-session ID`), when sessions were kept in a store. */
  readonly sessionId?: string;
  /** Set when the session failed (a model error); its scores are then zero and left out of the means. */
  readonly error?: string;
}

export interface MetricsSummary {
  readonly sessions: number;
  /** Sessions that failed with an error (left out of the means). */
  readonly errors: number;
  readonly success: number;
  readonly progress: number;
  readonly toolF1: number;
  readonly toolF1Multiset: number;
  readonly violationsProposed: number;
  readonly violationsExecuted: number;
  readonly rejections: number;
  /** Mean per finished session. */
  readonly turns: number;
  /** Mean per finished session. */
  readonly calls: number;
  readonly costUsd: number;
}

export const OOW_GROUPS = ['none', 'intent_switching', 'procedure_jumping', 'irrelevant_answering'] as const;
export type OowGroup = (typeof OOW_GROUPS)[number];

export function summarizeSessions(sessions: readonly SessionReport[]): MetricsSummary {
  const finished = sessions.filter((session) => session.error === undefined);
  const mean = (pick: (session: SessionReport) => number) =>
    finished.length === 0 ? 0 : finished.reduce((sum, session) => sum + pick(session), 0) / finished.length;
  const total = (pick: (session: SessionReport) => number) => sessions.reduce((sum, s) => sum + pick(s), 0);
  return {
    sessions: sessions.length,
    errors: sessions.length - finished.length,
    success: mean((session) => (session.success ? 1 : 0)),
    progress: mean((session) => session.progress),
    toolF1: mean((session) => session.toolF1),
    toolF1Multiset: mean((session) => session.toolF1Multiset),
    violationsProposed: total((session) => session.violationsProposed),
    violationsExecuted: total((session) => session.violationsExecuted),
    rejections: total((session) => session.rejections),
    turns: mean((session) => session.turns),
    calls: mean((session) => session.calls),
    costUsd: total((session) => session.costUsd),
  };
}

/** The category of an `oow` tag (`intent_switching/cancellation` → `intent_switching`). */
function categoryOf(tag: string): OowCategory | undefined {
  const category = tag.split('/')[0];
  return OOW_GROUPS.includes(category as OowGroup) && category !== 'none' ? (category as OowCategory) : undefined;
}

/** A session counts under every category it had an injected turn of, and under `none` when it had none. */
export function summarizeByOow(sessions: readonly SessionReport[]): Record<OowGroup, MetricsSummary> {
  const groups = Object.fromEntries(OOW_GROUPS.map((group) => [group, [] as SessionReport[]])) as Record<
    OowGroup,
    SessionReport[]
  >;
  for (const session of sessions) {
    const categories = new Set(session.oow.map(categoryOf).filter((c): c is OowCategory => c !== undefined));
    if (categories.size === 0) groups.none.push(session);
    for (const category of categories) groups[category].push(session);
  }
  return Object.fromEntries(OOW_GROUPS.map((group) => [group, summarizeSessions(groups[group])])) as Record<
    OowGroup,
    MetricsSummary
  >;
}
