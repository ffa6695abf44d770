/**
 * The numbers of `weft simulate`, pure: tool precision/recall/F1 of one session, what its events say (violations,
 * rejections, turns, calls), and the report's aggregation, overall and per out-of-workflow category. Two protocols
 * are reported side by side, each named (docs/dialog-evaluation.md):
 *
 * The FlowAgent paper's (its authors' evaluation code), under `paper`:
 * - success rate: the judge's yes/no, averaged over sessions; task progress: accomplished / total goals, averaged.
 * - tool precision/recall/F1, micro-averaged: per session, the SET of API names the bot *proposed* (refused
 *   proposals included) against the SET of the profile's `required_apis`; true positives, false positives and false
 *   negatives are summed over the sessions, then precision = TP / (TP + FP), recall = TP / (TP + FN), 0 where a
 *   denominator is 0, F1 their harmonic mean (0 when both are 0). A session with nothing required and nothing
 *   proposed adds nothing to any sum (and alone scores 0). A profile without `required_apis` cannot be scored: its
 *   session is left out of the sums and reported as not computable.
 *
 * Weft's:
 * - tool F1 per session over the APIs *called* (tool-call events: they reached the API, ok or not) against
 *   `required_apis`, over the SET of names and over the MULTISET (each extra repeat a false positive: repeats cost
 *   the user time and the business money), averaged over the sessions (macro). Nothing called and nothing required
 *   is a perfect score (1): the bot did exactly what was asked. No `required_apis`: not computable (null).
 * - A violation *proposed* is a tool decision whose PDL preconditions did not all hold at that moment (whether a
 *   controller then refused it or not), by the dependency controller's rule (unmet-preconditions.ts: the APIs
 *   returned successfully, and result conditions hold for their latest successful results); *executed* is a
 *   tool-call event with `preconditionsMet: false` — what reached the API. A rejection is a proposal (turn,
 *   attempt) that at least one controller refused.
 * - Aggregates: success and the F1s are means over the sessions that finished (a session with `error` is counted in
 *   `errors` and left out of the means, since its judge never ran); violations and rejections are totals; turns
 *   and calls are means per finished session; cost is the total over every session.
 */
import type { JsonValue } from '../tools/tool.js';
import { OOW_CATEGORIES, type OowCategory, type SessionEvent } from './session-events.js';
import type { Pdl } from './pdl.js';
import { unmetPreconditions } from './unmet-preconditions.js';

