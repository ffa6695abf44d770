import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConversation } from '../../src/dialog/conversation.js';
import type { SessionEvent } from '../../src/dialog/session-events.js';
import { sessionStoreOf } from '../../src/dialog/session-store.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { RunStore } from '../../src/store/run-store.js';
import type { Tool } from '../../src/tools/tool.js';
import { countingTools, refundPdl } from './dialog-fixtures.js';

const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, args }] });

let home: string;
let store: RunStore;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'weft-dialog-resume-'));
  store = await openRunStore({ home });
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

describe('durable sessions', () => {
  it('records every turn, and a resumed session goes on with the same state and history', async () => {
    const sessions = sessionStoreOf(store);
    const { tools, calls } = countingTools();
    const first = await createConversation(refundPdl(), {
      model: scriptedModel([call('find_customer', { email: 'a@x.io' }), { text: 'Which order?' }]),
      tools,
      store: sessions,
      owner: { pid: 1, host: 'elsewhere' },
    });
    await first.send('email: a@x.io');
    await first.close();
    expect(await sessions.getSession(first.sessionId)).toMatchObject({ status: 'open', turns: 1, procedure: 'refund' });

    const model = scriptedModel([call('get_order', { order_id: 'O-1' }), { text: 'Delivered.' }]);
    const again = await createConversation(refundPdl(), { model, tools, store: sessions, sessionId: first.sessionId });
    expect(again.state.calls.map((c) => c.name)).toEqual(['find_customer']);
    await again.send('order_id: O-1');
    // The bot saw the whole conversation so far.
    const seen = model.calls[0]?.messages.map((message) => message.role);
    expect(seen).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(calls.map((c) => c.name)).toEqual(['find_customer', 'get_order']);
    const types = (await sessions.sessionEvents(first.sessionId)).map((stored) => stored.event.type);
    expect(types).toContain('session-resume');
    expect(types.filter((type) => type === 'turn-end')).toHaveLength(2);
    await again.end();
    expect((await sessions.getSession(first.sessionId))?.status).toBe('ended');
  });

  it('a crash mid-call: the call is not repeated on resume, the bot is told, and the cut turn is finished', async () => {
    const sessions = sessionStoreOf(store);
    let release: () => void = () => {};
    let reached = 0;
    const slow: Tool = {
      name: 'find_customer',
      description: 'hangs',
      inputSchema: { type: 'object' },
      source: 'test',
      call: () => {
        reached++;
        return new Promise((resolve) => {
          release = () => resolve({ customer_id: 'C-1' });
        });
      },
    };
    const { tools } = countingTools();
    const crashed = await createConversation(refundPdl(), {
      model: scriptedModel([call('find_customer', { email: 'a@x.io' })]),
      tools: [slow, ...tools.slice(1)],
      store: sessions,
      owner: { pid: 2, host: 'elsewhere' },
    });
    void crashed.send('email: a@x.io').catch(() => {});
    await expect.poll(() => reached).toBe(1);
    // The process "dies" here: nothing more is recorded for it.
    const model = scriptedModel([{ text: 'I could not confirm your account; let me check again.' }]);
    const resumed = await createConversation(refundPdl(), {
      model,
      tools,
      store: sessions,
      sessionId: crashed.sessionId,
    });
    expect(resumed.pendingTurn).toBe(true);
    const turn = await resumed.continueTurn();
    expect(turn.reply).toContain('could not confirm');
    expect(reached).toBe(1);
    const result = resumed.events.find(
      (event): event is Extract<SessionEvent, { type: 'tool-result' }> => event.type === 'tool-result',
    );
    expect(result).toMatchObject({ ok: false, name: 'find_customer' });
    expect(result?.error).toContain('not repeated');
    expect(model.calls[0]?.messages.at(-1)).toMatchObject({ role: 'tool', isError: true });
    release();
  });

  it('refuses to take up a session another live process holds', async () => {
    const sessions = sessionStoreOf(store);
    const { tools } = countingTools();
    const live = await createConversation(refundPdl(), { model: scriptedModel([]), tools, store: sessions });
    await expect(
      createConversation(refundPdl(), {
        model: scriptedModel([]),
        tools,
        store: sessions,
        sessionId: live.sessionId,
        owner: { pid: process.pid + 1, host: 'another' },
      }),
    ).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringContaining('in use') });
    await live.close();
    const after = await createConversation(refundPdl(), {
      model: scriptedModel([]),
      tools,
      store: sessions,
      sessionId: live.sessionId,
      owner: { pid: process.pid + 1, host: 'another' },
    });
    expect(after.sessionId).toBe(live.sessionId);
  });

  it('notes a PDL file that changed since the session started', async () => {
    const sessions = sessionStoreOf(store);
    const { tools } = countingTools();
    const first = await createConversation(refundPdl(), { model: scriptedModel([]), tools, store: sessions });
    await first.close();
    const again = await createConversation(refundPdl({ sha256: 'f'.repeat(64) }), {
      model: scriptedModel([]),
      tools,
      store: sessions,
      sessionId: first.sessionId,
    });
    expect(again.pdlChanged).toBe(true);
  });
});
