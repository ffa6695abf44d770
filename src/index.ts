/**
 * Weft's public library API. Deep imports are not part of the contract; everything supported is here, and the CLI
 * (src/cli) uses nothing else (scripts/check-cycles.mjs enforces it). Grouped by area; internals of an area (graph
 * matching, LIS, parse helpers) stay unexported.
 */

// Errors: one error type with codes; the CLI's exit codes and messages come from these.
export { MAX_REPORTED_ISSUES, WeftError, formatError, isAbortError, isUserError, isWeftError } from './errors.js';
export type { LocatedIssue, SourceLocation, WeftErrorCode } from './errors.js';

// The engines' runtime: running N things at a time, and the one check for integer options (the CLI's flags too).
export { boundedMap, type BoundedMapOptions } from './runtime/bounded-map.js';
export { integerOption, type IntegerRange } from './runtime/integer-option.js';

// Workflow graphs: model, validation, ordering, metrics, diff and export (pure).
export * from './graph/index.js';

// Models and stores (the ChatModel contract, the provider registry, opening a home's store): src/core.ts, also
// importable alone as `weft/core`.
export * from './core.js';

// Models: scripted and simulated models, structured output and its limits.
export {
  scriptedModel,
  loadScriptedModel,
  type ScriptedAnswer,
  type ScriptedReplyInput,
  type ScriptedToolCall,
} from './llm/scripted-model.js';
export { withPromptedTools, type PromptedToolsOptions } from './llm/prompted-tools.js';
export { parseSimOptions, type SimOptions } from './llm/sim-options.js';
export { SIM_RIGHT_ANSWER } from './llm/sim-team.js';
export { DEFAULT_MAX_OUTPUT_TOKENS, type CallPurpose, type OutputTokenSetting } from './llm/output-limit.js';
export { generateStructured } from './llm/structured-output.js';
// Tracing (OpenTelemetry): spans go to whatever SDK is registered; startTelemetry registers one exporting over OTLP.
export {
  setTelemetryContent,
  telemetryCapturesContent,
  traceAgent,
  traceWorkflow,
  type AgentSpanInfo,
} from './llm/telemetry.js';
export { tracedModel, type TracedModelOptions } from './llm/traced-model.js';
export {
  OTEL_INSTALL_HINT,
  otlpTarget,
  startTelemetry,
  stopTelemetry,
  type TelemetryHandle,
  type TelemetryImporter,
  type TelemetryOptions,
  type TelemetryStopResult,
} from './llm/start-telemetry.js';
export { boundedSchema, toGrammarSubset, type JsonSchema } from './llm/json-schema.js';

// Planning: a task → candidate workflows; updates, merges and verification of a running plan.
export { planTask, type PlanCandidate, type PlanOptions, type PlanResult } from './plan/plan-task.js';
export { proposeUpdate } from './plan/update-plan.js';
export { mergeUpdate } from './plan/merge-update.js';
export { verifySubtask } from './plan/verify-subtask.js';
export { planAnswerJsonSchema, updateAnswerJsonSchema, verdictAnswerJsonSchema } from './plan/answer-schemas.js';

// Running: plan and run a task, resume an interrupted run, and the events a run records.
export { execute, type ExecutionOptions, type ExecutionResult, type ExecutionStrategy } from './run/execution.js';
export { runTask, type RunTaskOptions, type RunTaskResult } from './run/run-task.js';
export { resumeRun, type ResumeRunOptions } from './run/resume-run.js';
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
export { runEvents } from './run/run-events.js';
export {
  budgetGate,
  createMeter,
  type Budget,
  type BudgetGate,
  type Meter,
  type ModelBudgetName,
} from './runtime/budget.js';
export {
  checkBudget,
  createBudgetScope,
  type BatchBudgetReport,
  type BudgetScope,
  type BudgetScopeOptions,
  type BudgetStop,
  type BudgetUsage,
} from './runtime/budget-scope.js';
export { meteredModel, type MeterOptions } from './runtime/metered-model.js';
export { startDeadline, type Deadline } from './runtime/deadline.js';
export type { BudgetEvent, CallEvent } from './runtime/meter-events.js';
export { extractArtifacts, writeArtifacts } from './run/artifacts.js';
export { replaceFile, type ReplaceFileOptions } from './run/replace-file.js';
export type { AttemptRunner, AttemptRunnerContext, AttemptRunnerFactory } from './run/attempt-runner.js';
export type { AttemptOutcome, SubtaskAttempt } from './run/run-subtask.js';
export type { ModelCheck, RoleKindContext, RoleKindEngine, RoleKindSetup } from './run/role-kind.js';
export { resolveRunSettings, RUN_DEFAULTS, type ResolvedRunSettings, type RunSettings } from './run/run-settings.js';
export { defaultRoleKinds } from './role-kinds.js';
export { createTeamRoleKind, TEAM_ROLE_KIND } from './team/team-role-kind.js';
export { isTeamScoreStore, teamScoreStoreOf, type TeamScoreStore } from './team/team-score-store.js';

