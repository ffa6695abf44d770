/**
 * What the business API's domains share: the error type, routes, typed reads of a request, deterministic ids and
 * the proof tokens that state-changing calls must carry (a verification token, a quote id, …). A refusal because a
 * business precondition was not met is a *violation*: the server counts those apart (`/_stats`), which is how the
 * dialog benchmark shows that a call refused by Weft's controllers never reached the API.
 */
import { createHash } from 'node:crypto';
import type { Db } from './store.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** true: refused because a precondition step was skipped or its result not carried (counted in `violations`). */
    readonly violation = false,
  ) {
    super(message);
  }
}

/** A refusal because a business precondition was not met (a missing or foreign token, an unapproved return, …). */
export function violation(status: number, code: string, message: string): ApiError {
  return new ApiError(status, code, message, true);
}

export type Json = Record<string, unknown>;
export interface Request {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: Json;
}
export type Handler = (db: Db, request: Request, today: string) => { status?: number; body: unknown };

export interface Route {
  readonly method: string;
  readonly pattern: string;
  readonly regex: RegExp;
  readonly names: readonly string[];
  readonly handler: Handler;
}

/** One area of the service: its tables, its seed rows and its endpoints. */
export interface Domain {
  readonly name: string;
  readonly schema: string;
  /** Tables in the order they can be emptied (children first). */
  readonly tables: readonly string[];
  seed(db: Db): void;
  readonly routes: readonly Route[];
}

export function route(method: string, pattern: string, handler: Handler): Route {
  const names: string[] = [];
  const regex = new RegExp(
    `^${pattern.replace(/\{(\w+)\}/g, (_match, name: string) => {
      names.push(name);
      return '([^/]+)';
    })}$`,
  );
  return { method, pattern, regex, names, handler };
}

/** A required non-empty string of the body (or, for GETs, of the query). */
export function text(body: Json, field: string, { max = 500 } = {}): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ApiError(400, 'BAD_REQUEST', `"${field}" is required (a non-empty string)`);
  }
  if (value.length > max) throw new ApiError(400, 'BAD_REQUEST', `"${field}" is longer than ${max} characters`);
  return value.trim();
}

export function queryText(query: URLSearchParams, field: string, { max = 200 } = {}): string {
  return text({ [field]: query.get(field) ?? undefined }, field, { max });
}

/** An optional string of the body: undefined when absent, 400 when not a string. */
export function optionalText(body: Json, field: string, { max = 500 } = {}): string | undefined {
  return body[field] === undefined || body[field] === null ? undefined : text(body, field, { max });
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ApiError(400, 'BAD_REQUEST', `"${field}" must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/** A calendar date YYYY-MM-DD that exists. */
export function isoDate(value: string, field: string): string {
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(parsed) || new Date(parsed).toISOString().slice(0, 10) !== value) {
    throw new ApiError(400, 'BAD_REQUEST', `"${field}" must be a date YYYY-MM-DD`);
  }
  return value;
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export const money = (cents: number): number => cents / 100;

/** `PREFIX-0001`, `PREFIX-0002`, … by the rows already in the table (a fresh server hands out the same ids). */
export function nextId(db: Db, table: string, prefix: string): string {
  const { n } = db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number };
  return `${prefix}-${String(n + 1).padStart(4, '0')}`;
}

/**
 * A proof that a step succeeded (identity verified, a booking found), bound to what it is about. A caller that
 * skipped the step has none to pass. Deterministic (the n-th token of a fresh server is always the same), so that
 * recorded sessions replay; this is a test service, not an authentication scheme: anyone with this source can
 * compute them.
 */
export function issueToken(db: Db, kind: string, subject: string): string {
  const { n } = db.prepare('SELECT COUNT(*) AS n FROM tokens').get() as { n: number };
  const token = `${kind}_${createHash('sha256').update(`weft-business-api:${kind}:${subject}:${n}`).digest('hex').slice(0, 16)}`;
  db.prepare('INSERT INTO tokens (token, kind, subject) VALUES (?, ?, ?)').run(token, kind, subject);
  return token;
}

/**
 * The token of a request (body, or query for GETs), which must be one issued for this subject: missing is 403
 * NOT_VERIFIED, unknown or issued for someone else 403 INVALID_TOKEN; both are violations.
 */
export function requireToken(
  db: Db,
  request: Request,
  field: string,
  kind: string,
  subject: string,
  step: string,
): void {
  const raw = request.body[field] ?? request.query.get(field) ?? undefined;
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw violation(403, 'NOT_VERIFIED', `"${field}" is required: ${step} first and pass the token it returned`);
  }
  const row = db.prepare('SELECT kind, subject FROM tokens WHERE token = ?').get(raw.trim()) as
    | { kind: string; subject: string }
    | undefined;
  if (!row || row.kind !== kind || row.subject !== subject) {
    throw violation(403, 'INVALID_TOKEN', `"${field}" is not a token issued for ${subject}; ${step} first`);
  }
}
