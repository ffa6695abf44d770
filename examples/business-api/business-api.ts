/**
 * A small business service: a real HTTP server on 127.0.0.1 with its state in SQLite, for the
 * tools examples, tests and benchmarks, the conversational procedures of examples/procedures (APIs with
 * preconditions) and the distillation of solved traces into workflows. Six domains, each in domains/*.ts with its
 * endpoints listed at the top: orders and returns, bank cards, flight bookings, insurance claims, mobile plans and
 * clinic appointments.
 *
 * State-changing calls carry what their precondition step returned (a verification token, a quote id, an
 * eligibility id, a slot id); a call refused because it does not is a *violation*, counted in `/_stats`.
 * Errors are `{ "error": { "code", "message" } }`. Test hooks: `GET /_stats` (requests per endpoint, violations by
 * code), `POST /_stats/reset`, `POST /_reset` (seed data back, tokens gone, counters zero).
 *
 * Each Weft run and chat session gets its own copy of the seed data (the `Weft-Scope` header its http tools send,
 * scoped-states.ts), so a demo gives the same result every time it runs; counters are the server's, over all.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CARDS } from './domains/cards.js';
import { CLINIC } from './domains/clinic.js';
import { FLIGHTS } from './domains/flights.js';
import { INSURANCE } from './domains/insurance.js';
import { MOBILE } from './domains/mobile.js';
import { ORDERS } from './domains/orders.js';
import { ApiError, type Domain, type Json } from './http-kit.js';
import { SCOPE_HEADER, ScopedStates } from './scoped-states.js';
import {
  type ApiStats,
  countRequest,
  countViolation,
  type Db,
  DEFAULT_TODAY,
  openDb,
  readStats,
  reseed,
  resetCounts,
} from './store.js';

export type { ApiStats } from './store.js';

export interface BusinessApiOptions {
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** SQLite file; default in memory. A file keeps state (and counts) across restarts. */
  readonly dbPath?: string;
  /** The service's today (ISO date), for return windows, flight changes and slots; default 2026-01-15. */
  readonly today?: string;
  /**
   * One state for every caller: the `Weft-Scope` header is ignored, so a second run of a demo finds the first one's
   * returns and refunds. Default false: each Weft run and chat session gets its own copy of the seed data.
   */
  readonly shared?: boolean;
}

export interface BusinessApi {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  stats(): ApiStats;
  /** Counters (requests and violations) back to zero. */
  resetStats(): void;
  /** Seed data back (in every scope), tokens gone, counters zero. */
  reset(): void;
  close(): Promise<void>;
}

const DOMAINS: readonly Domain[] = [ORDERS, CARDS, FLIGHTS, INSURANCE, MOBILE, CLINIC];
const ROUTES = DOMAINS.flatMap((domain) => domain.routes);

const MAX_BODY_BYTES = 64 * 1024;

// ---- server ----------------------------------------------------------------------------------------------------

export async function startBusinessApi(options: BusinessApiOptions = {}): Promise<BusinessApi> {
  const dbPath = options.dbPath ?? ':memory:';
  const db = openDb(dbPath, DOMAINS);
  const states = new ScopedStates(db, dbPath, DOMAINS, options.shared ?? false);
  const today = options.today ?? DEFAULT_TODAY;
  const server = createServer((req, res) => {
    handle(db, states, today, req, res).catch((error: unknown) => {
      send(res, 500, { error: { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    stats: () => readStats(db),
    resetStats: () => resetCounts(db),
    reset: () => {
      reseed(db, DOMAINS);
      states.reset();
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          states.closeAll();
          db.close();
          resolve();
        });
      });
      return closing;
    },
  };
}

/** `db` holds the default state and the counters; `states` gives the state of the request's scope. */
async function handle(
  db: Db,
  states: ScopedStates,
  today: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
  const raw = await readBody(req).catch((error: unknown) => error as ApiError);
  if (raw instanceof ApiError) return sendError(res, raw);

  if (path === '/_stats' && method === 'GET') return send(res, 200, readStats(db));
  if (path === '/_stats/reset' && method === 'POST') {
    resetCounts(db);
    return send(res, 200, { reset: true });
  }
  if (path === '/_reset' && method === 'POST') {
    reseed(db, DOMAINS);
    states.reset();
    return send(res, 200, { reset: true });
  }

  let decoded: string[] | undefined;
  const candidates = ROUTES.map((candidate) => ({ candidate, match: candidate.regex.exec(path) })).filter(
    (entry) => entry.match,
  );
  const found = candidates.find((entry) => entry.candidate.method === method);
  if (!found) {
    if (candidates.length > 0) {
      res.setHeader('allow', candidates.map((entry) => entry.candidate.method).join(', '));
      return sendError(res, new ApiError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}`));
    }
    return sendError(res, new ApiError(404, 'NO_ROUTE', `no endpoint ${method} ${path}`));
  }
  const { candidate, match } = found;
  countRequest(db, `${candidate.method} ${candidate.pattern}`);
  try {
    decoded = match!.slice(1).map((part) => decodeURIComponent(part));
  } catch {
    return sendError(res, new ApiError(400, 'BAD_REQUEST', 'the path is not valid percent-encoded text'));
  }
  let body: Json = {};
  if (raw !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return sendError(res, new ApiError(400, 'BAD_JSON', 'the body is not valid JSON'));
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return sendError(res, new ApiError(400, 'BAD_REQUEST', 'the body must be a JSON object'));
    }
    body = parsed as Json;
  }
  const params = Object.fromEntries(candidate.names.map((name, index) => [name, decoded[index]!]));
  try {
    const state = states.for(req.headers[SCOPE_HEADER]);
    const result = candidate.handler(state, { params, query: url.searchParams, body }, today);
    send(res, result.status ?? 200, result.body);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.violation) countViolation(db, error.code);
    sendError(res, error);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new ApiError(413, 'TOO_LARGE', `the body is larger than ${MAX_BODY_BYTES} bytes`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendError(res: ServerResponse, error: ApiError): void {
  send(res, error.status, { error: { code: error.code, message: error.message } });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