// Showing a run: its summary, result, report and plan history, folded from its events.
export { summarizeRun, type RetryFeedback, type RunSummary, type TaskSummary } from './run/run-summary.js';
export { fateOf, foldFate, type Fates, type SubtaskFate } from './run/subtask-fate.js';
export { runResult, type RunResult } from './run/run-result.js';
export { renderReport, type ReportInput } from './run/report.js';
export { formatPlanHistory, planHistory, type PlanHistory, type PlanHistoryVersion } from './run/plan-history.js';
export { candidateSummary } from './run/candidate-summary.js';

// Teams in workflows: team files offered to the planner, and which members a stored optimisation keeps.
export { checkTeamFiles, loadTeamOffers } from './team/team-checks.js';
export { selectStoredTeamMembers, selectTeamFileMembers, teamSizeOf, type TeamChoice } from './team/team-selection.js';

// Distributed execution: a queue of attempts and the workers that run them.
export { createQueueRunner, type QueueRunner, type QueueRunnerOptions } from './workers/queue-runner.js';
export { runWorker, type RunWorkerOptions, type RunWorkerResult, type WorkerEvent } from './workers/run-worker.js';

// Teams (DyLAN): run a team on a query, evaluate it on a dataset, optimise its members; team files and datasets.
export type { StopCheck, TeamAgentSpec, TeamQuery, TeamResult, TeamSpec } from './team/team.js';
export { STOP_CHECKS } from './team/team.js';
export type { TeamEvent, TeamEventType } from './team/team-events.js';
export { TEAM_DEFAULTS, runTeam, type RunTeamOptions } from './team/run-team.js';
export { buildTeam, type BuildTeamOptions, type BuiltTeam } from './team/build-team.js';
export { loadTeamFile, parseTeamFile } from './team/parse-team-file.js';
export {
  parseTeamDataset,
  readTeamDataset,
  readTeamQueries,
  teamQueryOf,
  type TeamDatasetItem,
  type TeamQueryItem,
} from './team/team-dataset.js';
export {
  evaluateTeam,
  type EvaluateTeamOptions,
  type EvaluatedItem,
  type TeamEvaluation,
} from './team/evaluate-team.js';
export { optimizeTeam, type OptimizeTeamOptions, type OptimizeTeamResult } from './team/optimize-team.js';
export { readDylanRecording, listRecordedTeams } from './team/replay-files.js';
export { parseDylanRecording, type DylanRecording } from './team/replay-recording.js';
export {
  replayRecording,
  summarizeReplays,
  type ReplayOptions,
  type ReplayReport,
  type ReplaySummary,
} from './team/replay-run.js';

