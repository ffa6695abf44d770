/**
 * `weft/internal`: what Weft's own clients (the CLI in src/cli, its MCP server) need beyond the library API, on top
 * of all of `weft` (src/index.ts), which it re-exports. Output formatting, defaults and limits the CLI prints, the
 * parsing and redaction helpers behind its flags, the lower-level pieces its commands assemble. No compatibility
 * promise: an entry here may change or go in any release. test/public-api.test.ts checks that every runtime entry
 * is imported somewhere in src/cli, so this file does not keep dead entries.
 */
export * from './index.js';

export { integerOption } from './integer-option.js';
export { parseSimOptions } from './llm/sim-options.js';
export { SIM_RIGHT_ANSWER } from './team/sim-team.js';
export { DEFAULT_MAX_OUTPUT_TOKENS, type OutputTokenSetting } from './llm/output-limit.js';
export { traceAgent, traceWorkflow } from './llm/telemetry.js';
export { tracedModel } from './llm/traced-model.js';
export { createMeter, wallTimeExceeded } from './runtime/budget.js';
export type { BatchBudgetReport, BudgetScope, BudgetStop } from './runtime/budget-scope.js';
export { meteredModel } from './runtime/metered-model.js';
export { replaceFile } from './run/replace-file.js';
export { RUN_DEFAULTS } from './run/run-settings.js';
export { isTeamScoreStore, teamScoreStoreOf } from './team/team-score-store.js';
export { type Fates, type SubtaskFate, foldFate } from './run/subtask-fate.js';
export { formatPlanHistory } from './run/plan-history.js';
export { candidateSummary } from './run/candidate-summary.js';
export { loadTeamOffers } from './team/team-checks.js';
export { type TeamChoice, selectStoredTeamMembers, selectTeamFileMembers, teamSizeOf } from './team/team-selection.js';
export { STOP_CHECKS } from './team/team.js';
export { TEAM_DEFAULTS } from './team/run-team.js';
export { type BuiltTeam, buildTeam } from './team/build-team.js';
export { readTeamQueries, teamQueryOf } from './team/team-dataset.js';
export { listRecordedTeams, readDylanRecording } from './team/replay-files.js';
export type { DylanRecording } from './team/replay-recording.js';
export { type ReplayReport, type ReplaySummary, replayRecording, summarizeReplays } from './team/replay-run.js';
export { DEFAULT_BETA, DEFAULT_MAX_ORDERS, DEFAULT_MCIS_TIME_LIMIT_MS } from './eval/sample-score.js';
export { parsePredictions } from './eval/predictions-file.js';
export { planAsWorkflowText } from './eval/plan-as-workflow-text.js';
export { DEFAULT_WORFBENCH_CANDIDATES } from './eval/run-worfbench.js';
export { readStructuredSource } from './text/read-structured-source.js';
export { type FieldPath, type PathIssue, formatFieldPath } from './text/source-locator.js';
export { describeTypeMismatch, valueAt } from './text/describe-value.js';
export { closestWord } from './text/edit-distance.js';
export { mayHaveRedactedCredentials, redactUrl } from './text/redact-url.js';
export { inertText } from './text/inert-text.js';
export { wrapModel } from './llm/wrap-model.js';
export type { WorkflowToolInfo } from './tools/tool.js';
export { readInputFile } from './tools/read-input-file.js';
export { toolArgsRedactor } from './run/run-tools.js';
export { toolCallLine, toolCallViews } from './run/tool-call-lines.js';
export { TOOL_FAILURE_MARK, toolCallCount, toolFailureWarning } from './run/tool-call-count.js';
export { cutNote, formatSessionEvent, formatTranscriptEntry } from './dialog/transcript.js';
export { checkProfileApis } from './dialog/profiles.js';
export { OOW_ASSIGNMENTS } from './dialog/oow.js';
export { loadOowTaxonomy } from './dialog/oow-taxonomy.js';
export type { MetricsSummary } from './dialog/session-metrics.js';
export { MAX_SESSIONS } from './dialog/simulate.js';
export type { TurnSummary } from './dialog/turn-metrics.js';
export { readPdlText } from './dialog/parse-pdl.js';
export { apiGraph, pdlMermaid, pdlText } from './dialog/api-graph.js';
export { MAX_WORKFLOW_FILE_BYTES, checkWorkflowFile } from './distill/read-workflow-file.js';
export { workflowListing } from './distill/workflow-listing.js';
export { workflowDot } from './distill/workflow-dot.js';
export { workflowToWorfText } from './distill/workflow-to-worf-text.js';
export { compareWorkflowTexts, compareWorkflows } from './distill/compare-workflows.js';
export { workflowFileKind } from './distill/workflow-file-kind.js';
export { DEFAULT_MAX_VISITS } from './distill/workflow.js';
export {
  casesInFlight,
  defaultJobs,
  type IsolatedRunOptions,
  MIN_WORKER_MEMORY_MB,
  runCaseIsolated,
  runWorkflowIsolated,
} from './distill/run-workflow-isolated.js';
export { DEFAULT_SOLVE_MAX_STEPS } from './distill/solve.js';
export { withDistillSim } from './distill/distill-sim.js';
export { TRACE_ID_PATTERN, displayTraceId, isTraceId } from './store/traces.js';
export {
  MAX_ROLLOUTS,
  SUITE_SELECTIONS,
  SUITE_VARIANTS,
  type SuiteReport,
  type SuiteStagesFactory,
  type TaskRun,
  evaluateSuite,
} from './distill/evaluate-suite.js';
export { formatSuiteReport } from './distill/format-suite-report.js';
export { loadSuite } from './distill/load-suite.js';
export { openSuiteTools } from './distill/open-suite-tools.js';
export { suiteStages } from './distill/suite-stages.js';
export { DEFAULT_DISTILL_MAX_STEPS } from './distill/distill-traces.js';
export { selectTraces } from './distill/select-traces.js';
export { readTracesFile } from './distill/read-traces-file.js';
export { type AgentStrategy, TRACE_SELECTIONS, type TraceSelection } from './distill/stage-types.js';
export { hashFile, readBatchCases, scanBatchCases } from './distill/batch-cases.js';
export {
  type BatchManifest,
  acquireBatch,
  checkBatchId,
  createBatch,
  newBatchId,
  parseBatchManifest,
} from './distill/batch-store.js';
export { importBatchFolder } from './distill/import-batch-folder.js';
export { type BatchStore, batchStoreOf } from './store/batch-records.js';
export { createExecCaseQueue } from './workers/exec-case-queue.js';
export { lazyExistingStore } from './ui/lazy-store.js';
export { checkDashboardToken } from './ui/token-auth.js';
export { taskDetail } from './ui/task-detail.js';
export { isLoopbackHost } from './ui/serve-dashboard.js';
