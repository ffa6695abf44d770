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
import type { SessionEvent } from '../../src/dialog/session-events.js';
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

  it('messages at once to a session it took up again: each is answered or told to wait (409), turns stay in order', async () => {
    const model = await createModel('sim:seed=1,latency=fixed(0)');
    let service = await startProcedureService({ pdlFile, tools, model, home });
    const sessionId = (await post(`${service.url}/sessions`)).json.sessionId as string;
    await post(`${service.url}/sessions/${sessionId}/messages`, { text: 'I want to return my webcam' });
    await service.close();
    service = await startProcedureService({ pdlFile, tools, model, home });
    const say = (text: string) => post(`${service.url}/sessions/${sessionId}/messages`, { text });
    // Whether they overlap depends on timing; either way no turn may interleave with another.
    const all = await Promise.all(Array.from({ length: 6 }, () => say('email: grace@example.com')));
    const answered = all.filter((response) => response.status === 200).length;
    expect(all.every((response) => response.status === 200 || response.status === 409)).toBe(true);
    expect(answered).toBeGreaterThan(0);
    const transcript = (await (await fetch(`${service.url}/sessions/${sessionId}`)).json()) as {
      transcript: { role: string; turn: number }[];
    };
    const roles = transcript.transcript.filter((entry) => entry.role === 'user' || entry.role === 'bot');
    const expected = Array.from({ length: answered + 1 }, (_, i) => [
      ['user', i + 1],
      ['bot', i + 1],
    ]).flat();
    expect(roles.map((entry) => [entry.role, entry.turn])).toEqual(expected);
    await service.close();
  });

  it('a turn cut short by a restart is finished, and the new message is then answered, not dropped', async () => {
    const model = await createModel('sim:seed=1,latency=fixed(0)');
    const service = await startProcedureService({ pdlFile, tools, model, home });
    const sessionId = (await post(`${service.url}/sessions`)).json.sessionId as string;
    await post(`${service.url}/sessions/${sessionId}/messages`, { text: 'I want to return my webcam' });
    // A turn with its user message and no reply: what a crash in the middle of a turn leaves.
    const { openRunStore } = await import('../../src/store/open-store.js');
    const { sessionStoreOf } = await import('../../src/dialog/session-store.js');
    await service.close();
    const runStore = await openRunStore({ home });
    const cut: SessionEvent = { type: 'user-message', turn: 2, text: 'email: grace@example.com', at: 0 };
    await sessionStoreOf(runStore).appendSessionEvents(sessionId, [cut]);
    await runStore.close();
    const again = await startProcedureService({ pdlFile, tools, model, home });
    const answered = await post(`${again.url}/sessions/${sessionId}/messages`, { text: 'postal_code: 20500' });
    expect(answered.status).toBe(200);
    const transcript = (await (await fetch(`${again.url}/sessions/${sessionId}`)).json()) as {
      transcript: { role: string; turn: number; text?: string }[];
    };
    const users = transcript.transcript.filter((entry) => entry.role === 'user').map((entry) => entry.text);
    expect(users).toEqual(['I want to return my webcam', 'email: grace@example.com', 'postal_code: 20500']);
    expect(transcript.transcript.filter((entry) => entry.role === 'bot')).toHaveLength(3);
    await again.close();
  });
});
