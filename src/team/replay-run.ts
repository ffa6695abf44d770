/**
 * Runs a recorded DyLAN run's queries through Weft's team engine with the replay model and compares, query by
 * query, what Weft did with what the recording says the authors' code did (docs/teams.md#replaying-recorded-runs).
 *
 * The engine is set up as the authors' MMLU runs were: at most `recording.rounds` (3) layers, the reformation
 * after step 2 keeping 2 agents for teams of more than three agents and none otherwise (their code ranks only
 * then); early stop as the engine's default (checked after each answer, as their code does) unless `engine`
 * says otherwise. Their order of calls within a layer is not recorded, so counts are compared exactly only
 * where that order cannot matter (`countIsOrderFree`), and otherwise checked against every order
 * (`sameUpToOrder`).
 *
 * What is compared, per query:
 * - replies: Weft's calls (agents plus the ranker) against the authors' count (recordedReplies);
 * - the answer: Weft's final answer against the authors' final answer, derived from the recorded replies with
 *   their reading (undefined when their last layer is tied: their tie goes to the first of a random order that
 *   is not recorded); correctness is known for Weft only where it gives the authors' answer or the authors were
 *   right (then the correct answer is theirs);
 * - importance: the largest difference between Weft's I(t, a) and the recorded per-node importance.
 * A query whose replay needs a reply the recording lacks is reported with the located error, not thrown.
 */
import { isAbortError, isWeftError } from '../errors.js';
import { normaliseAnswer } from './answers-agree.js';
import { type AnswerQuery, extractAnswer, extractChoiceAsDylan } from './extract-answer.js';
import { runTeam, type RunTeamOptions } from './run-team.js';
import {
  createReplayAgents,
  createReplayModel,
  createReplayRanker,
  NO_OPTION_AS_DYLAN,
  replayAgentNames,
  replayQueries,
  type ReplayReading,
} from './replay-model.js';
import { answeredIn, rankerRan, recordedReplies, type DylanRecording, type RecordedQuery } from './replay-recording.js';

export interface ReplayOptions {
  readonly reading?: ReplayReading;
  /**
   * `recorded` (default): each layer's calls in an order consistent with the recording (`recordedCallOrder`);
   * `engine`: the engine's own seeded order.
   */
  readonly order?: 'recorded' | 'engine';
  /** Agent names (the team's roles); default `agent-1` … `agent-N`. */
  readonly roles?: readonly string[];
  /** Further engine options (e.g. how early stop is checked), passed on to runTeam. */
  readonly engine?: Partial<
    Omit<RunTeamOptions, 'agents' | 'query' | 'ranker' | 'maxSteps' | 'reformAt' | 'keep' | 'signal' | 'callOrder'>
  >;
  readonly signal?: AbortSignal;
}

export interface ReplayedQuery {
  readonly line: number;
  readonly recordedReplies: number;
  /** True when the authors' reply count does not depend on their call order (see `countIsOrderFree`). */
  readonly orderFree: boolean;
  /** The last round (1-based) the authors' run called an agent in. */
  readonly recordedStopRound: number;
  /** Agents the authors' ranker kept (those with a round-3 reply), when it ran. */
  readonly keptByRanker?: number;
  /** Undefined when the replay failed. */
  readonly weftReplies?: number;
  /** The round Weft stopped in, or the round of the reply it lacked. */
  readonly weftStopRound?: number;
  /**
   * True when what Weft did is what some order of the calls within a layer gives under the authors' rule: it
   * stopped in the authors' stopping round after no more calls than they made, or it lacked a reply of that
   * round (its order reached an agent theirs never called).
   */
  readonly sameUpToOrder: boolean;
  /** The authors' final answer by their reading; undefined when their last layer was tied. */
  readonly recordedAnswer?: string;
  readonly recordedCorrect?: boolean;
  readonly weftAnswer?: string;
  /** True/false where known (see the header); undefined otherwise. */
  readonly weftCorrect?: boolean;
  /** Largest |Weft − recorded| node importance; undefined without figures or when the replay failed. */
  readonly importanceGap?: number;
  /** Weft's per-node importance in the recording's layout (agent a at round r: index r·N + a). */
  readonly weftImportance?: readonly number[];
  /** Why the replay failed (a located message). */
  readonly error?: string;
  /** When it failed for a reply the recording lacks: which (`agent 4 (Lawyer) round 1`). */
  readonly missingReply?: string;
}

export interface ReplayReport {
  readonly file: string;
  readonly subject: string;
  readonly agents: number;
  readonly reading: ReplayReading;
  readonly order: 'recorded' | 'engine';
  readonly queries: readonly ReplayedQuery[];
}

