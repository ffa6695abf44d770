/**
 * The repetition controller: a call of an API that is not idempotent is never made again with the same arguments
 * after a success or an unknown outcome (rule `safe`, the default); idempotent APIs and failed calls keep the limit;
 * `count` is the limit alone, `paper` the FlowAgent paper's consecutive rule. Then the same through the engine: a
 * timed-out call and a call cut by an abort (recorded as interrupted on continuing) are not repeated.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtInControllers } from '../../src/dialog/built-in-controllers.js';
import type { ControllerContext, ProposedAction } from '../../src/dialog/controller.js';
import { createConversation } from '../../src/dialog/conversation.js';
import type { ApiCallRecord } from '../../src/dialog/dialog-state.js';
import { EMPTY_DIALOG_STATE } from '../../src/dialog/dialog-state.js';
import { foldSession, INTERRUPTED_CALL } from '../../src/dialog/fold-session.js';
import { parsePdl } from '../../src/dialog/parse-pdl.js';
import { repetitionController } from '../../src/dialog/repetition-controller.js';
import type { SessionEvent } from '../../src/dialog/session-events.js';
import { sessionStoreOf } from '../../src/dialog/session-store.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { RunStore } from '../../src/store/run-store.js';
import type { JsonValue, Tool } from '../../src/tools/tool.js';
import { countingTools, refundPdl } from './dialog-fixtures.js';

const pdl = refundPdl();
const renew = (args: { [key: string]: JsonValue } = { loan: 'L-1' }): ProposedAction => ({
  kind: 'tool',
  callId: 'c-new',
  name: 'refund_order',
  args,
});
const record = (fields: Partial<ApiCallRecord> & Pick<ApiCallRecord, 'ok'>): ApiCallRecord => ({
  turn: 1,
  callId: `c-${Math.random()}`,
  name: 'refund_order',
  args: { loan: 'L-1' },
  ...fields,
});
const context = (calls: ApiCallRecord[], idempotent: string[] = []): ControllerContext => ({
  pdl,
  state: { ...EMPTY_DIALOG_STATE, calls },
  idempotentApis: new Set(idempotent),
});
const verdict = (rule: Parameters<typeof repetitionController>[0], calls: ApiCallRecord[], idempotent?: string[]) =>
  repetitionController(rule).post?.(renew(), context(calls, idempotent));

describe('repetition rule safe (the default)', () => {
  it('refuses a non-idempotent call after a success with the same arguments, saying what to do instead', () => {
    const done = record({ ok: true, result: { due: '2027-01-01' } });
    const refused = verdict({}, [done]);
    expect(refused).toEqual({
      accepted: false,
      reason:
        'refund_order already succeeded with these arguments in turn 1 (it returned {"due":"2027-01-01"}); it is not idempotent, so calling it again would do it a second time. Use that result and tell the user; if they want it done again, ask what should differ (the API was not called)',
    });
    // Other arguments are another call; key order does not make a call another one.
    expect(repetitionController().post?.(renew({ loan: 'L-2' }), context([done]))).toEqual({ accepted: true });
    const reordered = record({ ok: true, args: { b: 1, a: 2 } });
    expect(repetitionController().post?.(renew({ a: 2, b: 1 }), context([reordered]))).toMatchObject({
      accepted: false,
    });
  });

  it('refuses it after an unknown outcome, and names the APIs that may be called again to check', () => {
    const cut = record({ ok: false, error: INTERRUPTED_CALL, unknownOutcome: true, turn: 3 });
    const refused = verdict({}, [cut], ['get_order', 'find_customer']);
    expect(refused).toMatchObject({ accepted: false });
    const reason = refused?.accepted === false ? refused.reason : '';
    expect(reason).toContain(
      'refund_order was already called with these arguments in turn 3 and its outcome is unknown',
    );
    expect(reason).toContain('Tell the user it may already have gone through');
    expect(reason).toContain(
      'check with an API that reads the state first (get_order, find_customer may be called again)',
    );
  });

  it('lets a failed call be tried again up to the limit; an idempotent API runs up to the limit', () => {
    const failed = record({ ok: false, error: 'server busy' });
    expect(verdict({}, [failed])).toEqual({ accepted: true });
    expect(verdict({}, [failed, failed])).toMatchObject({
      accepted: false,
      reason: expect.stringContaining('2 times'),
    });
    expect(verdict({ limit: 3 }, [failed, failed])).toEqual({ accepted: true });
    const done = record({ ok: true, result: {} });
    expect(verdict({}, [done], ['refund_order'])).toEqual({ accepted: true });
    expect(verdict({}, [done, done], ['refund_order'])).toMatchObject({ accepted: false });
  });

  it('counts an API as not idempotent when the context does not say (no tools known)', () => {
    const done = record({ ok: true, result: {} });
    const noSet: ControllerContext = { pdl, state: { ...EMPTY_DIALOG_STATE, calls: [done] } };
    expect(repetitionController().post?.(renew(), noSet)).toMatchObject({ accepted: false });
  });
});

describe('repetition rules count and paper', () => {
  it('count: every API up to the limit, whatever it does', () => {
    const done = record({ ok: true, result: {} });
    expect(verdict({ rule: 'count' }, [done])).toEqual({ accepted: true });
    expect(verdict({ rule: 'count' }, [done, done])).toMatchObject({ accepted: false });
  });

  it("paper: only a call identical to the last one is refused (the FlowAgent paper's rule)", () => {
    const done = record({ ok: true, result: {} });
    const other = record({ ok: true, name: 'get_order', args: {} });
    expect(verdict({ rule: 'paper' }, [done])).toMatchObject({
      accepted: false,
      reason: expect.stringContaining('was just called with these arguments'),
    });
    expect(verdict({ rule: 'paper' }, [done, other])).toEqual({ accepted: true });
    expect(verdict({ rule: 'paper' }, [done, other, done, other, done])).toMatchObject({ accepted: false });
  });

  it('reads the rule from the PDL: repetition: { rule, limit }, a bad rule located', () => {
    const minimal = 'Name: N\nDesc: D\nProcedure: |\n  ANSWER.request_information()\n';
    const good = parsePdl(`${minimal}controllers:\n  repetition: { rule: paper, limit: 3 }\n`, { file: 'p.pdl.yaml' });
    expect(good.problems).toEqual([]);
    expect(good.pdl?.controllers.repetition).toEqual({ limit: 3, rule: 'paper' });
    const bad = parsePdl(`${minimal}controllers:\n  repetition:\n    rule: sometimes\n    limits: 2\n`, {
      file: 'p.pdl.yaml',
    });
    expect(bad.problems.map((p) => `${p.line}:${p.column} ${p.path}: ${p.message}`)).toEqual([
      '8:5 controllers.repetition.limits: unknown key "limits" (did you mean "limit"?); allowed: limit, rule',
      '7:5 controllers.repetition.rule: expected safe, count or paper, got "sometimes"',
    ]);
    // The built-in controller follows the setting: under `paper`, a non-idempotent repeat after another call runs.
    const [repetition] = builtInControllers({ dependency: false, sessionLength: false, repetition: { rule: 'paper' } });
    const done = record({ ok: true, result: {} });
    const other = record({ ok: true, name: 'get_order', args: {} });
    expect(repetition?.post?.(renew(), context([done, other]))).toEqual({ accepted: true });
  });
});

describe('repetition in the engine', () => {
  let home: string;
  let store: RunStore;
  beforeEach(async () => {
    home = mkdtempSync(join(tmpdir(), 'weft-repetition-'));
    store = await openRunStore({ home });
  });
  afterEach(async () => {
    await store.close();
    rmSync(home, { recursive: true, force: true });
  });

  const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, args }] });
  const ofType = <T extends SessionEvent['type']>(events: readonly SessionEvent[], type: T) =>
    events.filter((event): event is Extract<SessionEvent, { type: T }> => event.type === type);
  const open = () => refundPdl({ apis: refundPdl().apis.map((api) => ({ ...api, precondition: [] })) });

  it('a non-idempotent call that succeeded is refused the second time and reaches the API once', async () => {
    const { tools, calls } = countingTools([], { idempotent: ['find_customer'] });
    const model = scriptedModel([
      call('find_customer', { email: 'a@x.io' }),
      call('find_customer', { email: 'a@x.io' }),
      call('refund_order', { order_id: 'O-1' }),
      call('refund_order', { order_id: 'O-1' }),
      { text: 'Refunded once.' },
    ]);
    const conversation = await createConversation(open(), { model, tools });
    const turn = await conversation.send('refund O-1');
    expect(calls.map((c) => c.name)).toEqual(['find_customer', 'find_customer', 'refund_order']);
    const refused = ofType(turn.events, 'verdict').filter((v) => !v.accepted);
    expect(refused).toEqual([expect.objectContaining({ controller: 'repetition', action: 'tool:refund_order' })]);
    // The bot's retry was told why.
    expect(model.calls.at(-1)?.system).toContain('refund_order already succeeded with these arguments');
  });

  it('a call that timed out has an unknown outcome and is not made again', async () => {
    let reached = 0;
    const slow: Tool = {
      name: 'refund_order',
      description: 'hangs past its timeout',
      inputSchema: { type: 'object' },
      source: 'test',
      timeoutMs: 20,
      call: (_args, { signal }) => {
        reached++;
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
    };
    const { tools } = countingTools();
    const model = scriptedModel([
      call('refund_order', { order_id: 'O-1' }),
      call('refund_order', { order_id: 'O-1' }),
      { text: 'It may have gone through; let me check.' },
    ]);
    const conversation = await createConversation(open(), { model, tools: [...tools.slice(0, 2), slow] });
    const turn = await conversation.send('refund O-1');
    expect(reached).toBe(1);
    expect(ofType(turn.events, 'tool-result')[0]).toMatchObject({ ok: false, unknownOutcome: true });
    expect(conversation.state.calls[0]).toMatchObject({ unknownOutcome: true });
    expect(ofType(turn.events, 'verdict').find((v) => !v.accepted)?.reason).toContain('its outcome is unknown');
  });

  it('a call cut by an abort is recorded as interrupted on continuing, and the same call is refused', async () => {
    const sessions = sessionStoreOf(store);
    let reached = 0;
    const hanging: Tool = {
      name: 'refund_order',
      description: 'hangs',
      inputSchema: { type: 'object' },
      source: 'test',
      call: (_args, { signal }) => {
        reached++;
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
    };
    const { tools } = countingTools();
    const model = scriptedModel([
      call('refund_order', { order_id: 'O-1' }),
      call('refund_order', { order_id: 'O-1' }),
      { text: 'Your refund may already be on its way; I will check.' },
    ]);
    const conversation = await createConversation(open(), {
      model,
      tools: [...tools.slice(0, 2), hanging],
      store: sessions,
    });
    const abort = new AbortController();
    const cut = conversation.send('refund O-1', { signal: abort.signal });
    await expect.poll(() => reached).toBe(1);
    abort.abort();
    await expect(cut).rejects.toBeDefined();
    const turn = await conversation.continueTurn();
    expect(reached).toBe(1);
    expect(turn.reply).toContain('may already be on its way');
    expect(ofType(turn.events, 'tool-result')[0]).toMatchObject({ error: INTERRUPTED_CALL, unknownOutcome: true });
    expect(ofType(turn.events, 'verdict').find((v) => !v.accepted)).toMatchObject({
      controller: 'repetition',
      reason: expect.stringContaining('its outcome is unknown'),
    });
  });

  it('a log written before unknownOutcome existed still marks an interrupted call as unknown', () => {
    const events: SessionEvent[] = [
      { type: 'user-message', at: 0, turn: 1, text: 'hi' },
      { type: 'tool-call', at: 0, turn: 1, callId: 'c1', name: 'refund_order', args: {}, preconditionsMet: true },
      {
        type: 'tool-result',
        at: 0,
        turn: 1,
        callId: 'c1',
        name: 'refund_order',
        ok: false,
        error: INTERRUPTED_CALL,
        ms: 0,
      },
      { type: 'tool-call', at: 0, turn: 1, callId: 'c2', name: 'get_order', args: {}, preconditionsMet: true },
      {
        type: 'tool-result',
        at: 0,
        turn: 1,
        callId: 'c2',
        name: 'get_order',
        ok: false,
        error: 'no such order',
        ms: 0,
      },
    ];
    const { state } = foldSession(events);
    expect(state.calls.map((c) => c.unknownOutcome)).toEqual([true, undefined]);
  });
});
