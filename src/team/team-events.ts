/**
 * What `runTeam` reports while it runs, in order: one `team-start`; per layer `layer-start`, one `node` per agent,
 * each followed by `rating-fallback` when its ratings were replaced, and `consensus-check`s; then possibly
 * `ranker-fallback` and `reformation`; and one `team-end` at the end (the naming scheme of every engine's events is
 * in docs/contracts.md). With `stopCheck: 'answer'` the nodes come in the order the agents were
 * called (seeded, so the log does not depend on timing) and a `consensus-check` follows each answer from the
 * ⌊2N/3⌋+1-th on; with `'layer'` the nodes come in the agents' order once the layer finished, then one check. The CLI progress view reads
 * these events; a run records a team's outcome as one `team` event instead.
 */
import type { Reformation, TeamNode } from './team.js';

export type TeamEvent =
  | {
      readonly type: 'team-start';
      /** The agents in the team's order, and the most layers the run may take. */
      readonly agents: readonly string[];
      readonly maxSteps: number;
    }
  | { readonly type: 'layer-start'; readonly step: number; readonly agents: readonly string[] }
  | { readonly type: 'node'; readonly node: TeamNode; readonly calls: number }
  | { readonly type: 'rating-fallback'; readonly step: number; readonly agent: string; readonly reason: string }
  | {
      readonly type: 'consensus-check';
      readonly step: number;
      /** Size of the largest group of agreeing answers, and its answer. */
      readonly agreeing: number;
      /** The layer's size (its active agents). */
      readonly of: number;
      /** How many of them had answered when checked: `of` with `stopCheck: 'layer'`, fewer or equal with `answer`. */
      readonly answered: number;
      readonly answer: string;
      /** Whether the run stops here; false also when agreement was reached before early stop is allowed. */
      readonly stop: boolean;
      readonly reason: string;
    }
  | { readonly type: 'ranker-fallback'; readonly step: number; readonly reason: string }
  | { readonly type: 'reformation'; readonly reformation: Reformation; readonly calls: number }
  | {
      readonly type: 'team-end';
      readonly step: number;
      readonly reason: 'consensus' | 'max-steps';
      readonly answer: string;
      readonly calls: number;
    };

export type TeamEventType = TeamEvent['type'];

/** Names earlier versions emitted, and what they are called now. */
const RENAMED: Readonly<Record<string, TeamEventType>> = { stop: 'team-end' };

/**
 * A team event recorded by this or an earlier version, under today's name: earlier versions ended the stream with
 * `stop` (now `team-end`) and sent no `team-start`. Other events pass through unchanged.
 */
export function normalizeTeamEvent(event: { readonly type: string }): TeamEvent {
  const renamed = RENAMED[event.type];
  return (renamed === undefined ? event : { ...event, type: renamed }) as TeamEvent;
}
