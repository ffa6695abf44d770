/**
 * The dashboard as a Hono app: security headers and the token on every request, the JSON API under /api/, and
 * the page (one HTML shell whose scripts route by the URL's hash). Separate from the listening server so tests
 * can call `app.request()` directly.
 */
import { Hono } from 'hono';
import type { LivenessProbe } from '../store/run-owner.js';
import type { DashboardStore } from './dashboard-store.js';
import { embedJson } from './embed-json.js';
import { hostCheck, type HostPolicy } from './host-check.js';
import { registerEngineRoutes } from './engine-routes.js';
import { RunLogCache } from './run-log-cache.js';
import { registerRunPageRoutes } from './run-page-routes.js';
import { registerRunRoutes } from './run-routes.js';
import { securityHeaders } from './security-headers.js';
import { tokenAuth } from './token-auth.js';
import { loadWebAssets, type WebAsset } from './web-assets.js';

export interface DashboardOptions {
  readonly store: DashboardStore;
  readonly token: string;
  /** What the page shows as where the runs come from (the SQLite path, or the Postgres URL without password). */
  readonly storeLabel?: string;
  /** How often a live event stream asks the store for new events. Default 200 ms. */
  readonly pollMs?: number;
  /** A comment line on an idle event stream this often. Default 15 s. */
  readonly heartbeatMs?: number;
  readonly probe?: LivenessProbe;
  /** The Weft home, for the batches and the bench scores under it (engine-routes.ts). */
  readonly home?: string;
  /** Eval report files or folders to list (`weft serve --reports`). */
  readonly reports?: readonly string[];
  /** Live event streams open at once, at most; past it a 503. Default MAX_EVENT_STREAMS (64). */
  readonly maxStreams?: number;
  /**
   * The names the server answers to (startDashboard sets it from its address): any other Host header is a 421. Left
   * out, no Host is checked (tests calling `app.request()` send none).
   */
  readonly hosts?: HostPolicy;
  /** The page's files; default the package's `web/`. */
  readonly assets?: Map<string, WebAsset>;
}

export const DEFAULT_POLL_MS = 200;
export const DEFAULT_HEARTBEAT_MS = 15_000;

export function createDashboardApp(options: DashboardOptions): Hono {
  const app = new Hono();
  // A failing store read (a locked or damaged database, Postgres gone): the page gets JSON it can show, not
  // Hono's plain text; no stack trace on the server's stderr per request.
  app.onError((error, c) => {
    const message = `The dashboard could not answer: ${error.message}`;
    return c.req.path.startsWith('/api/')
      ? c.json({ error: { code: 'INTERNAL', message } }, 500)
      : c.text(message, 500);
  });
  const assets = options.assets ?? loadWebAssets();
  app.use('*', securityHeaders());
  if (options.hosts) app.use('*', hostCheck(options.hosts));
  app.use('*', tokenAuth(options.token));
  // One cache of run logs for every route that folds a whole log (the run's summary, a node panel, its teams).
  const logs = new RunLogCache(options.store);
  registerRunRoutes(app, {
    logs,
    store: options.store,
    pollMs: options.pollMs ?? DEFAULT_POLL_MS,
    heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    ...(options.probe ? { probe: options.probe } : {}),
    ...(options.maxStreams !== undefined ? { maxStreams: options.maxStreams } : {}),
  });
  registerEngineRoutes(app, options);
  registerRunPageRoutes(app, { store: options.store, logs });
  app.all('/api/*', (c) => c.json({ error: { code: 'NOT_FOUND', message: `No API route ${c.req.path}` } }, 404));
  const boot = embedJson({ store: options.storeLabel ?? '' });
  app.get('/', (c) => {
    const shell = assets.get('/index.html');
    if (!shell) return c.text('The dashboard page is missing from this install (web/index.html)', 500);
    return c.html(shell.body.replace('{{BOOT_JSON}}', () => boot));
  });
  // Browsers ask for it unprompted; an empty answer keeps the console free of 404s.
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('*', (c) => {
    const asset = c.req.path === '/index.html' ? undefined : assets.get(c.req.path);
    if (!asset) return c.text('Not found', 404);
    return c.body(asset.body, 200, { 'Content-Type': asset.type });
  });
  return app;
}