// Evaluation (WorfEval, WorfBench): workflow text, scoring against gold, prediction files and the benchmark runner.
export type { EdgeSource, EdgeTarget, WorkflowText } from './eval/workflow-text.js';
export { parseWorkflowText, type ParseWorkflowTextResult, type WorkflowTextIssue } from './eval/parse-workflow-text.js';
export { formatWorkflowText } from './eval/format-workflow-text.js';
export { workflowTextToWorkflow, workflowToWorkflowText } from './eval/workflow-text-graph.js';
export { similarityFromFunction, type Similarity, type SimilarityKind } from './eval/similarity.js';
export { createLexicalSimilarity, type LexicalSimilarityOptions } from './eval/lexical-similarity.js';
export {
  createEmbeddingSimilarity,
  type EmbedFunction,
  type Embedder,
  type EmbeddingSimilarityOptions,
} from './eval/embedding-similarity.js';
export {
  DEFAULT_SIMILARITY_SPEC,
  createSimilarity,
  formatSimilaritySpec,
  parseSimilaritySpec,
  type CreateSimilarityOptions,
  type SimilaritySpec,
} from './eval/similarity-spec.js';
export { scoreWorkflow, scoreWithSimilarity } from './eval/score-workflow.js';
export type { SampleScore, ScoreOptions } from './eval/sample-score.js';
export { DEFAULT_BETA, DEFAULT_MAX_ORDERS, DEFAULT_MCIS_TIME_LIMIT_MS } from './eval/sample-score.js';
export { loadGold, type GoldRecord } from './eval/gold-data.js';
export { parsePredictions, readPredictions, type Prediction, type PredictionsFile } from './eval/predictions-file.js';
export type { EvalReport, GroupScore, SampleReport } from './eval/eval-report.js';
export { evaluatePredictions, type EvaluateInput } from './eval/evaluate.js';
export { planAsWorkflowText, type PlanAsWorkflowTextOptions } from './eval/plan-as-workflow-text.js';
export {
  DEFAULT_WORFBENCH_CANDIDATES,
  runWorfbench,
  type RunWorfbenchOptions,
  type WorfbenchPlanner,
  type WorfbenchProgress,
  type WorfbenchRunResult,
} from './eval/run-worfbench.js';

// Located input: reading JSON/YAML whose errors name the field, line and column (as config and plan files do).
export { readStructuredSource, type StructuredSource } from './text/read-structured-source.js';
export { formatFieldPath, type FieldPath, type PathIssue } from './text/source-locator.js';
export { describeTypeMismatch, valueAt } from './text/describe-value.js';
export { closestWord } from './text/edit-distance.js';
export { mayHaveRedactedCredentials, redactUrl } from './text/redact-url.js';
export { inertText } from './text/inert-text.js';

// Tools: http, module and mcp tools under one contract; tools files and `tools:` sections; one call with
// validation, timeout, concurrency cap, retries and a result cap.
export type { JsonValue, Tool, ToolCallContext, ToolSchema, ToolSet, WorkflowToolInfo } from './tools/tool.js';
export { callTool, type CallToolOptions, type ToolCallOutcome } from './tools/call-tool.js';
// The tools layer's loaders with every kind, workflow entries included (their interpreter sits above tools).
export { loadToolsFile, openToolSources } from './load-tools-file.js';
export type { LoadToolsFileOptions } from './tools/tools-file.js';
export { mergeToolSets } from './tools/merge-tool-sets.js';
export {
  type ApiDeclaration,
  type ApiSimulator,
  bindSimulatedTools,
  declarationOf,
  type SimulationUsage,
  simulatedTool,
} from './tools/simulated-api.js';
export { declaredTool, isFlowAgentToolsSpec, parseFlowAgentToolsSpec } from './tools/flowagent-tools-spec.js';
export { readInputFile } from './tools/read-input-file.js';
export { defineTool, type ToolDefinition, type ToolExecuteContext } from './tools/define-tool.js';
export { loadModuleTools, type ModuleToolsOptions } from './tools/module-tools.js';
export { DEFAULT_MCP_START_TIMEOUT_MS, openMcpTools, type OpenMcpToolsOptions } from './tools/mcp-tools.js';
export {
  parseToolsSection,
  type ParsedToolsSection,
  type ParseToolsSectionInput,
} from './tools/parse-tools-section.js';
export type { ToolSourceSpec } from './tools/tool-entry-fields.js';
export type { McpOpener, OpenToolSourcesOptions } from './tools/open-tool-sources.js';
export type {
  OpenedWorkflowTools,
  WorkflowToolSource,
  WorkflowToolsContext,
  WorkflowToolsOpener,
} from './tools/workflow-tools-opener.js';
export type { McpServerConfig, McpTransportConfig } from './tools/mcp-config.js';
// The tool loop and tool calls in runs.
export {
  DEFAULT_MAX_TOOL_STEPS,
  runToolLoop,
  toolDeclaration,
  toolMessage,
  type ToolLoopCall,
  type ToolLoopHooks,
  type ToolLoopOptions,
  type ToolLoopOutcome,
  type ToolLoopRecord,
  type ToolLoopResult,
} from './tools/tool-loop.js';
export { checkRoleTools, redactToolArgs, toolArgsRedactor, type ToolReplay } from './run/run-tools.js';

