/**
 * The light part of the public API (`weft/core`; src/index.ts re-exports all of it): naming and making models,
 * opening a home's run store, and the registry of update policies. Nothing here loads an engine, zod or a provider SDK at import, so a command that
 * only lists or prunes runs starts fast (the CLI's `weft runs`).
 */

// Models: the ChatModel contract, the provider registry (spec strings → models), wrappers and prices.
export type {
  CallTag,
  ChatCall,
  ChatMessage,
  ChatModel,
  ChatResult,
  StreamEvent,
  ToolCallRequest,
  ToolDeclaration,
  Usage,
} from './llm/chat-model.js';
export { CALL_PURPOSES, type KnownCallPurpose } from './llm/chat-model.js';
export { createModel, resolveModelSpec, type CreateModelOptions, type ResolvedModelSpec } from './llm/resolve-model.js';
export {
  MODEL_PROVIDERS,
  formatModelSpec,
  parseModelSpec,
  redactModelSpec,
  requestedModelName,
} from './llm/model-spec.js';
export { listProviders, registerProvider } from './llm/provider-registry.js';
export type {
  CreatedEmbedder,
  ModelProviderDescriptor,
  ModelSpec,
  ProviderCreateOptions,
  SpecProblem,
} from './llm/provider.js';
export { withConcurrency, withResilience, withRetries, withTimeout } from './llm/resilient-model.js';
export { DEFAULT_PRICES, costOf, mergePrices } from './llm/pricing.js';

// Stores: opening a home's run store (SQLite or Postgres), run folders, run liveness and pruning.
export {
  describeStore,
  openExistingRunStore,
  openRunStore,
  resolveHome,
  storeSpecFrom,
  type OpenRunStoreOptions,
  type ResolveHomeOptions,
  type StoreSpecSources,
} from './store/open-store.js';
export type {
  DeletedRuns,
  EventRecord,
  NewRun,
  PlanVersion,
  RunDeletion,
  RunOwner,
  RunRecord,
  RunStore,
  StoredEvent,
  StoredRunStatus,
} from './store/run-store.js';
export { outputFileName, outputFilePath, runPaths, type RunPaths } from './store/run-paths.js';
export { newRunId } from './store/run-id.js';
export { effectiveStatus, ownerState, type LivenessProbe, type OwnerState } from './store/run-owner.js';
export { pruneRuns, type PrunedRun, type PruneRunsOptions, type PruneRunsResult } from './store/prune-runs.js';
export { selectRunsToPrune, type KeptRun, type RunsToPrune } from './store/select-runs-to-prune.js';

// Update policies: when a run asks the inspector for a plan update (`--strategy`); one file each, registered here.
export { registerUpdatePolicy, updatePolicy, updatePolicyNames } from './run/update-policies.js';
export type { UpdatePolicy } from './run/update-policy.js';
