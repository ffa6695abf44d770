/**
 * A dashboard started before any run exists has no store to read: opening one would create it, and the dashboard
 * never writes. This view tries to open the existing store on each request until there is one, and until then
 * answers as an empty store would.
 */
import type { DashboardStore } from './dashboard-store.js';

export interface LazyStore extends DashboardStore {
  close(): Promise<void>;
}

export function lazyExistingStore(
  open: () => Promise<(DashboardStore & { close(): Promise<void> }) | undefined>,
): LazyStore {
  let store: (DashboardStore & { close(): Promise<void> }) | undefined;
  let opening: Promise<typeof store> | undefined;
  let closed = false;
  const current = async () => {
    if (store || closed) return store;
    opening ??= open().finally(() => {
      opening = undefined;
    });
    store = await opening;
    return store;
  };
  return {
    listRuns: async () => (await current())?.listRuns() ?? [],
    getRun: async (runId) => (await current())?.getRun(runId),
    events: async (runId, afterSeq, limit) => (await current())?.events(runId, afterSeq, limit) ?? [],
    planVersions: async (runId) => (await current())?.planVersions(runId) ?? [],
    listSessions: async () => (await current())?.listSessions?.() ?? [],
    getSession: async (sessionId) => (await current())?.getSession?.(sessionId),
    sessionEvents: async (sessionId, afterSeq) => (await current())?.sessionEvents?.(sessionId, afterSeq) ?? [],
    listTraces: async (filter) => (await current())?.listTraces?.(filter) ?? [],
    getTrace: async (traceId) => (await current())?.getTrace?.(traceId),
    listBatches: async () => (await current())?.listBatches?.() ?? [],
    getBatch: async (batchId) => (await current())?.getBatch?.(batchId),
    // Only asked about a batch getBatch found, so a store exists by then.
    batchCounts: async (batchId) => {
      const open = await current();
      if (!open?.batchCounts) throw new Error('no store with batches');
      return open.batchCounts(batchId);
    },
    batchResults: async (batchId, query) => {
      const open = await current();
      if (!open?.batchResults) throw new Error('no store with batches');
      return open.batchResults(batchId, query);
    },
    close: async () => {
      closed = true;
      await (await opening)?.close();
      await store?.close();
    },
  };
}
