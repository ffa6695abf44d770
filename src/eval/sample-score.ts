/** What WorfEval reports for one predicted workflow against its gold (docs/algorithms.md#worfeval-scoring). */
export interface SampleScore {
  readonly f1_chain: number;
  readonly p_chain: number;
  readonly r_chain: number;
  readonly f1_graph: number;
  readonly p_graph: number;
  readonly r_graph: number;
  /** Node pairs in the maximum-weight matching (similarity ≥ β). */
  readonly matched: number;
  /** l: the longest increasing subsequence over the gold orders tried. */
  readonly chainLength: number;
  /** k: nodes of the common induced subgraph, START and END not counted. */
  readonly graphNodes: number;
  /** How many gold orders f1_chain was computed against. */
  readonly ordersChecked: number;
  /** False when the MCIS search hit its time limit: k is then the best found, a lower bound. */
  readonly mcisExact: boolean;
}

export interface ScoreOptions {
  /** Similarity threshold β (docs/algorithms.md#node-similarity). Default 0.6. */
  readonly beta?: number;
  /** At most this many gold topological orders for f1_chain. Default 20. */
  readonly maxOrders?: number;
  /** Time limit of the exact MCIS search per sample, in milliseconds. Default 2000. */
  readonly mcisTimeLimitMs?: number;
}

export const DEFAULT_BETA = 0.6;
export const DEFAULT_MAX_ORDERS = 20;
export const DEFAULT_MCIS_TIME_LIMIT_MS = 2000;