// Conversational procedures: sessions as the stores keep them.
export { isSessionStore, sessionStoreOf, type SessionStore } from './dialog/session-store.js';
export { SESSION_ID_PATTERN } from './store/sessions.js';
export type { NewSession, SessionRecord, SessionStatus, StoredSessionEvent } from './store/sessions.js';
export { toolCallLine, toolCallViews, type ToolCallView } from './run/tool-call-lines.js';
export { TOOL_FAILURE_MARK, toolCallCount, toolFailureWarning } from './run/tool-call-count.js';

// Conversational procedures (FlowAgent): a PDL procedure as a conversation, its controllers and sessions.
export {
  createConversation,
  DEFAULT_MAX_ACTIONS_PER_TURN,
  MAX_USER_MESSAGE_BYTES,
  newSessionId,
  type Conversation,
  type ConversationOptions,
  type SendOptions,
  type TurnResult,
} from './dialog/conversation.js';
export { proposeAction, type ProposeActionOptions, type ProposedDecision } from './dialog/propose-action.js';
export {
  actionLabel,
  type Controller,
  type ControllerContext,
  type ControllerMode,
  type ProposedAction,
  type Verdict as ControllerVerdict,
} from './dialog/controller.js';
export { dependencyController } from './dialog/dependency-controller.js';
export { latestResults, type UnmetPrecondition, unmetPreconditions } from './dialog/unmet-preconditions.js';
export {
  CONDITION_OPERATORS,
  type ConditionOperator,
  type ConditionValue,
  conditionText,
  judgeCondition,
  parseResultCondition,
  type ResultCondition,
} from './text/result-condition.js';
export {
  DEFAULT_REPETITION_LIMIT,
  DEFAULT_REPETITION_RULE,
  type RepetitionOptions,
  repetitionController,
} from './dialog/repetition-controller.js';
export { DEFAULT_MAX_TURNS, sessionLengthController } from './dialog/session-length-controller.js';
export { builtInControllers } from './dialog/built-in-controllers.js';
export { loadControllerModules } from './dialog/load-controller-modules.js';
export { type ApiCallRecord, type DialogState, succeededApis } from './dialog/dialog-state.js';
export { foldSession } from './dialog/fold-session.js';
export {
  OOW_CATEGORIES,
  type OowCategory,
  type OowTag,
  type SessionEvent,
  type SessionEventType,
} from './dialog/session-events.js';
export {
  formatSessionEvent,
  formatTranscriptEntry,
  transcriptOf,
  type SessionTotals,
  type Transcript,
  type TranscriptEntry,
} from './dialog/transcript.js';
// Procedures in PDL (docs/pdl.md): reading, checking and drawing `*.pdl.yaml` files.
export {
  BUILT_IN_ANSWERS,
  type Pdl,
  type PdlAnswer,
  type PdlApi,
  type PdlControllerModule,
  type PdlControllerSettings,
  type PdlProblem,
  type PdlReference,
  type PdlResultCondition,
  type PdlSlot,
  REPETITION_RULES,
  type RepetitionRule,
} from './dialog/pdl.js';
export { checkProfileApis, loadProfiles, parseProfiles, type UserProfile } from './dialog/profiles.js';
export {
  loadReferenceSessions,
  parseReferenceSessions,
  type ReferenceMessage,
  type ReferenceSession,
} from './dialog/reference-sessions.js';
export {
  drawOow,
  drawOowTurn,
  OOW_ASSIGNMENTS,
  type OowAssignment,
  type OowTurnPlan,
  oowCategoryOf,
  oowInstruction,
  oowLabel,
  parseOowLabel,
} from './dialog/oow.js';
export {
  DEFAULT_OOW_TAXONOMY,
  loadOowTaxonomy,
  type OowCategoryDef,
  type OowSubtype,
  type OowTaxonomy,
  oowCategoryId,
  oowId,
  PAPER_OOW_CATEGORIES,
  parseOowTaxonomy,
} from './dialog/oow-taxonomy.js';
export {
  END_MARKER,
  simulateUserTurn,
  type SimulatedExchange,
  type SimulatedUserTurn,
  type SimulatedUserTurnOptions,
} from './dialog/simulated-user.js';
export { judgeSession, type JudgeSessionOptions, type SessionJudgement } from './dialog/judge-session.js';
export { judgeTurn, type JudgeTurnOptions, type TurnJudgement } from './dialog/judge-turn.js';
export {
  countSessionEvents,
  type MatchCounts,
  multisetScores,
  NO_REQUIRED_APIS,
  OOW_GROUPS,
  type OowSummaries,
  type PaperSessionSummary,
  type PaperSessionTool,
  paperScores,
  paperSessionTool,
  scoresFromCounts,
  setCounts,
  setScores,
  sumCounts,
  summarizeByOow,
  summarizeSessions,
  type MetricsSummary,
  type OowGroup,
  type Scores,
  type SessionEventCounts,
  type SessionReport,
} from './dialog/session-metrics.js';
export {
  MAX_SESSIONS,
  SIMULATE_DEFAULTS,
  simulateSessions,
  type SimulateOptions,
  type SimulateProgress,
  type SimulationReport,
} from './dialog/simulate.js';
export {
  PAPER_PASS_SCORE,
  type PaperTurnSummary,
  paramPairs,
  paramValues,
  summarizePaperTurns,
  summarizeTurns,
  type TurnReport,
  type TurnSummary,
} from './dialog/turn-metrics.js';
export { simulateReferenceResults } from './dialog/simulate-reference-results.js';
export { callNameOf } from './dialog/call-name.js';
export {
  evaluateTurns,
  TURN_EVAL_DEFAULTS,
  type EvaluateTurnsOptions,
  type PaperTurnGroup,
  type TurnEvalReport,
} from './dialog/turn-eval.js';
export {
  loadPdlFile,
  MAX_PDL_FILE_BYTES,
  parsePdl,
  type ParsedPdl,
  type ParsePdlOptions,
  readPdlText,
} from './dialog/parse-pdl.js';
export { checkPdl, type CheckPdlOptions } from './dialog/check-pdl.js';
export { type ApiGraph, apiGraph, dependenciesOf, pdlMermaid, pdlText } from './dialog/api-graph.js';

