/**
 * examples/business-api/tools.yaml driving the real business API through loadToolsFile and callTool: the schema
 * refuses bad arguments before any request, preconditions come back as TOOL errors the agent can act on, and
 * side effects are counted on the server.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BusinessApi, startBusinessApi } from '../../examples/business-api/business-api.js';
import { callTool, type ToolCallOutcome } from '../../src/tools/call-tool.js';
import type { JsonValue, ToolSet } from '../../src/tools/tool.js';
import { loadToolsFile } from '../../src/tools/tools-file.js';

const TOOLS_FILE = fileURLToPath(new URL('../../examples/business-api/tools.yaml', import.meta.url));

let api: BusinessApi;
let set: ToolSet;
beforeEach(async () => {
  api = await startBusinessApi();
  set = await loadToolsFile(TOOLS_FILE, { env: { BUSINESS_API_URL: api.url } });
});
afterEach(async () => {
  await set.close();
  await api.close();
});

function use(name: string, args: JsonValue): Promise<ToolCallOutcome> {
  const tool = set.tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return callTool(tool, args, { retryDelayMs: 1 });
}

describe('the business API as http tools', () => {
  it('lists twelve tools, reads idempotent GETs as such', () => {
    expect(set.tools.map((tool) => tool.name)).toEqual([
      'find_customer',
      'verify_customer',
      'list_orders',
      'get_order',
      'track_order',
      'change_address',
      'cancel_order',
      'create_return',
      'get_return',
      'approve_return',
      'issue_refund',
      'get_refund',
    ]);
    const byName = Object.fromEntries(set.tools.map((tool) => [tool.name, tool]));
    expect(byName.get_order?.idempotent).toBe(true);
    expect(byName.create_return?.idempotent).toBe(false);
    expect(byName.verify_customer?.secretArgs).toEqual(['postal_code']);
    expect(byName.get_order?.source).toMatch(
      /^http GET \$\{env:BUSINESS_API_URL\}\/orders\/\{order_id\} \(.*tools\.yaml:\d+\)$/,
    );
  });

  it('solves a refund end to end, each call using an earlier result', async () => {
    const customer = await use('find_customer', { email: 'grace@example.com' });
    expect(customer).toMatchObject({ ok: true, result: { customer_id: 'C-1002', verified: false } });
    const customerId = (customer as unknown as { result: { customer_id: string } }).result.customer_id;
    const orders = await use('list_orders', { customer_id: customerId, status: 'delivered' });
    expect(orders).toMatchObject({
      ok: true,
      result: { orders: [{ order_id: 'O-5004' }, { order_id: 'O-5005' }] },
    });

    const refused = await use('create_return', {
      order_id: 'O-5005',
      items: [{ sku: 'WC-03', quantity: 1 }],
      reason: 'blurry',
      verification_token: 'vt_made_up',
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.code).toBe('TOOL');
      expect(refused.error.message).toMatch(/^create_return: HTTP 403: .*INVALID_TOKEN.*verify customer C-1002/);
    }
    const verified = await use('verify_customer', { customer_id: customerId, postal_code: '20500' });
    expect(verified).toMatchObject({ ok: true, result: { verification_token: expect.stringMatching(/^vt_/) } });
    const token = (verified as unknown as { result: { verification_token: string } }).result.verification_token;
    // One item may be given as sku (+ quantity) instead of a list: easier to ask a user for.
    const opened = await use('create_return', {
      order_id: 'O-5005',
      sku: 'WC-03',
      reason: 'blurry',
      verification_token: token,
    });
    expect(opened).toMatchObject({
      ok: true,
      result: { return_id: 'R-0001', status: 'requested', items: [{ sku: 'WC-03', quantity: 1 }] },
    });
    expect(await use('approve_return', { return_id: 'R-0001' })).toMatchObject({
      ok: true,
      result: { status: 'approved' },
    });
    expect(await use('issue_refund', { return_id: 'R-0001', method: 'original_payment' })).toMatchObject({
      ok: true,
      result: { refund_id: 'RF-0001', amount: 69 },
    });
    expect(api.stats()).toMatchObject({
      byEndpoint: {
        'GET /customers': 1,
        'GET /customers/{id}/orders': 1,
        'POST /customers/{id}/verify': 1,
        'POST /returns': 2,
        'POST /returns/{id}/approve': 1,
        'POST /refunds': 1,
      },
      violations: 1,
      byViolation: { INVALID_TOKEN: 1 },
    });
  });

  it('refuses bad arguments before any request, naming the argument', async () => {
    const outcome = await use('issue_refund', { return_id: 'R-0001', method: 'cash' });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error.message).toContain('argument "method"');
      expect(outcome.attempts).toBe(0);
    }
    expect(
      await use('create_return', { order_id: 'O-5001', items: [], reason: 'x', verification_token: 't' }),
    ).toMatchObject({
      ok: false,
      attempts: 0,
    });
    expect(await use('get_order', { order_id: 'O-5001', extra: 1 })).toMatchObject({ ok: false, attempts: 0 });
    expect(api.stats().total).toBe(0);
  });

  it('reports a 4xx once, without retrying, even for idempotent tools', async () => {
    const outcome = await use('get_order', { order_id: 'O-9999' });
    expect(outcome).toMatchObject({ ok: false, attempts: 1 });
    if (!outcome.ok)
      expect(outcome.error.message).toBe(
        'get_order: HTTP 404: {"error":{"code":"ORDER_NOT_FOUND","message":"no order O-9999"}}',
      );
    expect(api.stats().byEndpoint).toEqual({ 'GET /orders/{id}': 1 });
  });

  it('needs BUSINESS_API_URL, and says so without guessing a value', async () => {
    await expect(loadToolsFile(TOOLS_FILE, { env: {} })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      issues: expect.arrayContaining([
        expect.objectContaining({ field: 'tools[0].url', message: 'environment variable BUSINESS_API_URL is not set' }),
      ]),
    });
  });
});
