/**
 * A small order and returns service (issue 12): a real HTTP server on 127.0.0.1 with its state in SQLite, for the
 * tools examples, tests and benchmarks, and later for conversational procedures (APIs with preconditions) and the
 * distillation of solved traces into workflows. Twelve endpoints; some need an earlier call's result:
 *
 *   GET    /customers?email=…              find a customer               → { id, name, email, verified }
 *   POST   /customers/{id}/verify          { postal_code }               → { verified: true } (401 wrong, 423 locked)
 *   GET    /customers/{id}/orders?status=… the customer's orders
 *   GET    /orders/{id}                    one order with items and total
 *   GET    /orders/{id}/tracking           carrier and status            (409 before it ships, or cancelled)
 *   PATCH  /orders/{id}/address            { address }                   (403 unverified, 409 once shipped)
 *   POST   /orders/{id}/cancel             { reason }                    (403 unverified, 409 once shipped)
 *   POST   /returns                        { order_id, items: [{ sku, quantity }], reason }
 *                                          (403 unverified, 409 not delivered or past 30 days, 422 bad items)
 *   GET    /returns/{id}
 *   POST   /returns/{id}/approve                                         (409 unless requested)
 *   POST   /refunds                        { return_id, method: original_payment | store_credit }
 *                                          (409 unless the return is approved; once per return)
 *   GET    /refunds/{id}
 *
 * Errors are `{ "error": { "code", "message" } }`. Test hooks: `GET /_stats` (requests per endpoint),
 * `POST /_stats/reset`, `POST /_reset` (seed data back, counters zero).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ApiStats,
  countRequest,
  type Db,
  DEFAULT_TODAY,
  openDb,
  RETURN_WINDOW_DAYS,
  readStats,
  reseed,
} from './store.js';

export interface BusinessApiOptions {
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** SQLite file; default in memory. A file keeps state (and counts) across restarts. */
  readonly dbPath?: string;
  /** The service's today (ISO date), for return windows; default 2026-01-15. */
  readonly today?: string;
}

export interface BusinessApi {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  stats(): ApiStats;
  /** Counters back to zero. */
  resetStats(): void;
  /** Seed data back, counters zero. */
  reset(): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;
interface Request {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: Json;
}
type Handler = (db: Db, request: Request, today: string) => { status?: number; body: unknown };

interface Route {
  readonly method: string;
  readonly pattern: string;
  readonly regex: RegExp;
  readonly names: readonly string[];
  readonly handler: Handler;
}

function route(method: string, pattern: string, handler: Handler): Route {
  const names: string[] = [];
  const regex = new RegExp(
    `^${pattern.replace(/\{(\w+)\}/g, (_match, name: string) => {
      names.push(name);
      return '([^/]+)';
    })}$`,
  );
  return { method, pattern, regex, names, handler };
}

// ---- helpers ---------------------------------------------------------------------------------------------------

function text(body: Json, field: string, { max = 500 } = {}): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ApiError(400, 'BAD_REQUEST', `"${field}" is required (a non-empty string)`);
  }
  if (value.length > max) throw new ApiError(400, 'BAD_REQUEST', `"${field}" is longer than ${max} characters`);
  return value.trim();
}

interface CustomerRow {
  id: string;
  name: string;
  email: string;
  postal_code: string;
  verified: number;
  failed_verifications: number;
}
interface OrderRow {
  id: string;
  customer_id: string;
  status: string;
  placed_on: string;
  shipped_on: string | null;
  delivered_on: string | null;
  carrier: string | null;
  tracking_number: string | null;
  address: string;
  cancel_reason: string | null;
}
interface ItemRow {
  sku: string;
  name: string;
  quantity: number;
  unit_price_cents: number;
}
interface ReturnRow {
  id: string;
  order_id: string;
  reason: string;
  status: string;
}

function customerOf(db: Db, id: string): CustomerRow {
  const row = db.prepare('SELECT * FROM customers WHERE id = ?').get(id) as CustomerRow | undefined;
  if (!row) throw new ApiError(404, 'CUSTOMER_NOT_FOUND', `no customer ${id}`);
  return row;
}

function orderOf(db: Db, id: string): OrderRow {
  const row = db.prepare('SELECT * FROM orders WHERE id = ?').get(id) as OrderRow | undefined;
  if (!row) throw new ApiError(404, 'ORDER_NOT_FOUND', `no order ${id}`);
  return row;
}

