/**
 * Which agents of a team file run a workflow subtask (SPEC §3.4, selection): when the run store holds importance
 * scores for the team and task type, the top `size` agents by mean importance form the optimised team; otherwise
 * the whole file runs. Pure, and the reason is always spelled out: the report shows it.
 */
import { sortTeamScores, topAgents, type TeamScore } from '../store/team-scores.js';
import type { TeamSelection } from './events.js';

/** DyLAN's team size after optimisation (SPEC §3.1: N = 4). */
export const OPTIMIZED_TEAM_SIZE = 4;

export interface TeamChoice {
  /** The agents that run, in the team file's order. */
  readonly members: string[];
  readonly selection: TeamSelection;
}

/**
 * `pool`: the team file's agents in order; `scores`: what the store holds for (team, task type), any order;
 * `where`: names the key in the reason, e.g. `team "panel", task type "general"`.
 */
export function selectTeamMembers(pool: readonly string[], scores: readonly TeamScore[], where: string, size = OPTIMIZED_TEAM_SIZE): TeamChoice {
  const whole = (reason: string, shown: readonly TeamScore[] = []): TeamChoice => ({
    members: [...pool],
    selection: { optimized: false, reason, leftOut: [], ...(shown.length > 0 ? { scores: brief(shown) } : {}) },
  });
  const inPool = new Set(pool);
  // Scores of agents no longer in the file say nothing about this team.
  const usable = scores.filter((score) => inPool.has(score.agent));
  if (usable.length === 0) return whole(`no stored importance scores for ${where}: the whole team runs`);
  if (pool.length <= size) {
    return whole(`the team has ${pool.length} agent(s), no more than the optimised size ${size}: the whole team runs`, usable);
  }
  if (usable.length < size) {
    return whole(`only ${usable.length} of the ${pool.length} agents have stored scores for ${where} (${size} needed): the whole team runs`, usable);
  }
  const chosen = new Set(topAgents(usable, size));
  const members = pool.filter((agent) => chosen.has(agent));
  const leftOut = pool.filter((agent) => !chosen.has(agent));
  const ranked = brief(usable);
  const describe = (agent: string): string => {
    const score = ranked.find((entry) => entry.agent === agent);
    return score ? `${agent} (mean ${score.mean.toFixed(3)} over ${score.queries} quer${score.queries === 1 ? 'y' : 'ies'})` : `${agent} (no score)`;
  };
  const reason =
    `optimised team: the top ${size} of ${pool.length} agents by mean importance stored for ${where}: ` +
    `${[...chosen].map(describe).join(', ')}; left out ${leftOut.map(describe).join(', ')}`;
  return { members, selection: { optimized: true, reason, scores: ranked, leftOut } };
}

function brief(scores: readonly TeamScore[]): { agent: string; mean: number; queries: number }[] {
  return sortTeamScores([...scores]).map((score) => ({ agent: score.agent, mean: score.mean, queries: score.queries }));
}
