/**
 * The DyLAN engine (docs/algorithms.md#dylan-teams): a temporal feed-forward network of agents, layer by layer, with
 * early stopping by consensus, one agent team reformation by a ranker, the final answer by majority, and Agent
 * Importance Scores.
 *
 * Decisions (documented here because the paper leaves them open):
 * - Peers (edges): a node at step t > 1 sees every node of layer t−1, its own agent's previous response included
 *   (DyLAN's full bipartite edges between adjacent layers; the prompt marks its own). After the reformation at
 *   step t the kept agents at t+1 read every answer of step t, dropped agents' included (the paper's Eq. 7 and the
 *   authors' code); from t+1 on only kept agents have nodes, so kept reads kept. Its `ratings` are aligned with
 *   exactly that list, so importance flows back along the same edges to every node of layer t−1.
 * - Shuffling: each node's peers are shuffled by a generator seeded from (seed, question, step, agent), so the
 *   order does not depend on timing, and differs across questions (no fixed positional bias over a dataset).
 * - Early stop, `stopCheck: 'answer'` (default, as the authors' code): a layer's agents are called one at a time
 *   in an order shuffled by (seed, question, step); once more than ⌊2N/3⌋ of its N agents have answered, the
 *   answers so far are checked after each answer, and the run stops when more than 2/3 of N agree (an empty
 *   answer agrees with nothing). So 4 agents can stop after 3 calls. Layer 1 is checked too (each agent that was
 *   called answered once); code never stops before step 3.
 * - Early stop, `stopCheck: 'layer'`: a layer's nodes run concurrently and the check runs once all answered.
 * - Either way a layer is stored in the agents' order — input order, after a reformation the ranker's order of the
 *   kept agents — not in call order; with `answer` the last layer holds only the agents called before the stop.
 * - Reformation after step `reformAt` when the run goes on and more than `keep` agents are active. A ranking
 *   that names too few active agents falls back to the majority-agreement order, visibly (event, count, reason).
 *   Without a ranker the fallback order is used and reported the same way. `kept` is in the ranker's order, and
 *   so are the layers after it: a tie is then broken by the ranker's judgement, not by where an agent happens to
 *   be listed in the team file (which would also bias importance towards agents listed early).
 * - Final answer: the largest agreeing group of the last layer, its first member's answer in layer order (so
 *   a tie goes to the answer given first: the ranker's first choice after a reformation, else the team file's
 *   first agent); an empty answer never wins while any node answered. A tie is reported in `tie`. Code:
 *   candidates passing the most tests first (majority-answer.ts).
 * - Ratings a response could not give (wrong count, not numbers) become equal weights with
 *   `ratingsParsed: false`; values outside 1–5 are clamped. Each such node is counted in `ratingFallbacks`.
 * - Abort: checked before every layer and the ranker, and passed to every call; an abort rejects with the
 *   abort error (no partial result).
 * - An agent's failure (e.g. a provider error after its retries) rejects the run with a WeftError of the same
 *   code naming the agent and the step, the original as `cause`; aborts pass through unwrapped.
 */
import { WeftError, isAbortError, isWeftError, rewordError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { randomFrom, shuffled } from '../llm/seeded-random.js';
import { throwIfAborted } from '../llm/timeout.js';
import { importanceScores } from './importance.js';
import { NEUTRAL_RATING } from './llm-agent.js';
import { explainedFallback, type RankResult, type Ranker } from './llm-ranker.js';
import { isConsensus, largestAgreeingGroup, majorityAnswer } from './majority-answer.js';
import { STOP_CHECKS } from './team.js';
import type {
  AgentInput,
  AgentResponse,
  FinalTie,
  PeerResponse,
  Reformation,
  StopCheck,
  TeamAgent,
  TeamNode,
  TeamQuery,
  TeamResult,
} from './team.js';
import type { TeamEvent } from './team-events.js';

export type { RankResult, Ranker } from './llm-ranker.js';

export const TEAM_DEFAULTS = Object.freeze({ maxSteps: 4, codeMaxSteps: 6, reformAt: 3, keep: 2, codeMinStopStep: 3 });

export interface RunTeamOptions {
  readonly agents: readonly TeamAgent[];
  readonly query: TeamQuery;
  /** Used by the reformation; without one the visible majority fallback ranks the agents. */
  readonly ranker?: Ranker;
  /** Default 4 (6 for `code`, docs/algorithms.md#temporal-feed-forward-network). */
  readonly maxSteps?: number;
  /** Reform after this step; default 3, 0 = never. */
  readonly reformAt?: number;
  /** Agents kept by the reformation; default 2. */
  readonly keep?: number;
  /** Stop on consensus; default true. */
  readonly earlyStop?: boolean;
  /** When consensus is checked: after each answer (default, the authors' code) or after each whole layer. */
  readonly stopCheck?: StopCheck;
  /**
   * With `stopCheck: 'answer'`: the order a layer's agents are called in, instead of the seeded shuffle (e.g. to
   * replay a recorded run in its recorded order). Given the step and the active agents' names in layer order, it
   * must return the same names in any order; anything else rejects the run with BAD_INPUT.
   */
  readonly callOrder?: (step: number, agents: readonly string[]) => readonly string[];
  /** Seeds the peers' shuffle and, with `stopCheck: 'answer'`, the order of a layer's calls; default 0. */
  readonly seed?: number | string;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: TeamEvent) => void;
}

