import type { workflowMetrics } from '../graph/index.js';
import type { CandidateSummary } from './events.js';

/** The event form of a plan or update candidate. */
export function candidateSummary(candidate: {
  index: number;
  metrics?: ReturnType<typeof workflowMetrics>;
  error?: string;
}): CandidateSummary {
  return {
    index: candidate.index,
    subtasks: candidate.metrics?.subtasks ?? 0,
    levels: candidate.metrics?.levels ?? 0,
    parallelism: candidate.metrics?.parallelism ?? 0,
    dependencyComplexity: candidate.metrics?.dependencyComplexity ?? 0,
    ...(candidate.error ? { error: candidate.error } : {}),
  };
}
