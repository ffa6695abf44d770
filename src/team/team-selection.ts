/**
 * Which agents of a team file run a workflow subtask (docs/algorithms.md#team-optimisation): when the run store holds
 * importance scores for the team and task type, the top `k` agents by mean importance form the optimised team, `k`
 * being the size the latest `weft team optimize --k` recorded for them (DyLAN's 4 when none did); otherwise the whole
 * file runs. Pure (callers read the scores and the size from the store), and the reason is always spelled out,
 * where the size came from included: the report shows it.
 */
import { sortTeamScores, topAgents, type TeamScore } from '../store/team-scores.js';
import type { TeamSpec } from './team.js';
import type { TeamScoreStore } from './team-score-store.js';
import type { TeamSelection } from '../run/events.js';

/**
 * DyLAN's team size after optimisation (docs/algorithms.md#team-optimisation: N = 4): the size when no
 * `weft team optimize --k` recorded one.
 */
export const OPTIMIZED_TEAM_SIZE = 4;

export interface TeamChoice {
  /** The agents that run, in the team file's order. */
  readonly members: string[];
  readonly selection: TeamSelection;
}

/** The size selection uses: the stored one, else OPTIMIZED_TEAM_SIZE. */
export function teamSizeOf(storedSize: number | undefined): number {
  return storedSize ?? OPTIMIZED_TEAM_SIZE;
}

/** Where the size came from, for a reason: `team size 2 set by \`weft team optimize --k 2\``. */
export function describeTeamSize(storedSize: number | undefined): string {
  return storedSize === undefined
    ? `DyLAN's default team size ${OPTIMIZED_TEAM_SIZE}: no \`weft team optimize --k\` recorded one`
    : `team size ${storedSize} set by \`weft team optimize --k ${storedSize}\``;
}

/**
 * `pool`: the team file's agents in order; `scores`: what the store holds for (team, task type), any order;
 * `where`: names the key in the reason, e.g. `team "panel", task type "general"`; `storedSize`: the team size the
 * store holds for that key (`TeamScoreStore.teamSize`), undefined when none was recorded (then OPTIMIZED_TEAM_SIZE).
 */
export function selectTeamMembers(
  pool: readonly string[],
  scores: readonly TeamScore[],
  where: string,
  storedSize: number | undefined,
  /** The llm agents of the pool; without any among the top k (tools only check answers) the whole team runs. */
  answerers: ReadonlySet<string> = new Set(pool),
): TeamChoice {
  const size = teamSizeOf(storedSize);
  const origin = describeTeamSize(storedSize);
  const whole = (reason: string, shown: readonly TeamScore[] = []): TeamChoice => ({
    members: [...pool],
    selection: { optimized: false, reason, leftOut: [], ...(shown.length > 0 ? { scores: brief(shown) } : {}) },
  });
  const inPool = new Set(pool);
  // Scores of agents no longer in the file say nothing about this team.
  const usable = scores.filter((score) => inPool.has(score.agent));
  if (usable.length === 0) return whole(`no stored importance scores for ${where}: the whole team runs`);
  if (pool.length <= size) {
    return whole(
      `the team has ${pool.length} agent(s), no more than the optimised size ${size} (${origin}): the whole team runs`,
      usable,
    );
  }
  if (usable.length < size) {
    return whole(
      `only ${usable.length} of the ${pool.length} agents have stored scores for ${where} (${size} needed; ${origin}): the whole team runs`,
      usable,
    );
  }
  const chosen = new Set(topAgents(usable, size));
  if (![...chosen].some((agent) => answerers.has(agent))) {
    return whole(
      `the top ${size} agents by mean importance stored for ${where} (${[...chosen].join(', ')}) include no llm agent to answer (${origin}): the whole team runs`,
      usable,
    );
  }
  const members = pool.filter((agent) => chosen.has(agent));
  const leftOut = pool.filter((agent) => !chosen.has(agent));
  const ranked = brief(usable);
  const describe = (agent: string): string => {
    const score = ranked.find((entry) => entry.agent === agent);
    return score
      ? `${agent} (mean ${score.mean.toFixed(3)} over ${score.queries} quer${score.queries === 1 ? 'y' : 'ies'})`
      : `${agent} (no score)`;
  };
  const reason =
    `optimised team: the top ${size} of ${pool.length} agents by mean importance stored for ${where}: ` +
    `${[...chosen].map(describe).join(', ')}; left out ${leftOut.map(describe).join(', ')} (${origin})`;
  return { members, selection: { optimized: true, reason, scores: ranked, leftOut } };
}

function brief(scores: readonly TeamScore[]): { agent: string; mean: number; queries: number }[] {
  return sortTeamScores([...scores]).map((score) => ({ agent: score.agent, mean: score.mean, queries: score.queries }));
}

/** selectTeamMembers for a team file: its agents in order, its llm agents, and (team, task type) in the reason. */
export function selectTeamFileMembers(
  spec: Pick<TeamSpec, 'name' | 'agents'>,
  taskType: string,
  scores: readonly TeamScore[],
  storedSize: number | undefined,
): TeamChoice {
  const answerers = new Set(spec.agents.filter((agent) => agent.kind === 'llm').map((agent) => agent.name));
  return selectTeamMembers(
    spec.agents.map((agent) => agent.name),
    scores,
    `team "${spec.name}", task type "${taskType}"`,
    storedSize,
    answerers,
  );
}

/** Reads what the store holds for (team, task type) and selects from it (nothing stored: the whole team). */
export async function selectStoredTeamMembers(
  store: Pick<TeamScoreStore, 'teamScores' | 'teamSize'> | undefined,
  spec: Pick<TeamSpec, 'name' | 'agents'>,
  taskType: string,
): Promise<TeamChoice> {
  const scores = store ? await store.teamScores(spec.name, taskType) : [];
  const size = store ? await store.teamSize(spec.name, taskType) : undefined;
  return selectTeamFileMembers(spec, taskType, scores, size);
}
