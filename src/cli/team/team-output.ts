/**
 * What `weft team` prints: the `--json` document and the human report of one team run (answer, layers, who
 * was kept or dropped and why, importance, calls), which agents ran and why, and the reports of `optimize`
 * and `eval`. Pure.
 */
import type { OptimizeTeamResult, TeamEvaluation, TeamResult, TeamSelection, TeamSummary } from '../../internal.js';

/** The model each agent (and the ranker) used: a spec id and whether it is real, scripted or simulated. */
export interface ModelUse {
  readonly model: string;
  readonly kind: 'real' | 'scripted' | 'sim';
}

export interface TeamModels {
  /** By agent name; tool agents are absent. */
  readonly agents: Readonly<Record<string, ModelUse>>;
  readonly ranker?: ModelUse;
}

export interface TeamRunDocument {
  readonly team: string;
  readonly answer: string;
  readonly stoppedAt: number;
  readonly stopReason: TeamResult['stopReason'];
  /** When consensus was checked: after each answer, or after each whole layer. */
  readonly stopCheck: TeamResult['stopCheck'];
  readonly layers: TeamResult['layers'];
  readonly reformation: TeamResult['reformation'] | null;
  /** The final layer's tie and how it was broken, or null when the majority decided alone. */
  readonly tie: NonNullable<TeamResult['tie']> | null;
  readonly importance: TeamResult['importance'];
  readonly importanceByLayer: TeamResult['importanceByLayer'];
  readonly calls: number;
  readonly ratingFallbacks: number;
  readonly rankerFallbacks: number;
  readonly models: TeamModels;
  /** Which agents of the team file ran and why (saved importance scores), or null with `--no-optimized`. */
  readonly selection: TeamSelection | null;
}

export function teamRunDocument(
  team: string,
  result: TeamResult,
  models: TeamModels,
  selection: TeamSelection | undefined,
): TeamRunDocument {
  return {
    team,
    answer: result.answer,
    stoppedAt: result.stoppedAt,
    stopReason: result.stopReason,
    stopCheck: result.stopCheck,
    layers: result.layers,
    reformation: result.reformation ?? null,
    tie: result.tie ?? null,
    importance: result.importance,
    importanceByLayer: result.importanceByLayer,
    calls: result.calls,
    ratingFallbacks: result.ratingFallbacks,
    rankerFallbacks: result.rankerFallbacks,
    models,
    selection: selection ?? null,
  };
}

/**
 * Which agents run and why, always shown. An optimised team's reason already lists every agent with its mean,
 * so the scores are listed only when the whole team runs anyway. `null`: `--no-optimized`.
 */
export function formatSelection(selection: TeamSelection | null): string[] {
  if (selection === null) return ['every agent of the team file runs (--no-optimized)'];
  if (selection.optimized) return [selection.reason, '  (--no-optimized runs every agent of the team file)'];
  return [
    selection.reason,
    ...(selection.scores ?? []).map(
      (score) =>
        `  ${score.agent}  mean importance ${score.mean.toFixed(3)} over ${score.queries} ${score.queries === 1 ? 'query' : 'queries'}`,
    ),
  ];
}

const TIE_BREAKS: Readonly<Record<NonNullable<TeamResult['tie']>['brokenBy'], string>> = {
  'ranker order': "the ranker's order (the tied answer of the agent it ranked highest wins)",
  'team order': "the team file's order (the tied answer of the agent listed first wins)",
};

