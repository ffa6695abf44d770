/**
 * `weft serve`: the dashboard over the configured store until SIGINT/SIGTERM. Prints the URL with its token (the
 * one secret); `--json` prints `{ url, host, port, token, store }` once, for scripts. A host other than loopback
 * must be asked for and gets a warning: anyone who can reach it and learns the token reads every run.
 * WEFT_DASHBOARD_TOKEN sets the token, so pages left open survive a restart; otherwise each start makes a new one.
 */
import { checkDashboardToken, isLoopbackHost, lazyExistingStore, startDashboard } from '../../internal.js';
import { WeftError } from '../../errors.js';
import { type CommonFlags, loadContext, openExistingStore, storePlace } from '../context.js';
import type { Output } from '../output.js';

export interface ServeFlags extends CommonFlags {
  readonly port?: string;
  readonly host?: string;
  /** Eval report files or folders to list on the reports page. */
  readonly reports?: readonly string[];
  /** Host names besides the dashboard's own address that it answers to (a proxy's). */
  readonly allowedHost?: readonly string[];
}

export async function serveCommand(flags: ServeFlags, output: Output, signal: AbortSignal): Promise<number> {
  const port = parsePort(flags.port);
  const host = flags.host ?? '127.0.0.1';
  if (host.trim() === '')
    throw new WeftError('BAD_INPUT', '--host needs a host name or address', { location: { field: '--host' } });
  const allowedHosts = (flags.allowedHost ?? []).map(checkAllowedHost);
  // From the environment, not a flag: a command line is visible to every user of the machine (ps).
  const chosen = process.env['WEFT_DASHBOARD_TOKEN'];
  const token = chosen === undefined || chosen === '' ? undefined : checkDashboardToken(chosen);
  const context = await loadContext(flags);
  const place = storePlace(context);
  const store = lazyExistingStore(() => openExistingStore(context));
  try {
    const dashboard = await startDashboard({
      store,
      host,
      port,
      storeLabel: place,
      home: context.home,
      ...(token !== undefined ? { token } : {}),
      ...(flags.reports && flags.reports.length > 0 ? { reports: flags.reports } : {}),
      ...(allowedHosts.length > 0 ? { allowedHosts } : {}),
    });
    if (!isLoopbackHost(host))
      output.log(
        `warning: serving on ${host}, not only this machine: anyone who can reach it and has the token can read every run`,
      );
    if (output.json)
      output.document({
        url: dashboard.url,
        host: dashboard.host,
        port: dashboard.port,
        token: dashboard.token,
        store: place,
      });
    else {
      output.text(`weft dashboard: ${dashboard.url}`);
      output.text(`runs from ${place}; Ctrl-C stops`);
    }
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await dashboard.close();
    return 0;
  } finally {
    await store.close();
  }
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,5}$/.test(value.trim()) || Number(value) > 65_535)
    throw new WeftError('BAD_INPUT', `--port must be a whole number from 0 to 65535, not ${JSON.stringify(value)}`, {
      location: { field: '--port' },
    });
  return Number(value);
}

/** A host name or address as a Host header names it: no port, scheme or path (the proxy's port may be any). */
function checkAllowedHost(name: string): string {
  const bare = name.trim();
  if (!/^(\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*|[A-Za-z0-9.-]{1,253})$/.test(bare))
    throw new WeftError(
      'BAD_INPUT',
      `--allowed-host takes a host name or address without scheme, port or path (e.g. dash.example.com), not ${JSON.stringify(name.slice(0, 100))}`,
      { location: { field: '--allowed-host' } },
    );
  return bare;
}
