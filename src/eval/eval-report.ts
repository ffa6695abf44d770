/**
 * The result of `weft eval` (`--json` prints it as is). docs/contracts.md fixes the first fields
 * (`count, skipped, f1_chain, f1_graph, byScenario, samples`); the rest extends it and is never renamed.
 */
import type { SkippedPrediction } from './predictions-file.js';

export interface GroupScore {
  /** Scored samples in the group. */
  readonly count: number;
  /** Means over the group's scored samples. */
  readonly f1_chain: number;
  readonly f1_graph: number;
}

export interface SampleReport {
  readonly id: string;
  readonly f1_chain: number;
  readonly f1_graph: number;
  readonly p_chain: number;
  readonly r_chain: number;
  readonly p_graph: number;
  readonly r_graph: number;
  /** Matched node pairs (similarity ≥ β). */
  readonly matched: number;
  /** l: the longest chain found. */
  readonly chainLength: number;
  /** k: nodes of the common induced subgraph (START and END not counted). */
  readonly graphNodes: number;
  readonly goldNodes: number;
  readonly predictedNodes: number;
  /** False when the MCIS search hit its time limit (k is then a lower bound). */
  readonly mcisExact: boolean;
  /** The gold record's scenario, or its source when the source has none. */
  readonly scenario: string;
  readonly source: string;
  /** 1-based line of the prediction. */
  readonly line: number;
}

export interface EvalReport {
  /** Scored predictions. */
  readonly count: number;
  /** Prediction lines not scored (`skips` says why). */
  readonly skipped: number;
  /** Means over scored samples (0 when none). */
  readonly f1_chain: number;
  readonly f1_graph: number;
  /** By scenario (function call, embodied, problem-solving, open-grounded); an unknown source under its own name. */
  readonly byScenario: Readonly<Record<string, GroupScore>>;
  /** In prediction-file order. */
  readonly samples: readonly SampleReport[];
  /** The similarity's name: lexical scores are not comparable with the paper's embedding scores. */
  readonly similarity: string;
  readonly beta: number;
  readonly maxOrders: number;
  readonly mcisTimeLimitMs: number;
  readonly bySource: Readonly<Record<string, GroupScore>>;
  /** In line order. */
  readonly skips: readonly SkippedPrediction[];
  /** Gold records that no prediction line names. */
  readonly missing: number;
  /**
   * Means that count, once, each gold record whose prediction lines were all skipped as 0, so emitting
   * unusable text never raises a score. `count` is the number of gold records averaged over.
   */
  readonly withSkipsAsZero: { readonly count: number; readonly f1_chain: number; readonly f1_graph: number };
  /** Ids whose MCIS search hit its time limit. */
  readonly mcisTimeLimitHits: readonly string[];
}