function requireVerified(db: Db, order: OrderRow): void {
  if (customerOf(db, order.customer_id).verified !== 1) {
    throw new ApiError(
      403,
      'NOT_VERIFIED',
      `customer ${order.customer_id} must be verified first (POST /customers/{id}/verify)`,
    );
  }
}

const money = (cents: number): number => cents / 100;

function customerView(row: CustomerRow) {
  return { id: row.id, name: row.name, email: row.email, verified: row.verified === 1 };
}

function orderView(db: Db, row: OrderRow) {
  const items = db
    .prepare('SELECT sku, name, quantity, unit_price_cents FROM order_items WHERE order_id = ? ORDER BY sku')
    .all(row.id) as ItemRow[];
  return {
    id: row.id,
    customer_id: row.customer_id,
    status: row.status,
    placed_on: row.placed_on,
    delivered_on: row.delivered_on,
    address: row.address,
    items: items.map((item) => ({
      sku: item.sku,
      name: item.name,
      quantity: item.quantity,
      unit_price: money(item.unit_price_cents),
    })),
    total: money(items.reduce((sum, item) => sum + item.quantity * item.unit_price_cents, 0)),
  };
}

function returnView(db: Db, row: ReturnRow) {
  const items = db.prepare('SELECT sku, quantity FROM return_items WHERE return_id = ? ORDER BY sku').all(row.id);
  const refund = db.prepare('SELECT id FROM refunds WHERE return_id = ?').get(row.id) as { id: string } | undefined;
  return {
    id: row.id,
    order_id: row.order_id,
    status: row.status,
    reason: row.reason,
    items,
    refund_id: refund?.id ?? null,
  };
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

const nextId = (db: Db, table: 'returns' | 'refunds', prefix: string): string => {
  const { n } = db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number };
  return `${prefix}-${String(n + 1).padStart(4, '0')}`;
};

// ---- routes ----------------------------------------------------------------------------------------------------