export async function runTeam(options: RunTeamOptions): Promise<TeamResult> {
  const { agents, query, ranker, signal } = options;
  const maxSteps = options.maxSteps ?? (query.kind === 'code' ? TEAM_DEFAULTS.codeMaxSteps : TEAM_DEFAULTS.maxSteps);
  const reformAt = options.reformAt ?? TEAM_DEFAULTS.reformAt;
  const keep = options.keep ?? TEAM_DEFAULTS.keep;
  const earlyStop = options.earlyStop ?? true;
  const seed = options.seed ?? 0;
  const stopCheck = options.stopCheck ?? 'answer';
  validateOptions(agents, maxSteps, reformAt, keep, stopCheck);
  const emit = (event: TeamEvent): void => options.onEvent?.(event);
  const minStopStep = query.kind === 'code' ? TEAM_DEFAULTS.codeMinStopStep : 1;

  let active: readonly TeamAgent[] = agents;
  const layers: TeamNode[][] = [];
  let calls = 0;
  let ratingFallbacks = 0;
  let rankerFallbacks = 0;
  let reformation: Reformation | undefined;
  let stopReason: TeamResult['stopReason'] = 'max-steps';

  const record = (
    step: number,
    agent: TeamAgent,
    peers: readonly PeerResponse[],
    response: AgentResponse,
  ): TeamNode => {
    const ratings = checkedRatings(response, peers.length);
    calls += response.calls;
    const node: TeamNode = {
      step,
      agent: agent.name,
      answer: response.answer,
      text: response.text,
      peers: peers.map((p) => p.agent),
      ratings: ratings.values,
      ratingsParsed: ratings.fallback === undefined,
      ...(response.tests ? { tests: response.tests } : {}),
    };
    emit({ type: 'node', node, calls: response.calls });
    if (ratings.fallback !== undefined) {
      ratingFallbacks++;
      emit({ type: 'rating-fallback', step, agent: agent.name, reason: ratings.fallback });
    }
    return node;
  };
  /** The consensus check over the nodes answered so far, against the layer's size; emitted, true to stop. */
  const check = (step: number, answered: readonly TeamNode[], size: number): boolean => {
    const group = largestAgreeingGroup(
      answered.map((n) => n.answer),
      query.kind,
    );
    const groupAnswer = group.length > 0 ? answered[group[0]!]!.answer : '';
    const agreeing = groupAnswer.trim() === '' ? 0 : group.length;
    const consensus = isConsensus(agreeing, size);
    const stop = consensus && earlyStop && step >= minStopStep;
    emit({
      type: 'consensus-check',
      step,
      agreeing,
      of: size,
      answered: answered.length,
      answer: groupAnswer,
      stop,
      reason: consensusReason(consensus, earlyStop, step, minStopStep, agreeing, answered.length, size),
    });
    return stop;
  };

  emit({ type: 'team-start', agents: agents.map((a) => a.name), maxSteps });
  for (let step = 1; step <= maxSteps; step++) {
    throwIfAborted(signal);
    emit({ type: 'layer-start', step, agents: active.map((a) => a.name) });
    // Every node of the previous layer, whether or not its agent was kept: after a reformation the kept agents
    // read every answer of the reformation step (DyLAN's Eq. 7), and only kept agents' nodes exist after it.
    const previous: PeerResponse[] = (layers.at(-1) ?? []).map((node) => ({
      agent: node.agent,
      answer: node.answer,
      text: node.text,
    }));
    const peersOf = (agent: TeamAgent): PeerResponse[] =>
      shuffled(randomFrom(seed, 'peers', query.question, step, agent.name), previous);

    let layer: TeamNode[];
    let stop = false;
    if (stopCheck === 'layer') {
      const outcomes = await Promise.all(
        active.map(async (agent) => {
          const peers = peersOf(agent);
          return { agent, peers, response: await respondOrExplain(agent, { query, step, peers }, signal) };
        }),
      );
      layer = outcomes.map(({ agent, peers, response }) => record(step, agent, peers, response));
      stop = check(step, layer, layer.length);
    } else {
      // One call at a time in a seeded shuffled order; a check after each answer once more than ⌊2N/3⌋ answered
      // (fewer cannot reach consensus), so a layer can end before all its agents were called.
      const order = options.callOrder
        ? orderedBy(
            options.callOrder(
              step,
              active.map((a) => a.name),
            ),
            active,
            step,
          )
        : shuffled(randomFrom(seed, 'order', query.question, step), active);
      const answered: TeamNode[] = [];
      for (const agent of order) {
        throwIfAborted(signal);
        const peers = peersOf(agent);
        answered.push(record(step, agent, peers, await respondOrExplain(agent, { query, step, peers }, signal)));
        if (answered.length > Math.floor((2 * active.length) / 3) && check(step, answered, active.length)) {
          stop = true;
          break;
        }
      }
      // Stored in the agents' order (team file, or ranker after a reformation), which breaks ties (see header).
      const position = new Map(active.map((agent, index) => [agent.name, index]));
      layer = answered.sort((x, y) => position.get(x.agent)! - position.get(y.agent)!);
    }
    layers.push(layer);
    if (stop) {
      stopReason = 'consensus';
      break;
    }
    if (step === maxSteps) break;

    if (reformAt > 0 && step === reformAt && active.length > keep) {
      throwIfAborted(signal);
      const responses = layer.map((n) => ({ agent: n.agent, answer: n.answer, text: n.text }));
      const ranked = await rankAgents(ranker, query, responses, keep, signal);
      calls += ranked.calls;
      const keptSet = new Set(ranked.kept);
      reformation = {
        afterStep: step,
        kept: ranked.kept,
        dropped: active.map((a) => a.name).filter((name) => !keptSet.has(name)),
        reason: ranked.reason,
        fallback: ranked.fallback,
      };
      if (ranked.fallback) {
        rankerFallbacks++;
        emit({ type: 'ranker-fallback', step, reason: ranked.reason });
      }
      emit({ type: 'reformation', reformation, calls: ranked.calls });
      // The ranker's order, not the team file's: the first in a layer wins a tied vote (see the header).
      const byName = new Map(active.map((a) => [a.name, a]));
      active = ranked.kept.map((name) => byName.get(name)!);
    }
  }

  const lastLayer = layers.at(-1) ?? [];
  const majority = majorityAnswer(lastLayer, query.kind);
  const { answer } = majority;
  // A reformation always has a layer after it, so the last layer is in the ranker's order when there was one.
  const tie: FinalTie | undefined = majority.tie
    ? { answers: majority.tie, brokenBy: reformation ? 'ranker order' : 'team order' }
    : undefined;
  const importance = importanceScores(layers, answer, query.kind);
  const stoppedAt = layers.length;
  emit({ type: 'team-end', step: stoppedAt, reason: stopReason, answer, calls });
  return {
    answer,
    stoppedAt,
    stopReason,
    stopCheck,
    layers,
    ...(reformation ? { reformation } : {}),
    ...(tie ? { tie } : {}),
    importanceByLayer: importance.byLayer,
    importance: importance.total,
    calls,
    ratingFallbacks,
    rankerFallbacks,
  };
}

