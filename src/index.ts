/** Weft's public library API. Deep imports are not part of the contract; everything supported is here. */
export { WeftError, formatError, isAbortError, isUserError, isWeftError } from './errors.js';
export type { LocatedIssue, SourceLocation, WeftErrorCode } from './errors.js';

export * from './graph/index.js';

export type { CallTag, ChatCall, ChatMessage, ChatModel, ChatResult, Usage } from './llm/chat-model.js';
export { createModel, resolveModelSpec } from './llm/resolve-model.js';
export { parseModelSpec } from './llm/model-spec.js';
export { listProviders, registerProvider } from './llm/provider-registry.js';
export type { CreatedEmbedder, ModelProviderDescriptor, ModelSpec, ProviderCreateOptions, SpecProblem } from './llm/provider.js';
export { scriptedModel, loadScriptedModel } from './llm/scripted-model.js';
export { withConcurrency, withResilience, withRetries, withTimeout } from './llm/resilient-model.js';
export { generateStructured } from './llm/structured-output.js';
export { boundedSchema, toGrammarSubset, type JsonSchema } from './llm/json-schema.js';
export { DEFAULT_PRICES, costOf, mergePrices } from './llm/pricing.js';

export { planTask, type PlanCandidate, type PlanResult } from './plan/plan-task.js';
export { proposeUpdate } from './plan/update-plan.js';
export { mergeUpdate } from './plan/merge-update.js';
export { verifySubtask } from './plan/verify-subtask.js';
export { planAnswerJsonSchema, updateAnswerJsonSchema, verdictAnswerJsonSchema } from './plan/answer-schemas.js';

export { execute, type ExecutionOptions, type ExecutionResult, type ExecutionStrategy } from './run/execution.js';
export { runTask, type RunTaskOptions, type RunTaskResult } from './run/run-task.js';
export { summarizeRun, type RunSummary, type TaskSummary } from './run/run-summary.js';
export { runResult, type RunResult } from './run/run-result.js';
export type { RunStatus, UpdateStrategy, Verdict, WeftEvent, WeftEventType } from './run/events.js';
export { extractArtifacts, writeArtifacts } from './run/artifacts.js';
export type { AttemptRunner, AttemptRunnerContext, AttemptRunnerFactory } from './run/attempt-runner.js';
export type { AttemptOutcome, SubtaskAttempt } from './run/run-subtask.js';

export { createQueueRunner, type QueueRunner, type QueueRunnerOptions } from './workers/queue-runner.js';
export { runWorker, type RunWorkerOptions, type RunWorkerResult, type WorkerEvent } from './workers/run-worker.js';

export { openRunStore, resolveHome } from './store/open-store.js';
export type { EventRecord, NewRun, PlanVersion, RunRecord, RunStore, StoredEvent } from './store/run-store.js';

export * from './eval/index.js';
