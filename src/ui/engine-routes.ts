/**
 * The dashboard's pages for the engines other than runs: sessions (procedures), traces and batches
 * (distillation) and eval reports, registered in one call so the app file stays small.
 */
import type { Hono } from 'hono';
import type { LivenessProbe } from '../store/run-owner.js';
import { registerBatchRoutes } from './batch-routes.js';
import type { DashboardStore } from './dashboard-store.js';
import { registerReportRoutes } from './report-routes.js';
import { registerSessionRoutes } from './session-routes.js';
import { registerTraceRoutes } from './trace-routes.js';

export interface EngineRoutesOptions {
  readonly store: DashboardStore;
  /** The Weft home: `bench/worfbench/*\/scores.json` are read from it (and old `batches/` folders listed). */
  readonly home?: string;
  /** Eval report files or folders (`weft serve --reports`). */
  readonly reports?: readonly string[];
  readonly probe?: LivenessProbe;
}

export function registerEngineRoutes(app: Hono, options: EngineRoutesOptions): void {
  const probe = options.probe ? { probe: options.probe } : {};
  const home = options.home !== undefined ? { home: options.home } : {};
  registerSessionRoutes(app, { store: options.store, ...probe });
  registerTraceRoutes(app, { store: options.store });
  registerBatchRoutes(app, { store: options.store, ...home, ...probe });
  registerReportRoutes(app, { ...home, ...(options.reports ? { reports: options.reports } : {}) });
}