/**
 * The agent's response; a failure is rethrown naming the agent and the step (a bare provider message does not
 * say which of several agents, at which step, failed), with the same code, retryability and the original as
 * `cause`. Aborts pass through as they are, so callers still recognise them.
 */
async function respondOrExplain(
  agent: TeamAgent,
  input: AgentInput,
  signal: AbortSignal | undefined,
): Promise<AgentResponse> {
  try {
    return await agent.respond(input, signal);
  } catch (error) {
    if (isAbortError(error) || signal?.aborted) throw error;
    const message = `team: agent "${agent.name}" failed at step ${input.step}: ${error instanceof Error ? error.message : String(error)}`;
    if (isWeftError(error)) {
      throw rewordError(error, message, error);
    }
    // Not Weft's own error: a bug in an agent (a tool, a test double) rather than a provider's answer.
    throw new WeftError('INTERNAL', message, { cause: error });
  }
}

/** The active agents in the order `callOrder` gave, which must name each of them exactly once. */
function orderedBy(names: readonly string[], active: readonly TeamAgent[], step: number): TeamAgent[] {
  const byName = new Map(active.map((agent) => [agent.name, agent]));
  const ordered = [...new Set(names)].flatMap((name) => byName.get(name) ?? []);
  if (names.length !== active.length || ordered.length !== active.length)
    throw new WeftError(
      'BAD_INPUT',
      `team: callOrder at step ${step} must name each of ${JSON.stringify([...byName.keys()])} once, got ${JSON.stringify(names)}`,
      { location: { field: 'callOrder' } },
    );
  return ordered;
}