/** The human report of one team run. */
export function formatTeamRun(document: TeamRunDocument): string[] {
  const lines: string[] = [...formatSelection(document.selection), ''];
  lines.push(`answer: ${document.answer === '' ? '(none)' : document.answer}`);
  lines.push(
    document.stopReason === 'consensus'
      ? `stopped at step ${document.stoppedAt}: consensus (more than 2/3 of the layer agree, checked ${document.stopCheck === 'answer' ? 'after each answer' : 'after the whole layer'})`
      : `stopped at step ${document.stoppedAt}: the step limit, without consensus; the answer is the last layer's ${document.tie ? 'first tied answer' : 'majority'}`,
  );
  // A tie is not a majority: say which answers tied and what chose among them.
  if (document.tie)
    lines.push(
      `tie between ${document.tie.answers.map((answer) => JSON.stringify(clip(answer))).join(', ')}, broken by ${TIE_BREAKS[document.tie.brokenBy]}`,
    );
  lines.push('');
  for (const [index, layer] of document.layers.entries()) {
    lines.push(`step ${index + 1}`);
    for (const node of layer) {
      const answer = node.answer.includes('\n')
        ? `${node.answer.split('\n')[0]} …`
        : node.answer === ''
          ? '(no answer)'
          : node.answer;
      const saw = node.peers.length === 0 ? 'saw only the question' : `saw ${node.peers.join(', ')}`;
      const rated =
        node.peers.length === 0
          ? ''
          : node.ratingsParsed
            ? `; rated ${node.ratings.join(' ')}`
            : '; ratings unreadable (equal weights)';
      const tests = node.tests ? `; tests ${node.tests.passed}/${node.tests.total}` : '';
      lines.push(`  ${node.agent}: ${answer}  (${saw}${rated}${tests})`);
    }
    if (document.reformation && document.reformation.afterStep === index + 1) {
      const reform = document.reformation;
      lines.push(
        `  reformation after step ${reform.afterStep}: kept ${reform.kept.join(', ')}; dropped ${reform.dropped.length > 0 ? reform.dropped.join(', ') : 'none'}`,
      );
      lines.push(`    why: ${reform.reason}${reform.fallback ? ' (fallback)' : ''}`);
    }
  }
  lines.push('');
  lines.push('importance (Σ over steps; each step sums to 1):');
  const ranked = Object.entries(document.importance).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  const width = Math.max(0, ...ranked.map(([agent]) => agent.length));
  for (const [agent, total] of ranked) {
    // An agent dropped by the reformation has no score in the later steps: shown as "-".
    const perStep = document.importanceByLayer
      .map((layer) => (layer[agent] === undefined ? '    -' : layer[agent].toFixed(3)))
      .join(' ');
    lines.push(`  ${agent.padEnd(width)}  ${total.toFixed(3)}  (by step: ${perStep})`);
  }
  lines.push('');
  const fallbacks = [
    document.ratingFallbacks > 0 ? `${document.ratingFallbacks} unreadable rating list(s)` : '',
    document.rankerFallbacks > 0 ? `${document.rankerFallbacks} ranker fallback(s)` : '',
  ].filter((part) => part !== '');
  lines.push(`calls: ${document.calls} for this query${fallbacks.length > 0 ? `; ${fallbacks.join(', ')}` : ''}`);
  lines.push(...modelLines(document.models));
  return lines;
}

/** One line naming the models, labelling scripted and simulated ones. */
export function modelLines(models: TeamModels): string[] {
  const byModel = new Map<string, { use: ModelUse; who: string[] }>();
  const add = (who: string, use: ModelUse) => {
    const entry = byModel.get(use.model) ?? { use, who: [] };
    entry.who.push(who);
    byModel.set(use.model, entry);
  };
  for (const [agent, use] of Object.entries(models.agents)) add(agent, use);
  if (models.ranker) add('ranker', models.ranker);
  const lines = [...byModel.values()].map(
    ({ use, who }) => `  ${use.model}${use.kind === 'real' ? '' : ` (${use.kind} model)`}: ${who.join(', ')}`,
  );
  return lines.length > 0 ? ['models:', ...lines] : [];
}

/** Wrong answers listed in the human report; `--json` has every item. */
const SHOWN_WRONG = 10;

export function formatEvaluation(
  team: string,
  data: string,
  evaluation: TeamEvaluation,
  earlyStops: number,
  models: TeamModels,
  selection: TeamSelection | null,
): string[] {
  const percent = (value: number) => `${(100 * value).toFixed(1)} %`;
  const wrong = evaluation.perItem.filter((item) => !item.correct);
  const finished = evaluation.total - evaluation.failed;
  return [
    ...formatSelection(selection),
    '',
    `team "${team}" on ${data}: ${evaluation.total} ${evaluation.total === 1 ? 'item' : 'items'}${evaluation.cancelled ? ` (cancelled: ${evaluation.cancelled.finished} of ${evaluation.cancelled.of} finished)` : ''}`,
    `accuracy        ${evaluation.accuracy.toFixed(4)}  (${evaluation.correct}/${evaluation.total})`,
    `calls per query ${evaluation.callsPerQuery.toFixed(2)}  (${evaluation.calls} calls${evaluation.failed > 0 ? ` over the ${finished} finished items` : ''})`,
    `early stop      ${percent(evaluation.total === 0 ? 0 : earlyStops / evaluation.total)}  (consensus before the step limit; mean stop step ${evaluation.meanStop.toFixed(2)})`,
    ...(evaluation.failed > 0
      ? [
          `failed          ${evaluation.failed} of ${evaluation.total} ${evaluation.total === 1 ? 'item' : 'items'} (the run did not finish; counted as wrong)`,
        ]
      : []),
    ...(evaluation.ratingFallbacks + evaluation.rankerFallbacks > 0
      ? [
          `fallbacks       ${evaluation.ratingFallbacks} unreadable rating list(s), ${evaluation.rankerFallbacks} ranker fallback(s)`,
        ]
      : []),
    ...(wrong.length > 0
      ? [
          `wrong answers${wrong.length > SHOWN_WRONG ? ` (first ${SHOWN_WRONG} of ${wrong.length}; --json lists every item)` : ''}:`,
          ...wrong.slice(0, SHOWN_WRONG).map((item) => `  ${item.id}: ${whyWrong(item)}`),
        ]
      : []),
    ...modelLines(models),
  ];
}

