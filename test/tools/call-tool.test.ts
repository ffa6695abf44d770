import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { callTool } from '../../src/tools/call-tool.js';
import type { JsonValue, Tool, ToolCallContext } from '../../src/tools/tool.js';

const OBJECT = { type: 'object' } as const;

function makeTool(
  call: (args: JsonValue, context: ToolCallContext) => Promise<JsonValue>,
  extra: Partial<Tool> = {},
): Tool {
  return { name: 'probe', description: 'test tool', inputSchema: OBJECT, source: 'test', call, ...extra };
}

function deferred<T = JsonValue>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Resolves when the signal aborts (with its reason as the rejection), as a well-behaved slow tool does. */
function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}

describe('callTool', () => {
  it('returns the result and how long the call took', async () => {
    const outcome = await callTool(
      makeTool(async (args) => ({ echo: args })),
      { a: 1 },
    );
    expect(outcome).toMatchObject({ ok: true, result: { echo: { a: 1 } }, attempts: 1 });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    expect('truncated' in outcome).toBe(false);
  });

  it('invalid arguments are an outcome the agent sees, and the tool is not called', async () => {
    let calls = 0;
    const tool = makeTool(
      async () => {
        calls += 1;
        return null;
      },
      { name: 'get_order', inputSchema: { type: 'object', properties: { orderId: { type: 'string' } } } },
    );
    const outcome = await callTool(tool, { orderId: 7 });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('TOOL');
    expect(outcome.error.message).toBe('get_order: argument "orderId" must be string (got number)');
    expect(calls).toBe(0);
  });

  it('a throwing tool gives ok: false with its message', async () => {
    const outcome = await callTool(
      makeTool(async () => {
        throw new Error('order A1 not found');
      }),
      {},
    );
    expect(outcome).toMatchObject({ ok: false, attempts: 1 });
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(WeftError);
    expect(outcome.error.code).toBe('TOOL');
    expect(outcome.error.message).toBe('probe: order A1 not found');
  });

  it('times out a tool that waits on its signal, and the tool sees the abort', async () => {
    let sawAbort = false;
    const tool = makeTool(async (_args, { signal }) => {
      signal.addEventListener('abort', () => {
        sawAbort = true;
      });
      return waitForAbort(signal);
    });
    const outcome = await callTool(tool, {}, { timeoutMs: 20 });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('TIMEOUT');
    expect(outcome.error.message).toBe('probe: no result after 20 ms');
    expect(sawAbort).toBe(true);
  });

  it('a tool that ignores its signal still settles at the deadline (the tool’s own timeoutMs)', async () => {
    const never = new Promise<JsonValue>(() => {});
    const outcome = await callTool(
      makeTool(() => never, { timeoutMs: 15 }),
      {},
    );
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
  });

  it('a tool that reads its signal only after the deadline or the caller’s abort finds it aborted, with the reason', async () => {
    // The signal is made when the tool first reads it: one read late must say what happened all the same.
    const late: AbortSignal[] = [];
    const readLate = (wait: Promise<unknown>, started?: () => void) =>
      makeTool(async (_args, context) => {
        started?.();
        await wait;
        late.push(context.signal);
        return null;
      });
    const afterDeadline = deferred<void>();
    const timedOut = callTool(readLate(afterDeadline.promise), {}, { timeoutMs: 10 });
    await expect(timedOut).resolves.toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    afterDeadline.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(late[0]?.aborted).toBe(true);
    expect(late[0]?.reason).toMatchObject({ code: 'TIMEOUT', message: 'probe: no result after 10 ms' });

    const caller = new AbortController();
    const afterAbort = deferred<void>();
    const started = deferred<void>();
    const cancelled = callTool(
      readLate(afterAbort.promise, () => started.resolve()),
      {},
      { signal: caller.signal },
    );
    await started.promise;
    caller.abort(new WeftError('ABORTED', 'the run was cancelled'));
    await expect(cancelled).rejects.toMatchObject({ code: 'ABORTED' });
    afterAbort.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(late[1]?.aborted).toBe(true);
    expect(late[1]?.reason).toMatchObject({ code: 'ABORTED', message: 'the run was cancelled' });
  });

  it('leaves no listener on the caller’s signal once a call settles, however it ended', async () => {
    const caller = new AbortController();
    const options = { signal: caller.signal, retries: 0 };
    await callTool(
      makeTool(async () => 1),
      {},
      options,
    );
    await callTool(
      makeTool(async () => {
        throw new Error('no');
      }),
      {},
      options,
    );
    await callTool(
      makeTool(() => new Promise<JsonValue>(() => {})),
      {},
      { ...options, timeoutMs: 5 },
    );
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('a tool that reads its signal before any abort gets one that is not aborted, the same on each read', async () => {
    const outcome = await callTool(
      makeTool(async (_args, context) => {
        const first = context.signal;
        return { aborted: first.aborted, same: first === context.signal };
      }),
      {},
    );
    expect(outcome).toMatchObject({ ok: true, result: { aborted: false, same: true } });
  });

  it('holds calls to the tool’s concurrency cap, shared by every caller of the same Tool', async () => {
    const gates: { resolve: (value: JsonValue) => void }[] = [];
    let running = 0;
    let peak = 0;
    const tool = makeTool(
      async () => {
        running += 1;
        peak = Math.max(peak, running);
        const gate = deferred();
        gates.push(gate);
        const value = await gate.promise;
        running -= 1;
        return value;
      },
      { concurrency: 2 },
    );
    const calls = Array.from({ length: 5 }, () => callTool(tool, {}));
    const settle = async (): Promise<void> => {
      for (let i = 0; i < 20; i++) await Promise.resolve();
      await new Promise((r) => setImmediate(r));
    };
    await settle();
    expect(running).toBe(2);
    expect(gates).toHaveLength(2);
    for (let released = 0; released < 5; released++) {
      gates[released]!.resolve(released);
      await settle();
      expect(running).toBeLessThanOrEqual(2);
    }
    const outcomes = await Promise.all(calls);
    expect(outcomes.map((outcome) => outcome.ok && outcome.result)).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
  });

  it('retries an idempotent tool on a retryable failure, a bounded number of times', async () => {
    let calls = 0;
    const flaky = makeTool(
      async () => {
        calls += 1;
        if (calls < 3) throw Object.assign(new Error('busy'), { retryable: true });
        return 'done';
      },
      { idempotent: true },
    );
    expect(await callTool(flaky, {}, { retryDelayMs: 0 })).toMatchObject({ ok: true, result: 'done', attempts: 3 });
    expect(calls).toBe(3);

    calls = 0;
    const down = makeTool(
      async () => {
        calls += 1;
        throw new WeftError('TOOL', 'probe: HTTP 503', { retryable: true });
      },
      { idempotent: true },
    );
    const outcome = await callTool(down, {}, { retryDelayMs: 0, retries: 2 });
    expect(outcome).toMatchObject({ ok: false, attempts: 3, error: { message: 'probe: HTTP 503' } });
    expect(calls).toBe(3);
  });

  it('retries timeouts of idempotent tools', async () => {
    let calls = 0;
    const slowOnce = makeTool(
      async (_args, { signal }) => {
        calls += 1;
        if (calls === 1) return waitForAbort(signal);
        return 'second time';
      },
      { idempotent: true },
    );
    expect(await callTool(slowOnce, {}, { timeoutMs: 20, retryDelayMs: 0 })).toMatchObject({
      ok: true,
      result: 'second time',
      attempts: 2,
    });
  });

  it('never retries a tool that is not idempotent, nor a failure the tool does not mark retryable', async () => {
    let calls = 0;
    const sideEffect = makeTool(async (_args, { signal }) => {
      calls += 1;
      return waitForAbort(signal);
    });
    expect(await callTool(sideEffect, {}, { timeoutMs: 10, retryDelayMs: 0 })).toMatchObject({
      ok: false,
      attempts: 1,
    });
    expect(calls).toBe(1);

    calls = 0;
    const badRequest = makeTool(
      async () => {
        calls += 1;
        throw new Error('400 bad request');
      },
      { idempotent: true },
    );
    expect(await callTool(badRequest, {}, { retryDelayMs: 0 })).toMatchObject({ ok: false, attempts: 1 });
    expect(calls).toBe(1);
  });

  it('truncates a result whose JSON is over the cap, with a note', async () => {
    const big = { rows: Array.from({ length: 100 }, (_, i) => ({ id: i, name: `row ${i}` })) };
    const size = Buffer.byteLength(JSON.stringify(big));
    const outcome = await callTool(
      makeTool(async () => big),
      {},
      { maxResultBytes: 100 },
    );
    expect(outcome).toMatchObject({ ok: true, truncated: true });
    if (!outcome.ok) return;
    expect(outcome.result).toBe(`${JSON.stringify(big).slice(0, 100)}\n[truncated: 100 of ${size} bytes]`);
    const small = await callTool(
      makeTool(async () => big),
      {},
      { maxResultBytes: size },
    );
    expect(small).toMatchObject({ ok: true, result: big });
  });

  it("caps at the tool's own maxResultBytes unless the caller sets one", async () => {
    const tool = { ...makeTool(async () => 'x'.repeat(50)), maxResultBytes: 10 };
    expect(await callTool(tool, {})).toMatchObject({ ok: true, truncated: true });
    expect(await callTool(tool, {}, { maxResultBytes: 100 })).toMatchObject({ ok: true, result: 'x'.repeat(50) });
  });

  it('cuts multi-byte text on a character boundary', async () => {
    const outcome = await callTool(
      makeTool(async () => 'ééééé'),
      {},
      { maxResultBytes: 4 },
    );
    // `"é` is 3 bytes; the 4th byte would split the next é.
    expect(outcome).toMatchObject({ ok: true, truncated: true, result: '"é\n[truncated: 3 of 12 bytes]' });
  });

  it('returns JSON: undefined becomes null, a Date its string; a non-JSON result is a tool error', async () => {
    expect(
      await callTool(
        makeTool(async () => undefined as unknown as JsonValue),
        {},
      ),
    ).toMatchObject({
      ok: true,
      result: null,
    });
    const when = new Date(0);
    expect(
      await callTool(
        makeTool(async () => when as unknown as JsonValue),
        {},
      ),
    ).toMatchObject({
      ok: true,
      result: '1970-01-01T00:00:00.000Z',
    });
    const outcome = await callTool(
      makeTool(async () => 10n as unknown as JsonValue),
      {},
    );
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TOOL' } });
    if (!outcome.ok) expect(outcome.error.message).toMatch(/^probe: its result is not JSON/);
  });

  it('the caller’s abort throws ABORTED (running, queued, or before the call)', async () => {
    const started = deferred<void>();
    const tool = makeTool(
      async (_args, { signal }) => {
        started.resolve();
        return waitForAbort(signal);
      },
      { concurrency: 1 },
    );
    const controller = new AbortController();
    const running = callTool(tool, {}, { signal: controller.signal });
    const queued = callTool(tool, {}, { signal: controller.signal });
    await started.promise;
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(queued).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(callTool(tool, {}, { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('rejects bad options as BAD_INPUT', async () => {
    const tool = makeTool(async () => null);
    await expect(callTool(tool, {}, { timeoutMs: 0 })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(callTool(tool, {}, { maxResultBytes: -1 })).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });
});
