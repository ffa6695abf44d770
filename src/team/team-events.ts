/**
 * What `runTeam` reports while it runs, in order: per layer `layer-start`, one `node` per agent, each followed by
 * `rating-fallback` when its ratings were replaced, and `consensus-check`s; then possibly `ranker-fallback` and
 * `reformation`; and one `stop` at the end. With `stopCheck: 'answer'` the nodes come in the order the agents were
 * called (seeded, so the log does not depend on timing) and a `consensus-check` follows each answer from the
 * ⌊2N/3⌋+1-th on; with `'layer'` the nodes come in the agents' order once the layer finished, then one check. The CLI progress view and the run store read the same events.
 */
import type { Reformation, TeamNode } from './team.js';

export type TeamEvent =
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
      readonly type: 'stop';
      readonly step: number;
      readonly reason: 'consensus' | 'max-steps';
      readonly answer: string;
      readonly calls: number;
    };

export type TeamEventType = TeamEvent['type'];
