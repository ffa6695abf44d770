/**
 * What `weft team` prints: the `--json` document and the human report of one team run (answer, layers, who
 * was kept or dropped and why, importance, calls), and why an optimised team was used. Pure.
 */
import type { TeamSelection } from '../run/events.js';
import type { TeamResult } from '../team/team.js';

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
  readonly layers: TeamResult['layers'];
  readonly reformation: TeamResult['reformation'] | null;
  readonly importance: TeamResult['importance'];
  readonly importanceByLayer: TeamResult['importanceByLayer'];
  readonly calls: number;
  readonly ratingFallbacks: number;
  readonly rankerFallbacks: number;
  readonly models: TeamModels;
  /** Which agents of the team file ran and why (saved importance scores), or null with `--no-optimized`. */
  readonly selection: TeamSelection | null;
}

export function teamRunDocument(team: string, result: TeamResult, models: TeamModels, selection: TeamSelection | undefined): TeamRunDocument {
  return {
    team,
    answer: result.answer,
    stoppedAt: result.stoppedAt,
    stopReason: result.stopReason,
    layers: result.layers,
    reformation: result.reformation ?? null,
    importance: result.importance,
    importanceByLayer: result.importanceByLayer,
    calls: result.calls,
    ratingFallbacks: result.ratingFallbacks,
    rankerFallbacks: result.rankerFallbacks,
    models,
    selection: selection ?? null,
  };
}

/** The lines saying which agents run and why: the reason, then the saved scores (✔ for the chosen). */
export function formatSelection(selection: TeamSelection): string[] {
  const left = new Set(selection.leftOut);
  return [
    selection.reason,
    ...(selection.scores ?? []).map(
      (score) => `  ${selection.optimized && !left.has(score.agent) ? '✔' : ' '} ${score.agent}  mean importance ${score.mean.toFixed(3)} over ${score.queries} ${score.queries === 1 ? 'query' : 'queries'}`,
    ),
    ...(selection.optimized ? ['  (--no-optimized runs every agent of the team file)'] : []),
  ];
}

/** The human report of one team run. */
export function formatTeamRun(document: TeamRunDocument): string[] {
  const lines: string[] = [];
  if (document.selection?.optimized) lines.push(...formatSelection(document.selection), '');
  lines.push(`answer: ${document.answer === '' ? '(none)' : document.answer}`);
  lines.push(
    document.stopReason === 'consensus'
      ? `stopped at step ${document.stoppedAt}: consensus (more than 2/3 of the layer agree)`
      : `stopped at step ${document.stoppedAt}: the step limit, without consensus; the answer is the last layer's majority`,
  );
  lines.push('');
  for (const [index, layer] of document.layers.entries()) {
    lines.push(`step ${index + 1}`);
    for (const node of layer) {
      const answer = node.answer.includes('\n') ? `${node.answer.split('\n')[0]} …` : node.answer === '' ? '(no answer)' : node.answer;
      const saw = node.peers.length === 0 ? 'saw only the question' : `saw ${node.peers.join(', ')}`;
      const rated = node.peers.length === 0 ? '' : node.ratingsParsed ? `; rated ${node.ratings.join(' ')}` : '; ratings unreadable (equal weights)';
      const tests = node.tests ? `; tests ${node.tests.passed}/${node.tests.total}` : '';
      lines.push(`  ${node.agent}: ${answer}  (${saw}${rated}${tests})`);
    }
    if (document.reformation && document.reformation.afterStep === index + 1) {
      const reform = document.reformation;
      lines.push(`  reformation after step ${reform.afterStep}: kept ${reform.kept.join(', ')}; dropped ${reform.dropped.length > 0 ? reform.dropped.join(', ') : 'none'}`);
      lines.push(`    why: ${reform.reason}${reform.fallback ? ' (fallback)' : ''}`);
    }
  }
  lines.push('');
  lines.push('importance (Σ over steps; each step sums to 1):');
  const ranked = Object.entries(document.importance).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  const width = Math.max(0, ...ranked.map(([agent]) => agent.length));
  for (const [agent, total] of ranked) {
    // An agent dropped by the reformation has no score in the later steps: shown as "-".
    const perStep = document.importanceByLayer.map((layer) => (layer[agent] === undefined ? '    -' : layer[agent].toFixed(3))).join(' ');
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
  const lines = [...byModel.values()].map(({ use, who }) => `  ${use.model}${use.kind === 'real' ? '' : ` (${use.kind} model)`}: ${who.join(', ')}`);
  return lines.length > 0 ? ['models:', ...lines] : [];
}
