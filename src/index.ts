/**
 * `weft`: the library API for library users. Each export is something a user of the library calls or names: plan,
 * run, resume and read runs; score workflows (WorfEval); run agent teams (DyLAN); hold conversations to a procedure
 * (FlowAgent); run and distil executable workflows (FlowMind); open stores; make models and tools. Adding to it is
 * a deliberate change (test/public-api.test.ts lists every runtime export). What the CLI, the dashboard and the MCP
 * server need beyond this is in `weft/internal` (src/internal.ts), the scripted and simulated models and the store
 * conformance suites in `weft/test` (src/test.ts). Deep imports are not part of the contract.
 */

// Errors: one error type with codes, and the one-line message the CLI prints for it.
export { WeftError, formatError, isWeftError } from './errors.js';
export type { LocatedIssue, SourceLocation, WeftErrorCode } from './errors.js';

// Models and stores (the ChatModel contract, the provider registry, opening a home's store, pruning, update
// policies): src/core.ts, also importable alone as `weft/core`.
export * from './core.js';

// The `sim:` model's answers for every engine's calls, registered on import (src/sim-responders.ts), so a `sim:`
// model made through the library answers plans, subtasks, teams and conversations.
import './sim-responders.js';

// Workflow graphs: reading and writing plans, their metrics, diff and drawings (pure).
export type { Role, RoleKind, Subtask, SubtaskStatus, Workflow, WorkflowJson } from './graph/workflow.js';
export {
  parseWorkflow,
  toWorkflowJson,
  workflowFromJson,
  type ParseWorkflowOptions,
  type ParseWorkflowResult,
} from './graph/parse-workflow.js';
export { workflowMetrics, type WorkflowMetrics } from './graph/workflow-metrics.js';
export { diffWorkflows, type WorkflowDiff } from './graph/diff-workflows.js';
export { toDot, toMermaid, type MermaidOptions } from './graph/export-graph.js';

// Plan, run, resume (Flow): a task → candidate plans; a run of a plan; taking up an interrupted run.
export { planTask, type PlanCandidate, type PlanOptions, type PlanResult } from './plan/plan-task.js';
export { execute, type ExecutionOptions, type ExecutionResult, type ExecutionStrategy } from './run/execution.js';
export {
  runTask,
  type RunCommonOptions,
  type RunExecution,
  type RunPrompts,
  type RunRoles,
  type RunTaskOptions,
  type RunTaskResult,
  type RunToolOptions,
  type TaskCheckOptions,
} from './run/run-task.js';
export type { RunEvents, RunHandle } from './run/run-handle.js';
export { resumeRun, type ResumeRunOptions } from './run/resume-run.js';
export type { ModelCheck, RoleKindContext, RoleKindEngine, RoleKindSetup } from './run/role-kind.js';
export type { AttemptRunner, AttemptRunnerContext, AttemptRunnerFactory } from './run/attempt-runner.js';
export { defaultRoleKinds } from './role-kinds.js';
export type { Budget, ModelBudgetName } from './runtime/budget.js';
export {
  createBudgetScope,
  type BudgetScope,
  type BudgetScopeOptions,
  type BudgetStop,
  type BudgetUsage,
} from './runtime/budget-scope.js';

// A run's events (typed, as the store keeps them) and what is shown of a run: summary, result, report, plan history.
export type {
  CandidateSummary,
  RunStatus,
  TeamSelection,
  TeamSummary,
  UpdateStrategy,
  Verdict,
  WeftEvent,
  WeftEventType,
} from './run/events.js';
export { runEventPage, runEvents } from './run/run-events.js';
export { summarizeRun, type RetryFeedback, type RunSummary, type TaskSummary } from './run/run-summary.js';
export { runResult, type RunResult } from './run/run-result.js';
export { renderReport, type ReportInput } from './run/report.js';
export { planHistory, type PlanHistory, type PlanHistoryVersion } from './run/plan-history.js';

// Tracing (OpenTelemetry): spans go to whatever SDK is registered; startTelemetry registers one exporting over OTLP.
export {
  startTelemetry,
  stopTelemetry,
  type TelemetryHandle,
  type TelemetryOptions,
  type TelemetryStopResult,
} from './llm/start-telemetry.js';
export { setTelemetryContent } from './llm/telemetry.js';

// Tools: http, module and MCP tools under one contract; a tools file; one validated, bounded call.
export type { JsonValue, Tool, ToolCallContext, ToolSchema, ToolSet } from './tools/tool.js';
export { defineTool, type ToolDefinition, type ToolExecuteContext } from './tools/define-tool.js';
export { loadToolsFile } from './load-tools-file.js';
export type { LoadToolsFileOptions } from './tools/tools-file.js';
export { mergeToolSets } from './tools/merge-tool-sets.js';
export { callTool, type CallToolOptions, type ToolCallOutcome } from './tools/call-tool.js';

