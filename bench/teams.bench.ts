/**
 * DyLAN teams (docs/algorithms.md#dylan-teams) under `sim:` agents: accuracy and API calls per query of a single
 * agent (the best one), a fixed 4-agent debate (4 steps, no early stop, no ranker: 16 calls), DyLAN with the consensus
 * checked after each answer (the authors' code, the default) and after each whole layer, side by side, and DyLAN
 * without early stop and without reformation.
 *
 * The agents are sim models with per-agent accuracy (sim-team.ts: own answer right with probability `accuracy`,
 * a wrong agent takes its peers' majority with probability `follow`, informed ratings and rankings with
 * probability `accuracy`), each with its own seed. The queries are generated, their answer is `correct`.
 * Every method sees the same agents and queries, so an agent's step-1 answer to a query is the same in every
 * method (common random numbers): differences come from the methods, not from luck of the draw. The whole
 * comparison is repeated for several team seeds and averaged.
 */
import { simModel } from '../src/llm/sim-model.js';
import { createLlmAgent } from '../src/team/llm-agent.js';
import { createLlmRanker, type Ranker } from '../src/team/llm-ranker.js';
import { runTeam } from '../src/team/run-team.js';
import type { TeamAgent, TeamQuery, TeamResult } from '../src/team/team.js';
import type { Bench, BenchReport } from './report.js';

export const TEAM_AGENTS = [
  { name: 'analyst', accuracy: 0.75 },
  { name: 'solver', accuracy: 0.65 },
  { name: 'checker', accuracy: 0.6 },
  { name: 'skeptic', accuracy: 0.55 },
] as const;
/** The ranker is the best agent's model (DyLAN ranks with the same LLM). */
const RANKER_ACCURACY = 0.75;
const MAX_STEPS = 4;
const QUERIES = 100;
const TEAM_SEEDS = [1, 2, 3, 4, 5] as const;

export type TeamMethod =
  | 'single'
  | 'debate'
  | 'dylan'
  | 'dylan-layer-stop'
  | 'dylan-no-early-stop'
  | 'dylan-no-reformation';

export const METHOD_LABELS: Record<TeamMethod, string> = {
  single: 'single agent (the best, accuracy 0.75)',
  debate: 'fixed 4-agent debate (4 steps, no early stop, no ranker)',
  dylan: 'DyLAN (early stop checked per answer + reformation at step 3, keep 2)',
  'dylan-layer-stop': 'DyLAN, early stop checked per layer',
  'dylan-no-early-stop': 'DyLAN without early stop',
  'dylan-no-reformation': 'DyLAN without reformation',
};

/** One method's outcome on one query. */
export interface QueryOutcome {
  readonly right: boolean;
  readonly calls: number;
  /** Stopped by consensus before the last allowed step (so it saved calls). */
  readonly earlyStop: boolean;
  readonly stoppedAt: number;
  readonly rankerFallbacks: number;
  readonly ratingFallbacks: number;
  /** The team's Agent Importance Scores on this query (team methods only). */
  readonly importance?: Readonly<Record<string, number>>;
}

export interface MethodSummary {
  readonly queries: number;
  readonly accuracy: number;
  readonly callsPerQuery: number;
  readonly earlyStopRate: number;
  readonly meanStopStep: number;
  readonly rankerFallbacks: number;
  readonly ratingFallbacks: number;
}

export function summarizeOutcomes(outcomes: readonly QueryOutcome[]): MethodSummary {
  if (outcomes.length === 0) throw new RangeError('summarizeOutcomes() needs at least one outcome');
  const share = (test: (outcome: QueryOutcome) => boolean) => outcomes.filter(test).length / outcomes.length;
  const sum = (value: (outcome: QueryOutcome) => number) =>
    outcomes.reduce((total, outcome) => total + value(outcome), 0);
  return {
    queries: outcomes.length,
    accuracy: share((o) => o.right),
    callsPerQuery: sum((o) => o.calls) / outcomes.length,
    earlyStopRate: share((o) => o.earlyStop),
    meanStopStep: sum((o) => o.stoppedAt) / outcomes.length,
    rankerFallbacks: sum((o) => o.rankerFallbacks),
    ratingFallbacks: sum((o) => o.ratingFallbacks),
  };
}

/** `count` generated questions; every answer is `correct` (the sim's right answer). */
export function generatedQueries(count: number): TeamQuery[] {
  return Array.from({ length: count }, (_, index) => ({
    question: `Generated question ${index + 1}: what is the answer?`,
    kind: 'exact' as const,
    taskType: 'sim',
  }));
}

export interface SimTeam {
  readonly agents: TeamAgent[];
  readonly ranker: Ranker;
}

export function simTeam(seed: number): SimTeam {
  return {
    agents: TEAM_AGENTS.map((agent, index) =>
      createLlmAgent({
        name: agent.name,
        prompt: `You are the ${agent.name}.`,
        model: simModel({ accuracy: agent.accuracy, seed: seed * 100 + index }),
      }),
    ),
    ranker: createLlmRanker(simModel({ accuracy: RANKER_ACCURACY, seed: seed * 100 + 99 }), { seed }),
  };
}

