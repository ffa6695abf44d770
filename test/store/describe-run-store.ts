/**
 * Every conformance suite a Weft store runs, on one factory: SQLite (sqlite-run-store.test.ts) and Postgres
 * (postgres-run-store.test.ts) call this. The suites themselves are in src/testing/ (`weft/test`), where a library
 * user's own store can run them too.
 */
import * as vitest from 'vitest';
import { describeRunStore as runStoreSuite, type RunStoreFactory } from '../../src/testing/describe-run-store.js';
import { describeSessionStore, type SessionStoreFactory } from '../../src/testing/describe-session-store.js';
import { describeTraceStore, type TraceStoreFactory } from '../../src/testing/describe-trace-store.js';

export type { RunStoreFactory, StoreLocation } from '../../src/testing/describe-run-store.js';

/** A Weft store keeps runs, team scores, sessions and traces: one factory serves every suite. */
type WeftStoreFactory = RunStoreFactory & SessionStoreFactory & TraceStoreFactory;

export function describeRunStore(name: string, factory: WeftStoreFactory): void {
  runStoreSuite(name, factory, vitest);
  describeSessionStore(name, factory, vitest);
  describeTraceStore(name, factory, vitest);
  // The batch store's suite (describeBatchStore) runs apart, in sqlite-batch-store.test.ts and
  // postgres-batch-store.test.ts: on a factory of its own.
}