// Evaluation (WorfEval, WorfBench): workflow text, scoring against gold, prediction files, the benchmark runner.
export type { EdgeSource, EdgeTarget, WorkflowText } from './eval/workflow-text.js';
export { parseWorkflowText, type ParseWorkflowTextResult, type WorkflowTextIssue } from './eval/parse-workflow-text.js';
export { formatWorkflowText } from './eval/format-workflow-text.js';
export { workflowToWorkflowText } from './eval/workflow-text-graph.js';
export type { Similarity, SimilarityKind } from './eval/similarity.js';
export { createSimilarity, type CreateSimilarityOptions, type SimilaritySpec } from './eval/similarity-spec.js';
export { scoreWorkflow } from './eval/score-workflow.js';
export type { SampleScore, ScoreOptions } from './eval/sample-score.js';
export { loadGold, type GoldRecord } from './eval/gold-data.js';
export { readPredictions, type Prediction, type PredictionsFile } from './eval/predictions-file.js';
export type { EvalReport, GroupScore, SampleReport } from './eval/eval-report.js';
export { evaluatePredictions, type EvaluateInput } from './eval/evaluate.js';
export {
  runWorfbench,
  type RunWorfbenchOptions,
  type WorfbenchPlanner,
  type WorfbenchProgress,
  type WorfbenchRunResult,
} from './eval/run-worfbench.js';

// Teams (DyLAN): run a team on a query, evaluate it on a dataset, optimise its members.
export type { StopCheck, TeamAgentSpec, TeamQuery, TeamResult, TeamSpec } from './team/team.js';
export type { TeamEvent, TeamEventType } from './team/team-events.js';
export { runTeam, type RunTeamOptions } from './team/run-team.js';
export { loadTeamFile } from './team/parse-team-file.js';
export { readTeamDataset, type TeamDatasetItem } from './team/team-dataset.js';
export {
  evaluateTeam,
  type EvaluateTeamOptions,
  type EvaluatedItem,
  type TeamEvaluation,
} from './team/evaluate-team.js';
export { optimizeTeam, type OptimizeTeamOptions, type OptimizeTeamResult } from './team/optimize-team.js';

// Conversations (FlowAgent): a PDL procedure held as a conversation, its sessions, simulated users and evaluation.
export {
  createConversation,
  type Conversation,
  type ConversationOptions,
  type CutReply,
  type SendOptions,
  type TurnResult,
} from './dialog/conversation.js';
export type { Controller, ControllerContext, ControllerMode, ProposedAction } from './dialog/controller.js';
export type { Pdl, PdlApi, PdlProblem, PdlSlot } from './dialog/pdl.js';
export { loadPdlFile, parsePdl, type ParsedPdl, type ParsePdlOptions } from './dialog/parse-pdl.js';
export { checkPdl, type CheckPdlOptions } from './dialog/check-pdl.js';
export { sessionStoreOf, type SessionStore } from './dialog/session-store.js';
export { readSessionEvents } from './dialog/read-session-events.js';
export type { NewSession, SessionRecord, SessionStatus, StoredSessionEvent } from './store/sessions.js';
export type { SessionEvent, SessionEventType } from './dialog/session-events.js';
export { transcriptOf, type SessionTotals, type Transcript, type TranscriptEntry } from './dialog/transcript.js';
export { loadProfiles, type UserProfile } from './dialog/profiles.js';
export { loadReferenceSessions, type ReferenceSession } from './dialog/reference-sessions.js';
export {
  simulateSessions,
  type SimulateOptions,
  type SimulateProgress,
  type SimulationReport,
} from './dialog/simulate.js';
export { evaluateTurns, type EvaluateTurnsOptions, type TurnEvalReport } from './dialog/turn-eval.js';

// Executable workflows (FlowMind): read, check, run without a model, in batches; solve into traces; distil.
export type { ExecutableWorkflow, WorkflowEdge, WorkflowNode, WorkflowProblem } from './distill/workflow.js';
export { loadWorkflowFile, parseExecutableWorkflow, type ReadWorkflowResult } from './distill/read-workflow-file.js';
export { checkWorkflow, type CheckWorkflowOptions } from './distill/check-workflow.js';
export {
  runWorkflow,
  type RunWorkflowOptions,
  type WorkflowRunResult,
  type WorkflowToolCall,
} from './distill/run-workflow.js';
export { workflowMermaid } from './distill/workflow-mermaid.js';
export {
  type BatchProgress,
  type BatchResult,
  type BatchSummary,
  type CaseRun,
  type CaseRunner,
  runBatch,
  type RunBatchOptions,
} from './distill/run-batch.js';
export { solveTask } from './distill/solve.js';
export { distillTraces } from './distill/distill-traces.js';
export type { DistillOptions, DistillResult, SolveOptions } from './distill/stage-types.js';
export {
  traceStoreOf,
  type NewTrace,
  type TraceFilter,
  type TraceRecord,
  type TraceStore,
  type TraceToolCall,
} from './store/traces.js';

// Distributed execution: a queue of attempts and the workers that run them.
export { createQueueRunner, type QueueRunner, type QueueRunnerOptions } from './workers/queue-runner.js';
export { runWorker, type RunWorkerOptions, type RunWorkerResult, type WorkerEvent } from './workers/run-worker.js';

// The dashboard: `weft serve`'s server over a read-only view of the store.
export {
  startDashboard,
  type RunningDashboard,
  type StartDashboardOptions,
} from './ui/serve-dashboard.js';
