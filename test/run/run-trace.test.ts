/**
 * A tool-using run yields an execution trace: saved when the run ends, with the run's tool calls in
 * order (the subtask as the step), its result as the answer and its run id; none for a run without tool calls or
 * a store that keeps no traces. In process, against the real HTTP order service of the tool-run tests.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Workflow } from '../../src/graph/workflow.js';
import { runTask } from '../../src/run/run-task.js';
import { runTrace } from '../../src/run/run-trace.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { RunStore } from '../../src/store/run-store.js';
import { traceStoreOf } from '../../src/store/traces.js';
import { type OrderServer, orderModel, orderPlan, orderTools, startOrderServer } from './tool-fixtures.js';

let server: OrderServer;
beforeEach(async () => {
  server = await startOrderServer();
});
afterEach(async () => {
  await server.close();
});

const home = () => mkdtempSync(join(tmpdir(), 'weft-run-trace-'));

/** The store with its trace methods hidden: a store that keeps no traces. */
function withoutTraces(store: RunStore): RunStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'saveTrace') return undefined;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('traces of runs', () => {
  it('saves one trace when a run whose roles called tools ends', async () => {
    const dir = home();
    const store = await openRunStore({ home: dir });
    const result = await runTask({
      task: 'place the orders',
      plan: orderPlan(['a', 'b']),
      model: orderModel(),
      store,
      home: dir,
      runId: 'with-tools',
      tools: { available: orderTools(server.url), file: 'orders.tools.yaml' },
    });
    expect(result.status).toBe('completed');
    const traces = await traceStoreOf(store).listTraces();
    await store.close();
    expect(traces).toHaveLength(1);
    const trace = traces[0]!;
    expect(trace).toMatchObject({
      task: 'place the orders',
      mode: 'run',
      model: 'test:orders',
      runId: 'with-tools',
      toolsPath: 'orders.tools.yaml',
      answer: 'output of sum',
      success: true,
      usage: { calls: result.calls, inputTokens: result.tokens.input, outputTokens: result.tokens.output },
    });
    expect(trace.calls).toHaveLength(4);
    // Per subtask, in the order the calls were made; secrets redacted as in the run's log.
    for (const id of ['a', 'b']) {
      const ofTask = trace.calls.filter((call) => call.step === id);
      expect(ofTask.map((call) => [call.tool, call.ok])).toEqual([
        ['create_order', true],
        ['get_order', true],
      ]);
      expect(ofTask[0]?.args).toEqual({ item: id, token: '[redacted]' });
      expect(ofTask[1]?.result).toMatchObject({ item: id, status: 'placed' });
    }
    expect(JSON.stringify(trace)).not.toContain('s3cret');
  });

  it('saves none for a run without tool calls, and skips a store that keeps no traces', async () => {
    const dir = home();
    const store = await openRunStore({ home: dir });
    const noTools: Workflow = {
      task: 'write',
      roles: [{ name: 'writer', prompt: 'You write.', kind: 'llm' }],
      subtasks: [{ id: 'w', objective: 'write', agent: 'writer', dependsOn: [], status: 'not started', attempts: 0 }],
    };
    const plain = await runTask({
      task: 'write',
      plan: noTools,
      model: orderModel(),
      store,
      home: dir,
      runId: 'plain',
    });
    expect(plain.status).toBe('completed');
    expect(await traceStoreOf(store).listTraces()).toEqual([]);

    const hidden = await runTask({
      task: 'place the orders',
      plan: orderPlan(['a']),
      model: orderModel(),
      store: withoutTraces(store),
      home: dir,
      runId: 'hidden',
      tools: { available: orderTools(server.url) },
    });
    expect(hidden.status).toBe('completed');
    expect(hidden.toolCalls).toBe(2);
    expect(await traceStoreOf(store).listTraces()).toEqual([]);
    await store.close();
  });

  it('a failed run gives an unsuccessful trace with the reason, and a call that never ended is an error', () => {
    const trace = runTrace({
      traceId: 't-1',
      runId: 'r',
      task: 'T',
      model: 'm',
      summary: {
        runId: 'r',
        status: 'failed',
        reason: 'budget spent',
        planVersion: 1,
        makespanMs: 1,
        calls: 2,
        tokens: { input: 5, output: 1 },
        costUsd: 0,
        toolCalls: 1,
        toolCallsFailed: 0,
        tasks: [],
      },
      events: [
        { type: 'tool-call', at: 0, taskId: 'x', attempt: 1, sequence: 0, step: 0, callId: 'c', name: 'get', args: {} },
      ],
    });
    expect(trace).toMatchObject({
      success: false,
      error: 'the run ended failed: budget spent',
      calls: [{ tool: 'get', ok: false, error: 'the call did not finish (the run stopped during it)', step: 'x' }],
    });
    expect(trace).not.toHaveProperty('answer');
  });
});