export async function replayRecording(recording: DylanRecording, options: ReplayOptions = {}): Promise<ReplayReport> {
  const reading = options.reading ?? 'authors';
  const order = options.order ?? 'recorded';
  const names = replayAgentNames(recording, options.roles);
  const model = createReplayModel(recording, names);
  const agents = createReplayAgents(model, names, reading);
  const ranker = createReplayRanker(recording, names);
  const queries = replayQueries(recording);
  const results: ReplayedQuery[] = [];
  for (const [index, query] of queries.entries()) {
    const recorded = recording.queries[index]!;
    const correct = recording.figures?.correct[index];
    const recordedAnswer = authorsFinalAnswer(recorded);
    const base = {
      line: recorded.line,
      recordedReplies: recordedReplies(recorded, recording.agents),
      orderFree: countIsOrderFree(recorded, recording.agents),
      recordedStopRound: stopRound(recorded),
      ...(rankerRan(recorded, recording.agents) ? { keptByRanker: answeredIn(recorded, 2).length } : {}),
      ...(recordedAnswer !== undefined ? { recordedAnswer } : {}),
      ...(correct !== undefined ? { recordedCorrect: correct } : {}),
    };
    try {
      const result = await runTeam({
        ...options.engine,
        agents,
        ranker,
        query,
        maxSteps: recording.rounds,
        reformAt: recording.agents > 3 ? 2 : 0,
        keep: 2,
        ...(order === 'recorded' ? { callOrder: recordedCallOrder(recorded, names, reading, query) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const weftImportance = Array.from({ length: recording.agents * recording.rounds }, (_, node) => {
        const layer = result.importanceByLayer[Math.floor(node / recording.agents)];
        return layer?.[names[node % recording.agents]!] ?? 0;
      });
      const row = recording.figures?.importance[index];
      const weftCorrect =
        correct === undefined || recordedAnswer === undefined
          ? undefined
          : result.answer === recordedAnswer
            ? correct
            : correct
              ? false
              : undefined;
      results.push({
        ...base,
        weftReplies: result.calls,
        weftStopRound: result.stoppedAt,
        sameUpToOrder: result.stoppedAt === base.recordedStopRound && result.calls <= base.recordedReplies,
        weftAnswer: result.answer,
        ...(weftCorrect !== undefined ? { weftCorrect } : {}),
        weftImportance,
        ...(row
          ? { importanceGap: Math.max(...row.map((value, node) => Math.abs(value - weftImportance[node]!))) }
          : {}),
      });
    } catch (error) {
      if (isAbortError(error)) throw error;
      const missing = isWeftError(error) && error.code === 'SCRIPT_EXHAUSTED' ? error.location?.field : undefined;
      const round = Number(/round (\d+)$/.exec(missing ?? '')?.[1] ?? Number.NaN);
      results.push({
        ...base,
        error: error instanceof Error ? error.message : String(error),
        ...(missing !== undefined ? { missingReply: missing } : {}),
        ...(Number.isFinite(round) ? { weftStopRound: round } : {}),
        sameUpToOrder: round === base.recordedStopRound,
      });
    }
  }
  return {
    file: recording.file,
    subject: recording.subject,
    agents: recording.agents,
    reading,
    order,
    queries: results,
  };
}

/**
 * The authors' final answer of a query by their reading: the answers of its last answered round; the one more
 * than floor(2/3·k) of them share (their consensus), else the most frequent; undefined on a tie for the most.
 * A reply with no answer counts as NO_OPTION_AS_DYLAN (their code compares `None == None` as agreeing).
 */
export function authorsFinalAnswer(query: RecordedQuery): string | undefined {
  for (let round = query.replies[0]!.length - 1; round >= 0; round--) {
    const answered = answeredIn(query, round);
    if (answered.length === 0) continue;
    const counts = new Map<string, number>();
    for (const agent of answered) {
      const answer = extractChoiceAsDylan(query.replies[agent]![round]!) || NO_OPTION_AS_DYLAN;
      counts.set(answer, (counts.get(answer) ?? 0) + 1);
    }
    const best = Math.max(...counts.values());
    const top = [...counts].filter(([, count]) => count === best);
    return top.length === 1 ? top[0]![0] : undefined;
  }
  return undefined;
}

/**
 * An order of a layer's calls consistent with the recording, for the engine's `callOrder`: first the agents the
 * authors called in that round — those outside the round's largest agreeing group first, the group last — then
 * the agents they never called. The authors' own order (a random shuffle) is not recorded, but any order of
 * this shape gives their count: their run stopped at the first answer that made a consensus, so the last agent
 * they called belongs to the group and the answers before it had no consensus; calling the group last reaches
 * the consensus at that same answer, and never earlier. Answers are read as the replay's agents read them.
 */
export function recordedCallOrder(
  recorded: RecordedQuery,
  names: readonly string[],
  reading: ReplayReading,
  query: AnswerQuery,
): (step: number, agents: readonly string[]) => string[] {
  return (step, agents) => {
    const round = step - 1;
    const answerOf = (name: string): string | undefined => {
      const reply = recorded.replies[names.indexOf(name)]?.[round] ?? null;
      if (reply === null) return undefined;
      return reading === 'authors'
        ? extractChoiceAsDylan(reply) || NO_OPTION_AS_DYLAN
        : normaliseAnswer(extractAnswer(reply, query), query.kind);
    };
    const called = agents.filter((name) => answerOf(name) !== undefined);
    const counts = new Map<string, number>();
    for (const name of called) counts.set(answerOf(name)!, (counts.get(answerOf(name)!) ?? 0) + 1);
    const largest = Math.max(0, ...counts.values());
    const group = [...counts].find(([, count]) => count === largest)?.[0];
    return [
      ...called.filter((name) => answerOf(name) !== group),
      ...called.filter((name) => answerOf(name) === group),
      ...agents.filter((name) => answerOf(name) === undefined),
    ];
  };
}

/** The last round (1-based) with a recorded reply. */
export function stopRound(query: RecordedQuery): number {
  let last = 0;
  query.replies.forEach((rounds) =>
    rounds.forEach((reply, round) => {
      if (reply !== null) last = Math.max(last, round + 1);
    }),
  );
  return last;
}

/**
 * Whether a query's reply count is the same for every order of the calls within a layer. With at most three
 * agents the consensus is first checked once all have answered, so yes. With more, a layer that stopped on a
 * consensus could have stopped sooner (its agreeing answers first) or later (another order) — only a query that
 * never stopped before round 3 is order-free: its full layers had no consensus in any order, and round 3 has the
 * two agents the ranker kept, checked once both answered. The authors' order within a layer is a random
 * shuffle that their recording does not keep, so only order-free counts can be matched exactly.
 */
export function countIsOrderFree(query: RecordedQuery, agents: number): boolean {
  return agents <= 3 || rankerRan(query, agents);
}

/** Per-report totals for a table: queries, replayed, count matches, replies per query both ways. */
export interface ReplaySummary {
  readonly queries: number;
  readonly replayed: number;
  readonly failed: number;
  readonly countMatches: number;
  /** Queries whose count does not depend on call order, and how many of them Weft matched exactly. */
  readonly orderFree: number;
  readonly orderFreeMatches: number;
  /** Queries where Weft did what no order of the authors' calls gives (see `ReplayedQuery.sameUpToOrder`). */
  readonly notSameUpToOrder: number;
  /** Lines (with the file) whose reply count differs, or that failed. */
  readonly countMismatches: readonly {
    readonly file: string;
    readonly line: number;
    readonly recorded: number;
    readonly orderFree: boolean;
    readonly keptByRanker?: number;
    readonly weft?: number;
    readonly error?: string;
    readonly missingReply?: string;
  }[];
  /** Over all queries of the recordings. */
  readonly recordedRepliesPerQuery: number;
  /** Over the replayed queries only, and the authors' figure over the same queries. */
  readonly weftRepliesPerQuery: number;
  readonly recordedRepliesPerReplayedQuery: number;
  readonly answersAgree: number;
  readonly answersComparable: number;
  readonly importanceWithin1e9: number;
  readonly importanceCompared: number;
}

export function summarizeReplays(reports: readonly ReplayReport[]): ReplaySummary {
  const all = reports.flatMap((report) => report.queries.map((query) => ({ file: report.file, query })));
  const replayed = all.filter((entry) => entry.query.weftReplies !== undefined);
  const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
  const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : sum(values) / values.length);
  const comparable = replayed.filter((entry) => entry.query.recordedAnswer !== undefined);
  const withImportance = replayed.filter((entry) => entry.query.importanceGap !== undefined);
  return {
    queries: all.length,
    replayed: replayed.length,
    failed: all.length - replayed.length,
    countMatches: replayed.filter((entry) => entry.query.weftReplies === entry.query.recordedReplies).length,
    orderFree: all.filter((entry) => entry.query.orderFree).length,
    notSameUpToOrder: all.filter((entry) => !entry.query.sameUpToOrder).length,
    orderFreeMatches: all.filter(
      (entry) => entry.query.orderFree && entry.query.weftReplies === entry.query.recordedReplies,
    ).length,
    countMismatches: all
      .filter((entry) => entry.query.weftReplies !== entry.query.recordedReplies)
      .map(({ file, query }) => ({
        file,
        line: query.line,
        recorded: query.recordedReplies,
        orderFree: query.orderFree,
        ...(query.keptByRanker !== undefined ? { keptByRanker: query.keptByRanker } : {}),
        ...(query.weftReplies !== undefined ? { weft: query.weftReplies } : {}),
        ...(query.error !== undefined ? { error: query.error } : {}),
        ...(query.missingReply !== undefined ? { missingReply: query.missingReply } : {}),
      })),
    recordedRepliesPerQuery: mean(all.map((entry) => entry.query.recordedReplies)),
    weftRepliesPerQuery: mean(replayed.map((entry) => entry.query.weftReplies!)),
    recordedRepliesPerReplayedQuery: mean(replayed.map((entry) => entry.query.recordedReplies)),
    answersAgree: comparable.filter((entry) => entry.query.weftAnswer === entry.query.recordedAnswer).length,
    answersComparable: comparable.length,
    importanceWithin1e9: withImportance.filter((entry) => entry.query.importanceGap! < 1e-9).length,
    importanceCompared: withImportance.length,
  };
}