export interface Scores {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

/** True positives, false positives and false negatives of one comparison. */
export interface MatchCounts {
  readonly truePositives: number;
  readonly falsePositives: number;
  readonly falseNegatives: number;
}

/**
 * Precision, recall and F1 as the FlowAgent authors' code computes them: 0 where a denominator is 0, so nothing
 * predicted and nothing expected scores 0 (Weft's `scoresFromCounts` scores it 1).
 */
export function paperScores(counts: MatchCounts): Scores {
  const { truePositives: tp, falsePositives: fp, falseNegatives: fn } = counts;
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

/** The paper's comparison of two sets of names (each side's repeats count once). */
export function setCounts(predicted: readonly string[], reference: readonly string[]): MatchCounts {
  const p = new Set(predicted);
  const r = new Set(reference);
  const hits = [...p].filter((name) => r.has(name)).length;
  return { truePositives: hits, falsePositives: p.size - hits, falseNegatives: r.size - hits };
}

/** Counts summed (micro-averaging). */
export function sumCounts(all: Iterable<MatchCounts>): MatchCounts {
  let truePositives = 0;
  let falsePositives = 0;
  let falseNegatives = 0;
  for (const counts of all) {
    truePositives += counts.truePositives;
    falsePositives += counts.falsePositives;
    falseNegatives += counts.falseNegatives;
  }
  return { truePositives, falsePositives, falseNegatives };
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
  const counts = setCounts(predicted, reference);
  return scoresFromCounts(counts.truePositives, counts.falsePositives, counts.falseNegatives);
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
  /** Names of the APIs the bot proposed to call (decisions, refused ones included), in order, repeats kept. */
  readonly proposedApis: readonly string[];
  readonly violationsProposed: number;
  readonly violationsExecuted: number;
  readonly rejections: number;
  /** User turns (messages the bot saw). */
  readonly turns: number;
  /** The bot's model calls, and those that answered simulated APIs. */
  readonly modelCalls: number;
  /** Their cost, from the model-call events and the simulated tool results. */
  readonly costUsd: number;
}

export function countSessionEvents(pdl: Pick<Pdl, 'apis'>, events: readonly SessionEvent[]): SessionEventCounts {
  // The latest successful result of each API, as the dependency controller reads them.
  const latest = new Map<string, JsonValue>();
  const calledApis: string[] = [];
  const proposedApis: string[] = [];
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
        proposedApis.push(event.action.name);
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
        // A simulated API's answer came from a model: its calls and cost are the session's.
        if (event.simulation) {
          modelCalls += event.simulation.calls;
          costUsd += event.simulation.costUsd;
        }
        break;
      default:
        break;
    }
  }
  return {
    calledApis,
    proposedApis,
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
  /** Weft's: F1 of the called APIs' names against `required_apis`; null without them (or when the session failed). */
  readonly toolF1: number | null;
  readonly toolF1Multiset: number | null;
  readonly calledApis: readonly string[];
  /** The APIs the bot proposed (refused proposals included): what the paper's tool F1 compares. */
  readonly proposedApis: readonly string[];
  /** The paper's tool counts and scores for this session (see the head of this file). */
  readonly paper: PaperSessionTool;
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

/** One session's tool comparison by the paper's protocol; the scores are null when it cannot be made. */
export interface PaperSessionTool extends Partial<MatchCounts> {
  readonly toolPrecision: number | null;
  readonly toolRecall: number | null;
  readonly toolF1: number | null;
  /** Why the scores are null. */
  readonly notComputable?: string;
}

/** The paper's figures over a set of sessions (see the head of this file). */
export interface PaperSessionSummary {
  /** Sessions judged a success / sessions that finished. */
  readonly successRate: number;
  /** Mean of accomplished / total goals. */
  readonly progress: number;
  /** Micro-averaged over the sessions whose profile lists `required_apis`; null when none does. */
  readonly toolPrecision: number | null;
  readonly toolRecall: number | null;
  readonly toolF1: number | null;
  /** The summed counts the scores come from. */
  readonly toolCounts: MatchCounts;
  /** Sessions counted in the tool scores. */
  readonly toolSessions: number;
  /** Why the tool scores are null, or which sessions they leave out. */
  readonly note?: string;
}

export const NO_REQUIRED_APIS = 'the profile lists no required_apis: the tool scores cannot be computed';

/** The paper's tool comparison of one session: proposed API names against the profile's `required_apis`. */
export function paperSessionTool(
  proposedApis: readonly string[],
  requiredApis: readonly string[] | undefined,
): PaperSessionTool {
  if (requiredApis === undefined)
    return { toolPrecision: null, toolRecall: null, toolF1: null, notComputable: NO_REQUIRED_APIS };
  const counts = setCounts(proposedApis, requiredApis);
  const scores = paperScores(counts);
  return { ...counts, toolPrecision: scores.precision, toolRecall: scores.recall, toolF1: scores.f1 };
}

export interface MetricsSummary {
  readonly sessions: number;
  /** Sessions that failed with an error (left out of the means). */
  readonly errors: number;
  readonly success: number;
  readonly progress: number;
  /** Weft's: the mean over the finished sessions that have one; null when none has. */
  readonly toolF1: number | null;
  readonly toolF1Multiset: number | null;
  /** Sessions the Weft tool F1 means are over. */
  readonly toolSessions: number;
  /** The paper's figures over the same sessions. */
  readonly paper: PaperSessionSummary;
  readonly violationsProposed: number;
  readonly violationsExecuted: number;
  readonly rejections: number;
  /** Mean per finished session. */
  readonly turns: number;
  /** Mean per finished session. */
  readonly calls: number;
  readonly costUsd: number;
}

/** The groups of `byOow` with the built-in taxonomy: sessions without an out-of-workflow turn, then its categories. */
export const OOW_GROUPS = ['none', ...OOW_CATEGORIES] as const;
/** `none` or a category id. */
export type OowGroup = string;

export function summarizeSessions(sessions: readonly SessionReport[]): MetricsSummary {
  const finished = sessions.filter((session) => session.error === undefined);
  const mean = (pick: (session: SessionReport) => number) =>
    finished.length === 0 ? 0 : finished.reduce((sum, session) => sum + pick(session), 0) / finished.length;
  const total = (pick: (session: SessionReport) => number) => sessions.reduce((sum, s) => sum + pick(s), 0);
  const scored = finished.filter((session) => session.toolF1 !== null);
  const meanOf = (pick: (session: SessionReport) => number | null): number | null =>
    scored.length === 0 ? null : scored.reduce((sum, session) => sum + (pick(session) ?? 0), 0) / scored.length;
  const success = mean((session) => (session.success ? 1 : 0));
  const progress = mean((session) => session.progress);
  return {
    sessions: sessions.length,
    errors: sessions.length - finished.length,
    success,
    progress,
    toolF1: meanOf((session) => session.toolF1),
    toolF1Multiset: meanOf((session) => session.toolF1Multiset),
    toolSessions: scored.length,
    paper: summarizePaper(finished, success, progress),
    violationsProposed: total((session) => session.violationsProposed),
    violationsExecuted: total((session) => session.violationsExecuted),
    rejections: total((session) => session.rejections),
    turns: mean((session) => session.turns),
    calls: mean((session) => session.calls),
    costUsd: total((session) => session.costUsd),
  };
}

function summarizePaper(
  finished: readonly SessionReport[],
  successRate: number,
  progress: number,
): PaperSessionSummary {
  const counted = finished.filter((session) => session.paper.toolF1 !== null);
  const toolCounts = sumCounts(
    counted.map((session) => ({
      truePositives: session.paper.truePositives ?? 0,
      falsePositives: session.paper.falsePositives ?? 0,
      falseNegatives: session.paper.falseNegatives ?? 0,
    })),
  );
  const left = finished.length - counted.length;
  const note =
    finished.length === 0
      ? undefined
      : counted.length === 0
        ? 'no finished session has a profile that lists required_apis: the tool scores cannot be computed'
        : left > 0
          ? `${left} of ${finished.length} finished sessions left out of the tool scores: their profiles list no required_apis`
          : undefined;
  if (counted.length === 0)
    return {
      successRate,
      progress,
      toolPrecision: null,
      toolRecall: null,
      toolF1: null,
      toolCounts,
      toolSessions: 0,
      ...(note ? { note } : {}),
    };
  const scores = paperScores(toolCounts);
  return {
    successRate,
    progress,
    toolPrecision: scores.precision,
    toolRecall: scores.recall,
    toolF1: scores.f1,
    toolCounts,
    toolSessions: counted.length,
    ...(note ? { note } : {}),
  };
}

/** The category of an `oow` tag (`intent_switching/cancellation` → `intent_switching`). */
function categoryOf(tag: string): OowCategory | undefined {
  const category = tag.split('/')[0];
  return category === undefined || category === '' || category === 'none' ? undefined : category;
}

/**
 * A session counts under every category it had an injected turn of, and under `none` when it had none. Groups:
 * `none`, then `categories` (the taxonomy's, default the paper's three), then any other category a session has.
 */
export function summarizeByOow(
  sessions: readonly SessionReport[],
  categories: readonly string[] = OOW_CATEGORIES,
): OowSummaries {
  const groups = new Map<string, SessionReport[]>([
    ['none', []],
    ...categories.map((c): [string, SessionReport[]] => [c, []]),
  ]);
  for (const session of sessions) {
    const found = new Set(session.oow.map(categoryOf).filter((c): c is OowCategory => c !== undefined));
    if (found.size === 0) groups.get('none')?.push(session);
    for (const category of found) {
      const group = groups.get(category) ?? [];
      group.push(session);
      groups.set(category, group);
    }
  }
  return Object.fromEntries(
    [...groups].map(([group, members]) => [group, summarizeSessions(members)]),
  ) as unknown as OowSummaries;
}

/** `none` (sessions without an out-of-workflow turn), then one summary per category. */
export interface OowSummaries {
  readonly none: MetricsSummary;
  readonly [category: string]: MetricsSummary;
}
