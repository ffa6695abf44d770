/** The workflow graph: model, validation, ordering, metrics, diff and export. Pure; no I/O. */
export type { Role, RoleKind, Subtask, SubtaskStatus, Workflow, WorkflowJson } from './workflow.js';
export { SUBTASK_STATUSES } from './workflow.js';
export { parseWorkflow, toWorkflowJson, workflowFromJson } from './parse-workflow.js';
export type { ParseWorkflowOptions, ParseWorkflowResult } from './parse-workflow.js';
export { findCycle, topologicalOrder, topologicalOrders } from './topological-order.js';
export { levels } from './levels.js';
export { dependencyComplexity, parallelism, workflowMetrics } from './workflow-metrics.js';
export type { WorkflowMetrics } from './workflow-metrics.js';
export { compareCandidates, pickBest, SCORE_TOLERANCE } from './pick-best.js';
export type { CandidateScore } from './pick-best.js';
export { criticalPath } from './critical-path.js';
export type { CriticalPath } from './critical-path.js';
export { childrenOf, readyTasks } from './ready-tasks.js';
export { diffWorkflows, formatDiff } from './diff-workflows.js';
export type { WorkflowDiff } from './diff-workflows.js';
export { toDot, toMermaid } from './export-graph.js';
export type { MermaidOptions } from './export-graph.js';
