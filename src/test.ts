/**
 * `weft/test`: for the tests of code that uses Weft. Models that need no network and no key (scripted replies; the
 * seeded simulator behind `sim:` specs) and the conformance suites a store of your own runs to show it keeps runs,
 * sessions, traces and `weft exec` batches the way Weft's SQLite and Postgres stores do. The suites register vitest tests through the
 * functions you pass (`import * as vitest from 'vitest'`); vitest is an optional peer dependency, needed only for
 * them.
 */

// Models for tests: replies in order (or from a function, or a script file), and the seeded simulator.
export {
  loadScriptedModel,
  scriptedModel,
  type ScriptedAnswer,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedReply,
  type ScriptedReplyInput,
  type ScriptedResponder,
  type ScriptedToolCall,
  type ScriptedWhen,
} from './llm/scripted-model.js';
export { simModel, type SimModel } from './llm/sim-model.js';
// Its option keys: the generic ones are the model's, each engine registers its own; a responder of your own may
// add keys the same way (and the SimOptions type by augmenting it).
export {
  parseSimOptions,
  registerSimOptions,
  simIntegerOption,
  simOptionError,
  simPathOption,
  simProbabilityOption,
  type SimOptionKey,
  type SimOptions,
} from './llm/sim-options.js';
// What the simulator answers per call purpose: Weft's engines register theirs on import; a purpose of your own
// gets its responder here.
import './sim-responders.js';
export {
  registerSimResponder,
  simResponderPurposes,
  type SimCallContext,
  type SimReply,
  type SimResponder,
} from './llm/sim-responders.js';

// Store conformance suites: the same tests Weft's own stores run, on a factory of fresh storage locations.
export type { StoreSuiteApi } from './testing/store-suite-api.js';
export { describeRunStore, type RunStoreFactory, type StoreLocation } from './testing/describe-run-store.js';
export {
  describeSessionStore,
  type SessionStoreFactory,
  type SessionStoreLocation,
} from './testing/describe-session-store.js';
export { describeTraceStore, type TraceStoreFactory, type TraceStoreLocation } from './testing/describe-trace-store.js';
export {
  describeBatchStore,
  type BatchStoreFactory,
  type BatchStoreLocation,
} from './testing/describe-batch-store.js';