const ROUTES: readonly Route[] = [
  route('GET', '/customers', (db, { query }) => {
    const email = query.get('email')?.trim().toLowerCase();
    if (!email) throw new ApiError(400, 'BAD_REQUEST', 'the "email" query parameter is required');
    const row = db.prepare('SELECT * FROM customers WHERE email = ?').get(email) as CustomerRow | undefined;
    if (!row) throw new ApiError(404, 'CUSTOMER_NOT_FOUND', `no customer with email ${email}`);
    return { body: customerView(row) };
  }),

  route('POST', '/customers/{id}/verify', (db, { params, body }) => {
    const customer = customerOf(db, params.id!);
    const postalCode = text(body, 'postal_code', { max: 20 });
    if (customer.failed_verifications >= 5) {
      throw new ApiError(423, 'LOCKED', `customer ${customer.id} is locked after 5 failed verifications`);
    }
    if (postalCode !== customer.postal_code) {
      db.prepare('UPDATE customers SET failed_verifications = failed_verifications + 1 WHERE id = ?').run(customer.id);
      throw new ApiError(401, 'VERIFICATION_FAILED', 'the postal code does not match');
    }
    db.prepare('UPDATE customers SET verified = 1, failed_verifications = 0 WHERE id = ?').run(customer.id);
    return { body: { customer_id: customer.id, verified: true } };
  }),

  route('GET', '/customers/{id}/orders', (db, { params, query }) => {
    const customer = customerOf(db, params.id!);
    const status = query.get('status');
    if (status !== null && !['processing', 'shipped', 'delivered', 'cancelled'].includes(status)) {
      throw new ApiError(400, 'BAD_REQUEST', '"status" must be processing, shipped, delivered or cancelled');
    }
    const rows = db
      .prepare(`SELECT * FROM orders WHERE customer_id = ? ${status ? 'AND status = ?' : ''} ORDER BY id`)
      .all(...(status ? [customer.id, status] : [customer.id])) as OrderRow[];
    return {
      body: {
        customer_id: customer.id,
        orders: rows.map((row) => ({
          id: row.id,
          status: row.status,
          placed_on: row.placed_on,
          total: orderView(db, row).total,
        })),
      },
    };
  }),

  route('GET', '/orders/{id}', (db, { params }) => ({ body: orderView(db, orderOf(db, params.id!)) })),

  route('GET', '/orders/{id}/tracking', (db, { params }) => {
    const order = orderOf(db, params.id!);
    if (order.status === 'processing' || order.status === 'cancelled') {
      throw new ApiError(409, 'NOT_SHIPPED', `order ${order.id} is ${order.status}; it has no tracking yet`);
    }
    return {
      body: {
        order_id: order.id,
        status: order.status,
        carrier: order.carrier,
        tracking_number: order.tracking_number,
        shipped_on: order.shipped_on,
        delivered_on: order.delivered_on,
      },
    };
  }),

  route('PATCH', '/orders/{id}/address', (db, { params, body }) => {
    const order = orderOf(db, params.id!);
    const address = text(body, 'address');
    requireVerified(db, order);
    if (order.status !== 'processing') {
      throw new ApiError(
        409,
        'ALREADY_SHIPPED',
        `order ${order.id} is ${order.status}; its address can no longer change`,
      );
    }
    db.prepare('UPDATE orders SET address = ? WHERE id = ?').run(address, order.id);
    return { body: orderView(db, orderOf(db, order.id)) };
  }),

  route('POST', '/orders/{id}/cancel', (db, { params, body }) => {
    const order = orderOf(db, params.id!);
    const reason = text(body, 'reason');
    requireVerified(db, order);
    if (order.status !== 'processing') {
      throw new ApiError(
        409,
        'NOT_CANCELLABLE',
        `order ${order.id} is ${order.status}; only processing orders can be cancelled`,
      );
    }
    db.prepare("UPDATE orders SET status = 'cancelled', cancel_reason = ? WHERE id = ?").run(reason, order.id);
    return { body: orderView(db, orderOf(db, order.id)) };
  }),

  route('POST', '/returns', (db, { body }, today) => {
    const order = orderOf(db, text(body, 'order_id', { max: 40 }));
    const reason = text(body, 'reason');
    const items = body.items;
    if (!Array.isArray(items) || items.length === 0 || items.length > 50) {
      throw new ApiError(400, 'BAD_REQUEST', '"items" is required: a list of { sku, quantity } (1 to 50)');
    }
    requireVerified(db, order);
    if (order.status !== 'delivered' || order.delivered_on === null) {
      throw new ApiError(
        409,
        'NOT_DELIVERED',
        `order ${order.id} is ${order.status}; only delivered orders can be returned`,
      );
    }
    const age = daysBetween(order.delivered_on, today);
    if (age > RETURN_WINDOW_DAYS) {
      throw new ApiError(
        409,
        'RETURN_WINDOW_CLOSED',
        `order ${order.id} was delivered ${age} days ago; returns close after ${RETURN_WINDOW_DAYS} days`,
      );
    }
    const ordered = new Map(
      (db.prepare('SELECT sku, quantity FROM order_items WHERE order_id = ?').all(order.id) as ItemRow[]).map(
        (item) => [item.sku, item.quantity],
      ),
    );
    const returned = db.prepare(
      'SELECT COALESCE(SUM(ri.quantity), 0) AS n FROM return_items ri JOIN returns r ON r.id = ri.return_id WHERE r.order_id = ? AND ri.sku = ?',
    );
    const wanted = new Map<string, number>();
    for (const item of items as unknown[]) {
      const { sku, quantity } = (item ?? {}) as { sku?: unknown; quantity?: unknown };
      if (typeof sku !== 'string' || !Number.isInteger(quantity) || (quantity as number) < 1) {
        throw new ApiError(400, 'BAD_REQUEST', 'each item needs "sku" (a string) and "quantity" (a whole number >= 1)');
      }
      wanted.set(sku, (wanted.get(sku) ?? 0) + (quantity as number));
    }
    for (const [sku, quantity] of wanted) {
      const bought = ordered.get(sku);
      if (bought === undefined) throw new ApiError(422, 'ITEM_NOT_IN_ORDER', `order ${order.id} has no item ${sku}`);
      const already = (returned.get(order.id, sku) as { n: number }).n;
      if (quantity + already > bought) {
        throw new ApiError(
          422,
          'TOO_MANY',
          `order ${order.id} has ${bought} of ${sku}, ${already} already returned; cannot return ${quantity} more`,
        );
      }
    }
    const id = nextId(db, 'returns', 'R');
    db.transaction(() => {
      db.prepare(
        "INSERT INTO returns (id, order_id, reason, status, created_seq) VALUES (?, ?, ?, 'requested', 0)",
      ).run(id, order.id, reason);
      const insert = db.prepare('INSERT INTO return_items (return_id, sku, quantity) VALUES (?, ?, ?)');
      for (const [sku, quantity] of wanted) insert.run(id, sku, quantity);
    })();
    return { status: 201, body: returnView(db, db.prepare('SELECT * FROM returns WHERE id = ?').get(id) as ReturnRow) };
  }),

  route('GET', '/returns/{id}', (db, { params }) => ({ body: returnView(db, returnOf(db, params.id!)) })),

  route('POST', '/returns/{id}/approve', (db, { params }) => {
    const row = returnOf(db, params.id!);
    if (row.status !== 'requested') throw new ApiError(409, 'NOT_APPROVABLE', `return ${row.id} is ${row.status}`);
    db.prepare("UPDATE returns SET status = 'approved' WHERE id = ?").run(row.id);
    return { body: returnView(db, returnOf(db, row.id)) };
  }),

  route('POST', '/refunds', (db, { body }) => {
    const row = returnOf(db, text(body, 'return_id', { max: 40 }));
    const method = text(body, 'method', { max: 40 });
    if (method !== 'original_payment' && method !== 'store_credit') {
      throw new ApiError(400, 'BAD_REQUEST', '"method" must be original_payment or store_credit');
    }
    if (row.status === 'refunded') throw new ApiError(409, 'ALREADY_REFUNDED', `return ${row.id} is already refunded`);
    if (row.status !== 'approved')
      throw new ApiError(409, 'RETURN_NOT_APPROVED', `return ${row.id} is ${row.status}; approve it first`);
    const { cents } = db
      .prepare(
        `SELECT SUM(ri.quantity * oi.unit_price_cents) AS cents FROM return_items ri
         JOIN order_items oi ON oi.order_id = ? AND oi.sku = ri.sku WHERE ri.return_id = ?`,
      )
      .get(row.order_id, row.id) as { cents: number };
    const id = nextId(db, 'refunds', 'RF');
    db.transaction(() => {
      db.prepare('INSERT INTO refunds (id, return_id, method, amount_cents) VALUES (?, ?, ?, ?)').run(
        id,
        row.id,
        method,
        cents,
      );
      db.prepare("UPDATE returns SET status = 'refunded' WHERE id = ?").run(row.id);
    })();
    return { status: 201, body: { id, return_id: row.id, method, amount: money(cents) } };
  }),

  route('GET', '/refunds/{id}', (db, { params }) => {
    const row = db.prepare('SELECT * FROM refunds WHERE id = ?').get(params.id!) as
      | { id: string; return_id: string; method: string; amount_cents: number }
      | undefined;
    if (!row) throw new ApiError(404, 'REFUND_NOT_FOUND', `no refund ${params.id}`);
    return { body: { id: row.id, return_id: row.return_id, method: row.method, amount: money(row.amount_cents) } };
  }),
];