/** The ratings a node keeps, or equal weights and why. */
function checkedRatings(response: AgentResponse, peerCount: number): { values: number[]; fallback?: string } {
  const neutral = (): number[] => Array.from({ length: peerCount }, () => NEUTRAL_RATING);
  if (!response.ratingsParsed)
    return { values: neutral(), fallback: 'the ratings in the reply could not be read; equal weights used' };
  if (response.ratings.length !== peerCount) {
    return {
      values: neutral(),
      fallback: `expected ${peerCount} rating(s), got ${response.ratings.length}; equal weights used`,
    };
  }
  if (!response.ratings.every(Number.isFinite))
    return { values: neutral(), fallback: 'a rating is not a number; equal weights used' };
  return { values: response.ratings.map((r) => Math.min(5, Math.max(1, r))) };
}

interface RankedAgents {
  readonly kept: string[];
  readonly calls: number;
  readonly fallback: boolean;
  readonly reason: string;
}

async function rankAgents(
  ranker: Ranker | undefined,
  query: TeamQuery,
  responses: readonly PeerResponse[],
  keep: number,
  signal: AbortSignal | undefined,
): Promise<RankedAgents> {
  const fallback = (why: string, calls: number): RankedAgents => {
    const { ranking, reason } = explainedFallback(query, responses, why);
    return { kept: ranking.slice(0, keep), calls, fallback: true, reason };
  };
  if (!ranker) return fallback('no ranker was given', 0);
  const result: RankResult = await ranker.rank(query, responses, keep, signal);
  if (result.fallback) {
    // The ranker already fell back; keep its reason but check its order like any other.
    const kept = usableRanking(result.ranking, responses, keep);
    return kept
      ? { kept, calls: result.calls, fallback: true, reason: result.reason }
      : fallback(result.reason, result.calls);
  }
  const kept = usableRanking(result.ranking, responses, keep);
  if (!kept)
    return fallback(
      `the ranking ${JSON.stringify(result.ranking)} names fewer than ${keep} of the active agents`,
      result.calls,
    );
  return { kept, calls: result.calls, fallback: false, reason: result.reason };
}

/** The first `keep` distinct active agents of a ranking, or undefined when there are fewer. */
function usableRanking(
  ranking: readonly string[],
  responses: readonly PeerResponse[],
  keep: number,
): string[] | undefined {
  const names = new Set(responses.map((r) => r.agent));
  const kept = [...new Set(ranking)].filter((name) => names.has(name)).slice(0, keep);
  return kept.length === keep ? kept : undefined;
}

function consensusReason(
  consensus: boolean,
  earlyStop: boolean,
  step: number,
  minStep: number,
  agreeing: number,
  answered: number,
  n: number,
): string {
  const count = `${agreeing} of ${n} agree${answered < n ? ` (${answered} answered)` : ''}`;
  if (!consensus) return `${count}; more than 2/3 needed`;
  if (!earlyStop) return `${count} (consensus), but early stop is off`;
  if (step < minStep) return `${count} (consensus), but code answers do not stop before step ${minStep}`;
  return `${count}: consensus (more than 2/3)`;
}

function validateOptions(
  agents: readonly TeamAgent[],
  maxSteps: number,
  reformAt: number,
  keep: number,
  stopCheck: StopCheck,
): void {
  const bad = (field: string, message: string): WeftError =>
    new WeftError('BAD_INPUT', `team: ${field} ${message}`, { location: { field } });
  if (agents.length === 0) throw bad('agents', 'must name at least one agent');
  const seen = new Set<string>();
  agents.forEach((agent, index) => {
    if (typeof agent.name !== 'string' || agent.name.trim() === '')
      throw bad(`agents[${index}].name`, 'must be a non-empty string');
    if (seen.has(agent.name))
      throw bad(`agents[${index}].name`, `repeats the agent name ${JSON.stringify(agent.name)}`);
    seen.add(agent.name);
  });
  integerOption(maxSteps, 'maxSteps', { min: 1 });
  integerOption(reformAt, 'reformAt', { min: 0 }); // 0: never re-form the team
  integerOption(keep, 'keep', { min: 1 });
  if (!(STOP_CHECKS as readonly string[]).includes(stopCheck))
    throw bad('stopCheck', `must be one of ${STOP_CHECKS.join(', ')}, got ${JSON.stringify(stopCheck)}`);
}
