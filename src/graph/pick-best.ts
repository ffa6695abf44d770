import { WeftError } from '../errors.js';
import { workflowMetrics, type WorkflowMetrics } from './workflow-metrics.js';
import type { Workflow } from './workflow.js';

/** What candidate selection looks at; a `WorkflowMetrics` is one. */
export type CandidateScore = Pick<WorkflowMetrics, 'parallelism' | 'dependencyComplexity'>;

/** Differences below this are float noise (e.g. 4/3 computed two ways), not a preference. */
export const SCORE_TOLERANCE = 1e-9;

/**
 * Orders candidates best first (docs/algorithms.md#planning): higher P_avg wins; at equal P_avg, lower C_dep wins.
 * Negative when `a` is better, positive when `b` is, 0 when they tie.
 */
export function compareCandidates(a: CandidateScore, b: CandidateScore): number {
  const parallelismGap = b.parallelism - a.parallelism;
  if (Math.abs(parallelismGap) > SCORE_TOLERANCE) return parallelismGap;
  const complexityGap = a.dependencyComplexity - b.dependencyComplexity;
  if (Math.abs(complexityGap) > SCORE_TOLERANCE) return complexityGap;
  return 0;
}

/** The index of the best candidate; a full tie goes to the earliest. Throws on an empty list. */
export function pickBest(workflows: readonly Pick<Workflow, 'subtasks'>[]): number {
  if (workflows.length === 0) throw new WeftError('BAD_INPUT', 'Expected at least one candidate workflow, got none');
  const scores = workflows.map((workflow) => workflowMetrics(workflow));
  let best = 0;
  scores.forEach((score, index) => {
    const current = scores[best];
    if (current && compareCandidates(score, current) < 0) best = index;
  });
  return best;
}