// Executable workflows (FlowMind): the format, its checker and its interpreter.
export { checkWorkflow, type CheckWorkflowOptions } from './distill/check-workflow.js';
export {
  checkWorkflowFile,
  loadWorkflowFile,
  MAX_WORKFLOW_FILE_BYTES,
  parseExecutableWorkflow,
  type ReadWorkflowResult,
} from './distill/read-workflow-file.js';
export {
  runWorkflow,
  type RunWorkflowOptions,
  type WorkflowRunResult,
  type WorkflowToolCall,
} from './distill/run-workflow.js';
export { workflowListing } from './distill/workflow-listing.js';
// A distilled workflow as a tool (`kind: workflow` in a tools file).
export {
  createWorkflowTool,
  DEFAULT_WORKFLOW_TOOL_TIMEOUT_MS,
  toolNameOfWorkflow,
  workflowInputSchema,
  type WorkflowToolOptions,
} from './distill/workflow-tool.js';
export { MAX_TOOLS_FILE_NESTING, openWorkflowTools } from './distill/open-workflow-tools.js';
export { workflowMermaid } from './distill/workflow-mermaid.js';
export { workflowDot } from './distill/workflow-dot.js';
export { stepText, workflowToWorfText } from './distill/workflow-to-worf-text.js';
export {
  compareWorkflows,
  compareWorkflowTexts,
  MAX_SCORED_STEPS,
  type WorkflowComparison,
} from './distill/compare-workflows.js';
export { type WorkflowFileKind, workflowFileKind } from './distill/workflow-file-kind.js';
export {
  DEFAULT_MAX_VISITS,
  type ExecutableWorkflow,
  NODE_KINDS,
  type WorkflowEdge,
  type WorkflowNode,
  type WorkflowProblem,
} from './distill/workflow.js';
// FlowMind's execute stage: solving one instance with business tools into a trace, and the stores' traces.
export { DEFAULT_SOLVE_MAX_STEPS, solveTask } from './distill/solve.js';
export { withDistillSim } from './distill/distill-sim.js';
export {
  displayTraceId,
  isTraceId,
  isTraceStore,
  newTraceId,
  TRACE_ID_PATTERN,
  TRACE_MODES,
  traceStoreOf,
  type NewTrace,
  type TraceFilter,
  type TraceMode,
  type TraceRecord,
  type TraceStore,
  type TraceToolCall,
  type TraceUsage,
} from './store/traces.js';
// The distillation suite and its harness (`weft distill eval`).
export {
  countingModel,
  DEFAULT_SUITE_CONCURRENCY,
  evaluateSuite,
  type EvaluateSuiteOptions,
  evaluateTask,
  MAX_ROLLOUTS,
  runSuiteTask,
  selectSuiteTraces,
  type StageContext,
  type TaskRun,
  SUITE_SELECTIONS,
  SUITE_VARIANTS,
  type SuiteReport,
  type SuiteStages,
  type SuiteStagesFactory,
} from './distill/evaluate-suite.js';
export { formatSuiteReport } from './distill/format-suite-report.js';
export {
  loadSuite,
  type LoadSuiteOptions,
  type Suite,
  type SuiteTask,
  type SuiteTestCase,
} from './distill/load-suite.js';
export { openSuiteTools, type SuiteTools } from './distill/open-suite-tools.js';
export { sameJson } from './text/same-json.js';
export { summarizeVariant, type TaskEvaluation, type VariantSummary } from './distill/suite-metrics.js';
export { suiteStages } from './distill/suite-stages.js';
export { scoreAgainstReference, type WorfColumn } from './distill/score-against-reference.js';
export { type FinalAnswer, parseFinalAnswer } from './distill/final-answer.js';
// Distillation's summarize stage: graph tools, distillTraces, the single-stage baselines, trace selection.
export {
  applyGraphOperation,
  createGraphBuilder,
  GRAPH_OPERATIONS,
  type GraphBuilder,
  type GraphDraft,
  type GraphOperation,
  type GraphReport,
} from './distill/graph-builder.js';
export { graphTools } from './distill/graph-tools.js';
export { DEFAULT_DISTILL_MAX_STEPS, distillTraces } from './distill/distill-traces.js';
export { solveAndBuild } from './distill/single-stage.js';
export { selectTraces } from './distill/select-traces.js';
export { MAX_TRACES_FILE_BYTES, readTracesFile } from './distill/read-traces-file.js';
export {
  type AgentStrategy,
  DISTILL_VARIANTS,
  type DistillOptions,
  type DistillResult,
  type DistillVariant,
  type SolveAndBuild,
  type SolveOptions,
  TRACE_SELECTIONS,
  type TraceSelection,
} from './distill/stage-types.js';
// Batches of cases through one workflow (`weft exec --inputs`): streamed, durable, resumable, on workers.
export { type BatchCase, hashFile, readBatchCases, scanBatchCases } from './distill/batch-cases.js';
export {
  acquireBatch,
  type BatchError,
  type BatchManifest,
  batchRecordsOf,
  checkBatchId,
  createBatch,
  newBatchId,
  parseBatchManifest,
  readBatchLog,
} from './distill/batch-store.js';
export { type BatchWriter, openBatchWriter } from './distill/batch-writer.js';
export { importBatchFolder } from './distill/import-batch-folder.js';
export {
  BATCH_ID_PATTERN,
  type BatchCounts,
  type BatchInfo,
  type BatchRecord,
  type BatchResultsQuery,
  type BatchStore,
  batchStoreOf,
  isBatchStore,
  type NewBatch,
  type StoredBatchRecord,
} from './store/batch-records.js';
export {
  type BatchProgress,
  type BatchResult,
  type BatchSummary,
  type CaseRun,
  type CaseRunner,
  runBatch,
  type RunBatchOptions,
} from './distill/run-batch.js';
export { createExecCaseQueue, type ExecCaseQueue, type ExecCaseQueueOptions } from './workers/exec-case-queue.js';

// The dashboard: `weft serve`'s server over a read-only view of the store.
export { createDashboardApp, type DashboardOptions } from './ui/dashboard-app.js';
export type { DashboardStore } from './ui/dashboard-store.js';
export { lazyExistingStore, type LazyStore } from './ui/lazy-store.js';
export { checkDashboardToken } from './ui/token-auth.js';
export { taskDetail, type AttemptView, type TaskDetail } from './ui/task-detail.js';
export {
  DEFAULT_DASHBOARD_PORT,
  isLoopbackHost,
  startDashboard,
  type RunningDashboard,
  type StartDashboardOptions,
} from './ui/serve-dashboard.js';
