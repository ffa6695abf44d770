/**
 * A run's team subtasks for the dashboard, folded from its `team` events: per subtask, every team run in order
 * (a retried subtask has several), each with the agents' standing (kept, dropped at the reformation, left out
 * by selection) sorted by importance. Pure; the route serves it, the page draws it.
 */
import type { TeamSummary, WeftEvent } from '../run/events.js';

export type TeamAgentStanding = 'kept' | 'dropped' | 'left out';

export interface TeamAgentView {
  readonly agent: string;
  readonly standing: TeamAgentStanding;
  /** This query's Σ_t I(t, a); absent for agents that did not take part. */
  readonly importance?: number;
  /** The stored mean the selection saw before this run, when there was one. */
  readonly storedMean?: number;
  readonly storedQueries?: number;
}

export interface TeamRunView extends TeamSummary {
  /** Event time of the `team` event (ms since the run started). */
  readonly at: number;
  /** Members by importance (highest first), then the left-out agents. */
  readonly agents: readonly TeamAgentView[];
}

export interface TeamTask {
  readonly taskId: string;
  /** Oldest first; the last is the one the subtask's status came from. */
  readonly runs: readonly TeamRunView[];
}

export function teamRuns(events: Iterable<WeftEvent>): TeamTask[] {
  const byTask = new Map<string, TeamRunView[]>();
  for (const event of events) {
    if (event.type !== 'team') continue;
    const { type: _type, ...summary } = event;
    const runs = byTask.get(event.taskId) ?? [];
    runs.push({ ...summary, agents: teamAgents(summary) });
    byTask.set(event.taskId, runs);
  }
  return [...byTask].map(([taskId, runs]) => ({ taskId, runs }));
}

export function teamAgents(team: TeamSummary): TeamAgentView[] {
  const dropped = new Set(team.reformation?.dropped ?? []);
  const leftOut = new Set(team.selection.leftOut);
  const stored = new Map((team.selection.scores ?? []).map((score) => [score.agent, score]));
  const members = team.members
    .filter((agent) => !leftOut.has(agent))
    .sort((a, b) => (team.importance[b] ?? 0) - (team.importance[a] ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
  const view = (agent: string, standing: TeamAgentStanding): TeamAgentView => {
    const importance = team.importance[agent];
    const before = stored.get(agent);
    return {
      agent,
      standing,
      ...(typeof importance === 'number' && Number.isFinite(importance) ? { importance } : {}),
      ...(before ? { storedMean: before.mean, storedQueries: before.queries } : {}),
    };
  };
  return [
    ...members.map((agent) => view(agent, dropped.has(agent) ? 'dropped' : 'kept')),
    ...team.selection.leftOut.map((agent) => view(agent, 'left out')),
  ];
}
