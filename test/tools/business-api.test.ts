/**
 * The example business API (examples/business-api) as a real server: endpoints, preconditions, 4xx on bad input,
 * deterministic ids, request counters, and state kept in SQLite across a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BusinessApi, startBusinessApi } from '../../examples/business-api/business-api.js';

let api: BusinessApi;
beforeEach(async () => {
  api = await startBusinessApi();
});
afterEach(async () => {
  await api.close();
});
const scratch = mkdtempSync(join(tmpdir(), 'weft-business-api-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    headers: { 'content-type': 'application/json' },
  });
  return { status: response.status, body: await response.json() };
}

describe('business API', () => {
  it('runs a return to its refund: find, verify, return, approve, refund — each step needing the one before', async () => {
    const customer = await call('GET', '/customers?email=ADA@example.com');
    expect(customer).toEqual({
      status: 200,
      body: { customer_id: 'C-1001', name: 'Ada Lovelace', email: 'ada@example.com', verified: false },
    });
    const items = [{ sku: 'MS-02', quantity: 1 }];
    const early = await call('POST', '/returns', { order_id: 'O-5001', items, reason: 'too loud' });
    expect(early).toMatchObject({ status: 403, body: { error: { code: 'NOT_VERIFIED' } } });

    expect(await call('POST', '/customers/C-1001/verify', { postal_code: '99999' })).toMatchObject({ status: 401 });
    const verified = await call('POST', '/customers/C-1001/verify', { postal_code: '10001' });
    expect(verified).toEqual({
      status: 200,
      body: { customer_id: 'C-1001', verified: true, verification_token: expect.stringMatching(/^vt_[0-9a-f]{16}$/) },
    });
    const token = (verified.body as { verification_token: string }).verification_token;
    const opened = await call('POST', '/returns', {
      order_id: 'O-5001',
      items,
      reason: 'too loud',
      verification_token: token,
    });
    expect(opened).toEqual({
      status: 201,
      body: {
        return_id: 'R-0001',
        order_id: 'O-5001',
        status: 'requested',
        reason: 'too loud',
        items,
        refund_id: null,
      },
    });
    const unapproved = await call('POST', '/refunds', { return_id: 'R-0001', method: 'original_payment' });
    expect(unapproved).toMatchObject({ status: 409, body: { error: { code: 'RETURN_NOT_APPROVED' } } });
    expect(await call('POST', '/returns/R-0001/approve')).toMatchObject({ status: 200, body: { status: 'approved' } });
    expect(await call('POST', '/returns/R-0001/approve')).toMatchObject({ status: 409 });
    const refund = await call('POST', '/refunds', { return_id: 'R-0001', method: 'store_credit' });
    expect(refund).toEqual({
      status: 201,
      body: { refund_id: 'RF-0001', return_id: 'R-0001', method: 'store_credit', amount: 25 },
    });
    expect(await call('POST', '/refunds', { return_id: 'R-0001', method: 'store_credit' })).toMatchObject({
      status: 409,
      body: { error: { code: 'ALREADY_REFUNDED' } },
    });
    expect(await call('GET', '/returns/R-0001')).toMatchObject({ body: { status: 'refunded', refund_id: 'RF-0001' } });
    expect(await call('GET', '/refunds/RF-0001')).toMatchObject({ status: 200, body: { amount: 25 } });
    // A second return of the same order may take what is left, no more.
    const rest = await call('POST', '/returns', {
      order_id: 'O-5001',
      items: [{ sku: 'MS-02', quantity: 2 }],
      reason: 'x',
      verification_token: token,
    });
    expect(rest).toMatchObject({ status: 422, body: { error: { code: 'TOO_MANY' } } });
    expect(
      await call('POST', '/returns', { order_id: 'O-5001', sku: 'MS-02', reason: 'x', verification_token: token }),
    ).toMatchObject({ status: 201, body: { return_id: 'R-0002' } });

    // Refused for a skipped step (no token, refund before approval) are violations; business refusals are not.
    expect(api.stats()).toEqual({
      byEndpoint: {
        'GET /customers': 1,
        'GET /refunds/{id}': 1,
        'GET /returns/{id}': 1,
        'POST /customers/{id}/verify': 2,
        'POST /refunds': 3,
        'POST /returns': 4,
        'POST /returns/{id}/approve': 2,
      },
      total: 14,
      violations: 2,
      byViolation: { NOT_VERIFIED: 1, RETURN_NOT_APPROVED: 1 },
    });
  });

  it('refuses returns of undelivered, old or foreign items, and cancels or re-addresses only unshipped orders', async () => {
    const tokens: Record<string, string> = {};
    for (const [id, code] of [
      ['C-1001', '10001'],
      ['C-1002', '20500'],
    ] as const) {
      const verified = await call('POST', `/customers/${id}/verify`, { postal_code: code });
      tokens[id] = (verified.body as { verification_token: string }).verification_token;
    }
    const ada = tokens['C-1001'];
    const grace = tokens['C-1002'];
    const shipped = await call('POST', '/returns', {
      order_id: 'O-5002',
      items: [{ sku: 'MN-27', quantity: 1 }],
      reason: 'r',
      verification_token: ada,
    });
    expect(shipped).toMatchObject({ status: 409, body: { error: { code: 'NOT_DELIVERED' } } });
    const old = await call('POST', '/returns', {
      order_id: 'O-5004',
      items: [{ sku: 'HD-10', quantity: 1 }],
      reason: 'r',
      verification_token: grace,
    });
    expect(old).toMatchObject({ status: 409, body: { error: { code: 'RETURN_WINDOW_CLOSED' } } });
    const foreign = await call('POST', '/returns', {
      order_id: 'O-5005',
      items: [{ sku: 'KB-01', quantity: 1 }],
      reason: 'r',
      verification_token: grace,
    });
    expect(foreign).toMatchObject({ status: 422, body: { error: { code: 'ITEM_NOT_IN_ORDER' } } });
    // A token opens its own customer's orders only.
    const borrowed = await call('POST', '/returns', {
      order_id: 'O-5005',
      sku: 'WC-03',
      reason: 'r',
      verification_token: ada,
    });
    expect(borrowed).toMatchObject({ status: 403, body: { error: { code: 'INVALID_TOKEN' } } });
    expect(
      await call('POST', '/returns', {
        order_id: 'O-5005',
        sku: 'WC-03',
        items: [],
        reason: 'r',
        verification_token: grace,
      }),
    ).toMatchObject({ status: 400 });

    expect(await call('GET', '/orders/O-5002/tracking')).toMatchObject({
      status: 200,
      body: { carrier: 'ParcelPost', tracking_number: 'PP50020001', status: 'shipped' },
    });
    expect(await call('GET', '/orders/O-5003/tracking')).toMatchObject({ status: 409 });
    expect(await call('POST', '/orders/O-5002/cancel', { reason: 'late', verification_token: ada })).toMatchObject({
      status: 409,
      body: { error: { code: 'NOT_CANCELLABLE' } },
    });
    expect(await call('PATCH', '/orders/O-5003/address', { address: '1 New St' })).toMatchObject({
      status: 403,
      body: { error: { code: 'NOT_VERIFIED' } },
    });
    expect(
      await call('PATCH', '/orders/O-5003/address', { address: '1 New St', verification_token: ada }),
    ).toMatchObject({ status: 200, body: { address: '1 New St' } });
    expect(
      await call('POST', '/orders/O-5003/cancel', { reason: 'changed my mind', verification_token: ada }),
    ).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    // Katherine is not verified: no token, or another customer's, is refused.
    expect(await call('POST', '/orders/O-5008/cancel', { reason: 'x' })).toMatchObject({ status: 403 });
    expect(await call('POST', '/orders/O-5008/cancel', { reason: 'x', verification_token: grace })).toMatchObject({
      status: 403,
      body: { error: { code: 'INVALID_TOKEN' } },
    });
    expect(await call('GET', '/customers/C-1001/orders?status=cancelled')).toMatchObject({
      body: { customer_id: 'C-1001', orders: [{ order_id: 'O-5003', status: 'cancelled', total: 27 }] },
    });
    expect(api.stats()).toMatchObject({ violations: 4, byViolation: { INVALID_TOKEN: 2, NOT_VERIFIED: 2 } });
  });

  it('answers bad input with 4xx and a JSON error', async () => {
    expect(await call('GET', '/customers')).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST' } } });
    expect(await call('GET', '/customers?email=nobody@example.com')).toMatchObject({ status: 404 });
    expect(await call('GET', '/orders/O-0000')).toMatchObject({
      status: 404,
      body: { error: { code: 'ORDER_NOT_FOUND' } },
    });
    expect(await call('POST', '/customers/C-1001/verify', '{not json')).toMatchObject({
      status: 400,
      body: { error: { code: 'BAD_JSON' } },
    });
    expect(await call('POST', '/customers/C-1001/verify', [])).toMatchObject({ status: 400 });
    expect(await call('POST', '/customers/C-1001/verify', {})).toMatchObject({ status: 400 });
    expect(await call('POST', '/refunds', { return_id: 'R-0001', method: 'cash' })).toMatchObject({ status: 404 });
    expect(await call('GET', '/customers/C-1001/orders?status=lost')).toMatchObject({ status: 400 });
    expect(await call('DELETE', '/orders/O-5001')).toMatchObject({
      status: 405,
      body: { error: { code: 'METHOD_NOT_ALLOWED' } },
    });
    expect(await call('GET', '/nowhere')).toMatchObject({ status: 404, body: { error: { code: 'NO_ROUTE' } } });
    expect(await call('POST', '/customers/C-1001/verify', { postal_code: 'x'.repeat(70_000) })).toMatchObject({
      status: 413,
    });
    for (let attempt = 0; attempt < 5; attempt++)
      await call('POST', '/customers/C-1004/verify', { postal_code: '00000' });
    expect(await call('POST', '/customers/C-1004/verify', { postal_code: '23666' })).toMatchObject({
      status: 423,
      body: { error: { code: 'LOCKED' } },
    });
  });

  it('counts requests per endpoint, over HTTP too; resets counters and data', async () => {
    await call('GET', '/orders/O-5001');
    await call('GET', '/orders/O-5002');
    const stats = await call('GET', '/_stats');
    expect(stats).toEqual({
      status: 200,
      body: { byEndpoint: { 'GET /orders/{id}': 2 }, total: 2, violations: 0, byViolation: {} },
    });
    await call('POST', '/returns/R-0404/approve');
    expect(await call('GET', '/_stats')).toMatchObject({
      body: { violations: 1, byViolation: { RETURN_NOT_FOUND: 1 } },
    });
    await call('POST', '/_stats/reset');
    expect(api.stats()).toEqual({ byEndpoint: {}, total: 0, violations: 0, byViolation: {} });
    await call('POST', '/customers/C-1001/verify', { postal_code: '10001' });
    api.reset();
    expect(await call('GET', '/customers?email=ada@example.com')).toMatchObject({ body: { verified: false } });
    expect(api.stats().total).toBe(1);
  });

  it('keeps its state in a SQLite file across a restart', async () => {
    const dbPath = join(scratch, 'orders.db');
    const first = await startBusinessApi({ dbPath });
    const verified = await fetch(`${first.url}/customers/C-1003/verify`, {
      method: 'POST',
      body: JSON.stringify({ postal_code: '94105' }),
    });
    const { verification_token: token } = (await verified.json()) as { verification_token: string };
    await first.close();
    const second = await startBusinessApi({ dbPath });
    try {
      const response = await fetch(`${second.url}/customers?email=alan@example.com`);
      expect(await response.json()).toMatchObject({ verified: true });
      // The token was stored too: a return opened after the restart needs no new verification.
      const opened = await fetch(`${second.url}/returns`, {
        method: 'POST',
        body: JSON.stringify({ order_id: 'O-5007', sku: 'SP-02', reason: 'crackles', verification_token: token }),
      });
      expect(opened.status).toBe(201);
      expect(second.stats().byEndpoint).toEqual({
        'GET /customers': 1,
        'POST /customers/{id}/verify': 1,
        'POST /returns': 1,
      });
    } finally {
      await second.close();
    }
  });

  describe('one state per Weft-Scope (a Weft run or chat session)', () => {
    const returnWebcam = async (base: string, headers: Record<string, string>): Promise<number[]> => {
      const send = (method: string, path: string, body?: unknown) =>
        fetch(`${base}${path}`, {
          method,
          headers: { 'content-type': 'application/json', ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const verified = await send('POST', '/customers/C-1002/verify', { postal_code: '20500' });
      const { verification_token: token } = (await verified.json()) as { verification_token: string };
      const opened = await send('POST', '/returns', {
        order_id: 'O-5005',
        sku: 'WC-03',
        reason: 'blurry',
        verification_token: token,
      });
      const body = (await opened.json()) as { return_id?: string };
      return [opened.status, body.return_id === 'R-0001' ? 1 : 0];
    };

    it('gives each scope its own copy of the seed data; requests without the header share the default one', async () => {
      // The same return twice in one scope: the second is refused (422, already returned).
      expect(await returnWebcam(api.url, { 'weft-scope': 'run:a' })).toEqual([201, 1]);
      expect(await returnWebcam(api.url, { 'weft-scope': 'run:a' })).toEqual([422, 0]);
      // Another scope, and the default state, start from the seed: the same ids and tokens.
      expect(await returnWebcam(api.url, { 'weft-scope': 'session:b' })).toEqual([201, 1]);
      expect(await returnWebcam(api.url, {})).toEqual([201, 1]);
      expect(await returnWebcam(api.url, {})).toEqual([422, 0]);
      // Counters are the server's, over every scope.
      expect(api.stats().byEndpoint['POST /returns']).toBe(5);
      // A reset puts every scope back to the seed.
      await call('POST', '/_reset');
      expect(await returnWebcam(api.url, { 'weft-scope': 'run:a' })).toEqual([201, 1]);
    });

    it("with shared: true, ignores the header: a second scope finds the first one's return", async () => {
      const shared = await startBusinessApi({ shared: true });
      try {
        expect(await returnWebcam(shared.url, { 'weft-scope': 'run:a' })).toEqual([201, 1]);
        expect(await returnWebcam(shared.url, { 'weft-scope': 'run:b' })).toEqual([422, 0]);
      } finally {
        await shared.close();
      }
    });

    it('refuses a scope that is not 1-200 printable characters with 400 BAD_SCOPE', async () => {
      const response = await fetch(`${api.url}/orders/O-5001`, { headers: { 'weft-scope': 'x'.repeat(201) } });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'BAD_SCOPE' } });
    });

    it("keeps a file-backed API's scopes in files beside it, across a restart, and a reset removes them", async () => {
      const dbPath = join(scratch, 'scoped.db');
      const first = await startBusinessApi({ dbPath });
      expect(await returnWebcam(first.url, { 'weft-scope': 'run:kept' })).toEqual([201, 1]);
      await first.close();
      const second = await startBusinessApi({ dbPath });
      try {
        expect(await returnWebcam(second.url, { 'weft-scope': 'run:kept' })).toEqual([422, 0]);
        expect(await returnWebcam(second.url, {})).toEqual([201, 1]);
        second.reset();
        expect(await returnWebcam(second.url, { 'weft-scope': 'run:kept' })).toEqual([201, 1]);
      } finally {
        await second.close();
      }
    });
  });
});