export async function runMethod(
  method: TeamMethod,
  team: SimTeam,
  query: TeamQuery,
  seed: number,
): Promise<QueryOutcome> {
  if (method === 'single') {
    const best = team.agents[0]!;
    const response = await best.respond({ query, step: 1, peers: [] });
    return {
      right: response.answer === 'correct',
      calls: response.calls,
      earlyStop: false,
      stoppedAt: 1,
      rankerFallbacks: 0,
      ratingFallbacks: 0,
    };
  }
  const settings = {
    debate: { earlyStop: false, reformAt: 0 },
    dylan: { stopCheck: 'answer' as const },
    'dylan-layer-stop': { stopCheck: 'layer' as const },
    'dylan-no-early-stop': { earlyStop: false },
    'dylan-no-reformation': { reformAt: 0 },
  }[method];
  const usesRanker = method === 'dylan' || method === 'dylan-layer-stop' || method === 'dylan-no-early-stop';
  const result: TeamResult = await runTeam({
    agents: team.agents,
    query,
    maxSteps: MAX_STEPS,
    seed,
    ...settings,
    ...(usesRanker ? { ranker: team.ranker } : {}),
  });
  return {
    right: result.answer === 'correct',
    calls: result.calls,
    earlyStop: result.stopReason === 'consensus' && result.stoppedAt < MAX_STEPS,
    stoppedAt: result.stoppedAt,
    rankerFallbacks: result.rankerFallbacks,
    ratingFallbacks: result.ratingFallbacks,
    importance: result.importance,
  };
}

const METHODS = Object.keys(METHOD_LABELS) as TeamMethod[];

export const teamsBench: Bench = {
  name: 'teams',
  async run(): Promise<BenchReport> {
    const queries = generatedQueries(QUERIES);
    const outcomes = new Map<TeamMethod, QueryOutcome[]>(METHODS.map((method) => [method, []]));
    for (const seed of TEAM_SEEDS) {
      // A fresh team per method: sim models number repeated calls with the same tag, so a team shared across
      // methods would answer a later method's calls with later draws and break the common random numbers.
      for (const method of METHODS) {
        const team = simTeam(seed);
        for (const query of queries) outcomes.get(method)!.push(await runMethod(method, team, query, seed));
      }
    }
    const dylanRuns = outcomes.get('dylan')!;
    const importance = new Map<string, number>();
    for (const run of dylanRuns)
      for (const [agent, score] of Object.entries(run.importance ?? {}))
        importance.set(agent, (importance.get(agent) ?? 0) + score);
    const summaries = new Map(METHODS.map((method) => [method, summarizeOutcomes(outcomes.get(method)!)]));
    const debate = summaries.get('debate')!;
    const dylan = summaries.get('dylan')!;
    const perLayer = summaries.get('dylan-layer-stop')!;
    const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
    return {
      title: `DyLAN teams under sim agents: ${QUERIES} generated queries × ${TEAM_SEEDS.length} team seeds, agent accuracy ${TEAM_AGENTS.map((a) => a.accuracy).join(' / ')}`,
      rows: [
        {
          label: 'DyLAN calls per query (goal: below the fixed debate)',
          value: dylan.callsPerQuery,
          goal: { comparison: '<', target: debate.callsPerQuery },
        },
        {
          label: 'DyLAN calls per query, consensus checked per answer (goal: at most per layer)',
          value: dylan.callsPerQuery,
          goal: { comparison: '<=', target: perLayer.callsPerQuery },
        },
        { label: 'DyLAN calls per query, consensus checked per layer', value: perLayer.callsPerQuery },
        {
          label: "DyLAN accuracy (goal: at least the debate's − 0.01)",
          value: dylan.accuracy,
          goal: { comparison: '>=', target: debate.accuracy - 0.01 },
        },
      ],
      table: {
        header: [
          'method',
          'accuracy',
          'calls / query',
          'early stop',
          'mean stop step',
          'ranker fallbacks',
          'rating fallbacks',
        ],
        cells: METHODS.map((method) => {
          const summary = summaries.get(method)!;
          return [
            METHOD_LABELS[method],
            percent(summary.accuracy),
            summary.callsPerQuery.toFixed(2),
            method === 'single' ? '-' : percent(summary.earlyStopRate),
            summary.meanStopStep.toFixed(2),
            String(summary.rankerFallbacks),
            String(summary.ratingFallbacks),
          ];
        }),
      },
      notes: [
        `Sim agents: ${TEAM_AGENTS.map((a) => `${a.name} ${a.accuracy}`).join(', ')}; follow=0.5 (a wrong agent takes its peers' majority half the time); ranker accuracy ${RANKER_ACCURACY}.`,
        'The right answer is `correct`, wrong ones `wrong-1..3`; ratings are informed with probability `accuracy`. Same agents, seeds and queries for every method.',
        `Mean DyLAN importance per query: ${[...importance].map(([agent, total]) => `${agent} ${(total / dylanRuns.length).toFixed(3)}`).join(', ')} (sums to the number of layers).`,
        'Sim agents redraw their own answer at every step (they remember only what the prompt shows), so the two agents left after a reformation often split at step 4,',
        'and a 2-agent tie goes to the ranker\'s first choice, made on the previous step\'s answers: that is why "without early stop" loses accuracy here; early stop usually ends the run before the reformation.',
        `Calls per query with the consensus checked after each answer (agents called one at a time, as the authors' code): ${dylan.callsPerQuery.toFixed(2)}; after each whole layer (agents called at once): ${perLayer.callsPerQuery.toFixed(2)}. The answers and stop steps are the same; a layer checked per answer can end before its last agent is called.`,
        'These numbers measure the team engine on a simulated model, not any language model.',
      ],
    };
  },
};