function returnOf(db: Db, id: string): ReturnRow {
  const row = db.prepare('SELECT * FROM returns WHERE id = ?').get(id) as ReturnRow | undefined;
  if (!row) throw new ApiError(404, 'RETURN_NOT_FOUND', `no return ${id}`);
  return row;
}

// ---- server ----------------------------------------------------------------------------------------------------

export async function startBusinessApi(options: BusinessApiOptions = {}): Promise<BusinessApi> {
  const db = openDb(options.dbPath ?? ':memory:');
  const today = options.today ?? DEFAULT_TODAY;
  const server = createServer((req, res) => {
    handle(db, today, req, res).catch((error: unknown) => {
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
    resetStats: () => db.exec('DELETE FROM request_counts'),
    reset: () => reseed(db),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          db.close();
          resolve();
        });
      });
      return closing;
    },
  };
}

async function handle(db: Db, today: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
  const raw = await readBody(req).catch((error: unknown) => error as ApiError);
  if (raw instanceof ApiError) return sendError(res, raw);

  if (path === '/_stats' && method === 'GET') return send(res, 200, readStats(db));
  if (path === '/_stats/reset' && method === 'POST') {
    db.exec('DELETE FROM request_counts');
    return send(res, 200, { reset: true });
  }
  if (path === '/_reset' && method === 'POST') {
    reseed(db);
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
    const result = candidate.handler(db, { params, query: url.searchParams, body }, today);
    send(res, result.status ?? 200, result.body);
  } catch (error) {
    if (error instanceof ApiError) sendError(res, error);
    else throw error;
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
