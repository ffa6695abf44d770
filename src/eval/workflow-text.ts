/**
 * A workflow in WorfBench's text form (docs/algorithms.md#worfbench-workflow-text): a numbered node chain, then edges
 * over the numbers with START and END as the two ends. Types only; parsing, formatting and scoring live in files of
 * their own.
 */

/** Where an edge can start: a node number (1-based, as written) or START. */
export type EdgeSource = number | 'START';
/** Where an edge can end: a node number (1-based, as written) or END. */
export type EdgeTarget = number | 'END';

export interface WorkflowText {
  /** Node texts in chain order: node k (1-based) is `nodes[k - 1]`. */
  readonly nodes: readonly string[];
  /** Edges `[from, to]`, deduplicated, in the order written. Never START→END, never a self-loop. */
  readonly edges: readonly (readonly [from: EdgeSource, to: EdgeTarget])[];
}