/** Why an item counts as wrong: its run failed, its code failed tests, or its answer differs. */
function whyWrong(item: TeamEvaluation['perItem'][number]): string {
  if (item.error !== undefined) return `failed: ${clip(item.error, 200)}`;
  const answered = item.answer.trim() === '' ? '(no answer)' : `answered ${JSON.stringify(clip(item.answer))}`;
  if (item.tests) return `tests ${item.tests.passed}/${item.tests.total} passed; ${answered}`;
  return `${answered}, expected ${JSON.stringify(clip(item.expected))}`;
}

function clip(text: string, max = 60): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > max || text.includes('\n') ? `${line.slice(0, max)}…` : line;
}

/** What later runs take after an optimisation: the stored size and the agents it picks from the stored totals. */
export interface OptimizedTeamUse {
  /** The team size later runs take: the one stored, `k` after a save. */
  readonly size: number;
  /** The agents they run, in the team file's order. */
  readonly members: readonly string[];
  /** False when the whole team runs (it has no more agents than `size`, or too few are scored). */
  readonly optimized: boolean;
}

export function formatOptimizeResult(
  team: string,
  taskType: string,
  k: number,
  queries: readonly { id: string }[],
  result: Pick<OptimizeTeamResult, 'chosen' | 'dropped' | 'scores' | 'calls' | 'callsPerQuery' | 'failed'>,
  stored: readonly { agent: string; mean: number; queries: number }[],
  later: OptimizedTeamUse,
  models: TeamModels,
): string[] {
  const n = queries.length;
  const finished = n - result.failed.length;
  const width = Math.max(5, ...Object.keys(result.scores).map((agent) => agent.length));
  const row = (agent: string, chosen: boolean) => {
    const score = result.scores[agent]!;
    return `  ${chosen ? '✔' : ' '} ${agent.padEnd(width)}  mean ${score.mean.toFixed(3)}  total ${score.total.toFixed(3)} over ${score.queries} ${score.queries === 1 ? 'query' : 'queries'}`;
  };
  const failures = [
    `failed: ${result.failed.length} of ${n} ${n === 1 ? 'query' : 'queries'} (not scored):`,
    ...result.failed
      .slice(0, SHOWN_WRONG)
      .map((failure) => `  ${queries[failure.index]?.id ?? failure.index + 1}: ${clip(failure.error, 200)}`),
  ];
  if (finished === 0) {
    return [
      `team "${team}": no sample query finished, so nothing was scored or saved (--k ${k} was not recorded either)`,
      ...failures,
      ...modelLines(models),
    ];
  }
  // The store's totals (all optimisations so far) rank, with ties going by name: the team can differ from the ✔.
  const differs =
    later.optimized &&
    (later.members.length !== result.chosen.length || later.members.some((agent) => !result.chosen.includes(agent)));
  const runs = later.optimized
    ? `the top ${later.size} by stored mean: ${later.members.join(', ')}${differs ? ' (not the ✔ above: the stored totals rank them, ties going by name)' : ''}`
    : `the whole team (${later.members.length} ${later.members.length === 1 ? 'agent' : 'agents'}, no more than ${later.size}): ${later.members.join(', ')}`;
  return [
    `top ${k} of team "${team}" (task type "${taskType}") by Agent Importance Score: ${result.chosen.join(', ')}`,
    `scores on ${finished} sample ${finished === 1 ? 'query' : 'queries'}, best first (✔ the top ${k}):`,
    ...result.chosen.map((agent) => row(agent, true)),
    ...result.dropped.map((agent) => row(agent, false)),
    `calls: ${result.calls} (${result.callsPerQuery.toFixed(2)} per query)`,
    ...(result.failed.length > 0 ? failures : []),
    '',
    `saved in the run store under team "${team}", task type "${taskType}"; the totals now stored (all optimisations so far):`,
    ...stored.map(
      (score) =>
        `  ${score.agent.padEnd(width)}  mean ${score.mean.toFixed(3)} over ${score.queries} ${score.queries === 1 ? 'query' : 'queries'}`,
    ),
    `team size ${later.size} recorded (the latest optimisation's --k wins): \`weft team\`, \`weft team eval\` and workflow team roles now run ${runs} (--no-optimized runs every agent).`,
    ...modelLines(models),
  ];
}

/** How a workflow's team subtask ended, in one line's worth: `consensus at step 2, 8 calls, dropped a, b`. */
export function teamOutcome(team: Pick<TeamSummary, 'stopReason' | 'stoppedAt' | 'calls' | 'reformation'>): string {
  return `${team.stopReason} at step ${team.stoppedAt}, ${team.calls} calls${team.reformation ? `, dropped ${team.reformation.dropped.join(', ') || 'none'}` : ''}`;
}
