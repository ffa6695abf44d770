/** Shared by the dashboard's engine-page tests: an app over a home, and GETs with the token. */
import { createDashboardApp } from '../../src/ui/dashboard-app.js';
import type { DashboardStore } from '../../src/ui/dashboard-store.js';
import { loadWebAssets } from '../../src/ui/web-assets.js';

export const TOKEN = 'test-token-0123456789';
const assets = loadWebAssets();

const emptyStore: DashboardStore = {
  listRuns: async () => [],
  getRun: async () => undefined,
  events: async () => [],
  planVersions: async () => [],
};

export function dashboard(options: { store?: DashboardStore; home?: string; reports?: string[] }) {
  const app = createDashboardApp({
    store: options.store ?? emptyStore,
    token: TOKEN,
    assets,
    ...(options.home !== undefined ? { home: options.home } : {}),
    ...(options.reports ? { reports: options.reports } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the tests read JSON bodies of many shapes
  return async (path: string): Promise<{ status: number; body: any }> => {
    const response = await app.request(path, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the text itself
    }
    return { status: response.status, body };
  };
}
