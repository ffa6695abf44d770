/**
 * `weft serve`'s server: the dashboard app on a Node HTTP server. Loopback unless the caller names another host;
 * the caller prints the URL with its token and warns about non-loopback hosts (isLoopbackHost).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { WeftError } from '../errors.js';
import { createDashboardApp, type DashboardOptions } from './dashboard-app.js';
import { newDashboardToken } from './token-auth.js';

export interface StartDashboardOptions extends Omit<DashboardOptions, 'token' | 'hosts'> {
  readonly host?: string;
  /**
   * Host names the dashboard answers to besides its address, localhost, 127.0.0.1 and [::1] (with its port): a
   * proxy's name, with any port. Requests naming another host get a 421 (DNS rebinding).
   */
  readonly allowedHosts?: readonly string[];
  /** 0 picks a free port. Default 4477. */
  readonly port?: number;
  /** Default: a new random token. */
  readonly token?: string;
}

export interface RunningDashboard {
  /** The address to open, with the token. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

export const DEFAULT_DASHBOARD_PORT = 4477;

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

export async function startDashboard(options: StartDashboardOptions): Promise<RunningDashboard> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? newDashboardToken();
  let listening: number | undefined;
  const app = createDashboardApp({
    ...options,
    token,
    hosts: { bound: host, allowed: options.allowedHosts ?? [], port: () => listening },
  });
  const server = await new Promise<Server>((resolvePromise, reject) => {
    const started = serve({ fetch: app.fetch, hostname: host, port: options.port ?? DEFAULT_DASHBOARD_PORT }) as Server;
    started.once('listening', () => resolvePromise(started));
    started.once('error', (error: NodeJS.ErrnoException) => {
      const port = options.port ?? DEFAULT_DASHBOARD_PORT;
      reject(
        error.code === 'EADDRINUSE'
          ? new WeftError(
              'BAD_INPUT',
              `Port ${port} on ${host} is in use: pick another with --port (0 picks a free one)`,
              {
                location: { field: '--port' },
              },
            )
          : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND'
            ? new WeftError('BAD_INPUT', `Cannot listen on host ${JSON.stringify(host)}: ${error.message}`, {
                location: { field: '--host' },
              })
            : new WeftError('INTERNAL', `The dashboard server failed to start: ${error.message}`, { cause: error }),
      );
    });
  });
  const port = (server.address() as AddressInfo).port;
  listening = port;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${urlHost}:${port}/?token=${token}`,
    host,
    port,
    token,
    close: () =>
      new Promise<void>((resolveClose) => {
        // Live event streams never end by themselves: drop them, or close() waits forever.
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
