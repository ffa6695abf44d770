/**
 * The procedure web service example (examples/procedure-service): createConversation behind HTTP, over the real
 * business API. A whole return through it with the sim bot, a restart of the service in the middle that loses
 * nothing, and a client's mistakes (bad JSON, an unknown session) answered with 4xx.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BusinessApi, startBusinessApi } from '../../examples/business-api/business-api.js';
import { startProcedureService } from '../../examples/procedure-service/procedure-service.js';
import { PROCEDURE_TOOLS, PROCEDURES_DIR } from '../../examples/procedures/reference-replay.js';
import { createModel } from '../../src/llm/resolve-model.js';
import type { ToolSet } from '../../src/tools/tool.js';
import { loadToolsFile } from '../../src/tools/tools-file.js';

let api: BusinessApi;
let tools: ToolSet;
const home = mkdtempSync(join(tmpdir(), 'weft-procedure-service-'));
const pdlFile = join(PROCEDURES_DIR, 'order-return', 'order-return.pdl.yaml');

beforeAll(async () => {
  api = await startBusinessApi({ port: 0 });
  tools = await loadToolsFile(PROCEDURE_TOOLS['order-return']!, { env: { BUSINESS_API_URL: api.url } });
});
afterAll(async () => {
  await tools.close();
  await api.close();
  rmSync(home, { recursive: true, force: true });
});

async function post(url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('the procedure web service example', () => {
  it('serves a whole return, survives a restart in the middle, and refuses bad requests', async () => {
    const model = await createModel('sim:seed=1,latency=fixed(0)');
    let service = await startProcedureService({ pdlFile, tools, model, home });
    const created = await post(`${service.url}/sessions`);
    expect(created.status).toBe(201);
    const sessionId = created.json.sessionId as string;
    const say = (text: string) => post(`${service.url}/sessions/${sessionId}/messages`, { text });

    expect((await say('I want to return my webcam')).json.reply).toMatch(/email/);
    const found = await say('email: grace@example.com');
    expect(found.json.toolCalls).toEqual([{ name: 'find_customer', ok: true }]);

    await service.close();
    service = await startProcedureService({ pdlFile, tools, model, home });
    await say('postal_code: 20500');
    await say('order_id: O-5005, sku: WC-03, quantity: 1, reason: blurry');
    const last = await say('method: original_payment');
    expect(last.json.toolCalls).toEqual([{ name: 'issue_refund', ok: true }]);
    expect(api.stats().violations).toBe(0);

    const transcript = (await (await fetch(`${service.url}/sessions/${sessionId}`)).json()) as {
      totals: { toolCalls: number; turns: number };
    };
    expect(transcript.totals).toMatchObject({ toolCalls: 6, turns: 5 });

    expect((await post(`${service.url}/sessions/${sessionId}/messages`, 'not json')).status).toBe(400);
    expect((await post(`${service.url}/sessions/s-20260101-000000-00000000/messages`, { text: 'hi' })).status).toBe(
      404,
    );
    await service.close();
  });
});
