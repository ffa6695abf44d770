/**
 * Tools inside runs, in process against a real HTTP service: the tool loop in the execute step, the
 * events, redaction, the tool-call budget, unknown tools, and resume from logs cut in each crash window.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WeftEvent } from '../../src/run/events.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { EventRecord } from '../../src/store/run-store.js';
import { type OrderServer, orderModel, orderPlan, orderTools, startOrderServer } from './tool-fixtures.js';
import { runEvents } from '../../src/run/run-events.js';

let server: OrderServer;
beforeEach(async () => {
  server = await startOrderServer();
});
afterEach(async () => {
  await server.close();
});

const home = () => mkdtempSync(join(tmpdir(), 'weft-tools-'));

async function eventsOf(store: Awaited<ReturnType<typeof openRunStore>>, runId: string): Promise<WeftEvent[]> {
  return await runEvents(store, runId);
}

async function referenceRun(options: { strategy?: 'none' } = {}, subtasks = ['a', 'b']) {
  const dir = home();
  const store = await openRunStore({ home: dir });
  const result = await runTask({
    task: 'place the orders',
    plan: orderPlan(subtasks),
    model: orderModel(),
    store,
    home: dir,
    runId: 'ref',
    run: options,
    tools: { available: orderTools(server.url) },
  });
  const events = await eventsOf(store, 'ref');
  await store.close();
  return { result, events, dir };
}

describe('tools in runs', () => {
  it('a role with tools runs the tool loop; each call is logged before and after, with secrets redacted', async () => {
    const { result, events, dir } = await referenceRun();
    expect(result.status).toBe('completed');
    expect(result.tasks.find((t) => t.id === 'a')?.output).toBe('order 1 for a: placed');
    expect(server.counts.get('POST /orders')).toBe(2);
    expect(server.counts.get('GET /orders')).toBe(2);
    expect(result.toolCalls).toBe(4);

    const toolEvents = events.filter((e) => e.type === 'tool-call' || e.type === 'tool-result');
    const ofA = toolEvents.filter((e) => 'taskId' in e && e.taskId === 'a');
    expect(ofA.map((e) => `${e.type} ${(e as { sequence: number }).sequence}`)).toEqual([
      'tool-call 0',
      'tool-result 0',
      'tool-call 1',
      'tool-result 1',
    ]);
    expect(ofA[0]).toMatchObject({ name: 'create_order', args: { item: 'a', token: '[redacted]' }, attempt: 1 });
    expect(ofA[1]).toMatchObject({ ok: true, result: { id: expect.any(Number), item: 'a', status: 'placed' } });
    expect(ofA[2]).toMatchObject({ name: 'get_order', idempotent: true });
    // The secret is nowhere in the log: not in the tool events, not in the model calls' recorded tool calls.
    const log = JSON.stringify(events);
    expect(log).not.toContain('s3cret');
    const call = events.find((e) => e.type === 'model-call' && e.toolCalls !== undefined);
    expect(call).toMatchObject({ toolCalls: [{ name: 'create_order', args: { token: '[redacted]' } }] });

    const report = readFileSync(join(dir, 'runs', 'ref', 'report.md'), 'utf8');
    expect(report).toContain('## Tool calls');
    expect(report).toContain('create_order {"item":"a","token":"[redacted]"} → ok');
    expect(report).toContain('tool calls: 4');
  });

  it('every tool call is told the run it is made for (run:<runId>), which http tools send as Weft-Scope', async () => {
    const scopes: (string | undefined)[] = [];
    const tools = orderTools(server.url).map((tool) => ({
      ...tool,
      call: (args: Parameters<typeof tool.call>[0], context: Parameters<typeof tool.call>[1]) => {
        scopes.push(context.scope);
        return tool.call(args, context);
      },
    }));
    const dir = home();
    const store = await openRunStore({ home: dir });
    const result = await runTask({
      task: 'place the orders',
      plan: orderPlan(['a']),
      model: orderModel(),
      store,
      home: dir,
      runId: 'scoped',
      tools: { available: tools },
    });
    await store.close();
    expect(result.status).toBe('completed');
    expect(scopes).toEqual(['run:scoped', 'run:scoped']);
  });

  it('a plan role naming an unknown tool is refused before any run exists, naming the file and field', async () => {
    const dir = home();
    const store = await openRunStore({ home: dir });
    const plan = orderPlan();
    const bad = { ...plan, roles: [{ ...plan.roles[0]!, tools: ['create_order', 'refund'] }, plan.roles[1]!] };
    await expect(
      runTask({
        task: 't',
        plan: bad,
        planFile: '/x/plan.json',
        model: orderModel(),
        store,
        home: dir,
        tools: { available: orderTools(server.url) },
      }),
    ).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('Role "clerk" names unknown tool "refund"'),
      location: { file: '/x/plan.json', field: 'roles.clerk.tools[1]' },
    });
    await expect(runTask({ task: 't', plan, model: orderModel(), store, home: dir })).rejects.toThrow(
      /the run has no tools/,
    );
    expect(await store.listRuns()).toEqual([]);
    expect(server.counts.size).toBe(0);
    await store.close();
  });

  it('--max-tool-calls is checked before each call: the run fails with the budget and no call beyond it is made', async () => {
    const dir = home();
    const store = await openRunStore({ home: dir });
    const result = await runTask({
      task: 't',
      plan: orderPlan(['a']),
      model: orderModel(),
      store,
      home: dir,
      budget: { maxToolCalls: 1 },
      tools: { available: orderTools(server.url) },
    });
    expect(result.status).toBe('failed');
    expect(result.reason).toContain('tool call budget of 1 reached');
    expect(server.counts.get('POST /orders')).toBe(1);
    expect(server.counts.get('GET /orders')).toBeUndefined();
    const events = await eventsOf(store, result.runId);
    expect(events.filter((e) => e.type === 'budget-stop')).toHaveLength(1);
    await store.close();
  });
});

/** A home holding the reference log cut before event `cut`, as a process killed there leaves it. */
async function crashedHome(events: readonly WeftEvent[], cut: number) {
  const dir = home();
  const store = await openRunStore({ home: dir });
  await store.createRun({
    runId: 'ref',
    task: 'place the orders',
    model: 'test:orders',
    options: (events[0] as Extract<WeftEvent, { type: 'run-start' }>).options,
  });
  await store.appendEvents('ref', events.slice(0, cut) as unknown as EventRecord[]);
  await store.savePlanVersion({
    runId: 'ref',
    version: 1,
    workflow: (events[1] as unknown as { workflow: never }).workflow,
    cause: 'given plan',
  });
  return { dir, store };
}

function indexOf(events: readonly WeftEvent[], type: string, taskId: string, sequence: number): number {
  return events.findIndex(
    (e) =>
      e.type === type &&
      (e as { taskId?: string }).taskId === taskId &&
      (e as { sequence?: number }).sequence === sequence,
  );
}

describe('resume never repeats a recorded side effect', () => {
  it('a call whose result is logged is replayed from the log, and the model call that asked for it too', async () => {
    const { events } = await referenceRun({}, ['a']);
    const cut = indexOf(events, 'tool-result', 'a', 0) + 1;
    const { dir, store } = await crashedHome(events, cut);
    server.counts.clear();
    const model = orderModel();
    const result = await resumeRun({
      runId: 'ref',
      model,
      store,
      home: dir,
      tools: { available: orderTools(server.url) },
    });
    expect(result.status).toBe('completed');
    // The order was placed before the crash and is not placed again; the lookup after it is made.
    expect(server.counts.get('POST /orders')).toBeUndefined();
    expect(server.counts.get('GET /orders')).toBe(1);
    expect(result.tasks.find((t) => t.id === 'a')?.output).toBe('order 1 for a: placed');
    // a's first execute call (which asked for create_order) was replayed, not asked again.
    expect(
      model.calls.filter((c) => c.tag?.purpose === 'execute' && c.tag.key === 'a' && c.tag.attempt === 1),
    ).toHaveLength(2);
    const all = await eventsOf(store, 'ref');
    expect(all.filter((e) => e.type === 'tool-call' && e.taskId === 'a')).toHaveLength(2);
    await store.close();
  });

  it('a non-idempotent call started with no result fails its subtask: "may have run; not repeated"', async () => {
    const { events } = await referenceRun({ strategy: 'none' }, ['a']);
    const cut = indexOf(events, 'tool-call', 'a', 0) + 1;
    const { dir, store } = await crashedHome(events, cut);
    server.counts.clear();
    const result = await resumeRun({
      runId: 'ref',
      model: orderModel(),
      store,
      home: dir,
      tools: { available: orderTools(server.url) },
    });
    const a = result.tasks.find((t) => t.id === 'a')!;
    expect(a.status).toBe('failed');
    expect(a.reason).toContain('tool call create_order (#1 of subtask a, attempt 1) may have run; not repeated');
    expect(result.status).toBe('failed');
    expect(server.counts.size).toBe(0);
    await store.close();
  });

  it('an idempotent call started with no result is issued again', async () => {
    const { events } = await referenceRun({}, ['a']);
    const cut = indexOf(events, 'tool-call', 'a', 1) + 1;
    const { dir, store } = await crashedHome(events, cut);
    server.counts.clear();
    const result = await resumeRun({
      runId: 'ref',
      model: orderModel(),
      store,
      home: dir,
      tools: { available: orderTools(server.url) },
    });
    expect(result.status).toBe('completed');
    expect(server.counts.get('POST /orders')).toBeUndefined();
    expect(server.counts.get('GET /orders')).toBe(1);
    expect(result.tasks.find((t) => t.id === 'a')?.output).toBe('order 1 for a: placed');
    await store.close();
  });

  it('a resume without the tools a plan role names is refused before any work, the run left resumable', async () => {
    const { events } = await referenceRun();
    const { dir, store } = await crashedHome(events, indexOf(events, 'tool-call', 'a', 0) + 1);
    await expect(resumeRun({ runId: 'ref', model: orderModel(), store, home: dir })).rejects.toThrow(
      /names unknown tool "create_order"; the run has no tools/,
    );
    expect((await store.getRun('ref'))?.status).not.toBe('completed');
    await store.close();
  });
});

describe('tools with the sim model', () => {
  it('wrong tools and bad arguments come back to the agent as errors and the run goes on', async () => {
    const { createModel } = await import('../../src/llm/resolve-model.js');
    const dir = home();
    const store = await openRunStore({ home: dir });
    const plan = orderPlan(['a', 'b', 'c', 'd']);
    const result = await runTask({
      task: plan.task,
      plan,
      model: await createModel('sim:seed=4,toolcalls=3,toolwrong=0.3,toolbadargs=0.3'),
      store,
      home: dir,
      tools: { available: orderTools(server.url) },
      run: { strategy: 'none' },
    });
    const events = await eventsOf(store, result.runId);
    await store.close();
    const ends = events.filter((e) => e.type === 'tool-result');
    expect(ends.length).toBe(result.toolCalls);
    expect(ends.length).toBeGreaterThanOrEqual(12);
    const codes = new Set(ends.map((e) => (e.ok ? 'ok' : e.code)));
    // Seeded mistakes of both kinds, each shown to the agent as an error result, none of them ending the run.
    expect(codes).toContain('BAD_CALL');
    expect(codes).toContain('TOOL');
    expect(result.status).toBe('completed');
    expect(events.some((e) => e.type === 'task-end' && e.error?.includes('tool'))).toBe(false);
  });
});

describe('resume with the sim model', () => {
  it('cut after a tool result, the resumed run ends as the uninterrupted one did: same outputs, same tool calls', async () => {
    const { createModel } = await import('../../src/llm/resolve-model.js');
    const SIM = 'sim:seed=9,toolcalls=3,toolwrong=0.2';
    const plan = orderPlan(['a', 'b', 'c']);
    const dir = home();
    const store = await openRunStore({ home: dir });
    const reference = await runTask({
      task: plan.task,
      plan,
      model: await createModel(SIM),
      store,
      home: dir,
      runId: 'ref',
      tools: { available: orderTools(server.url) },
      run: { strategy: 'none', concurrency: 1 },
    });
    const events = await eventsOf(store, 'ref');
    await store.close();
    // A cut where no tool call is open (one that is would rightly fail its subtask on resume), mid-run.
    const open = new Set<string>();
    const quiet: number[] = [];
    events.forEach((e, index) => {
      if (e.type === 'tool-call') open.add(`${e.taskId}/${e.sequence}`);
      if (e.type === 'tool-result') {
        open.delete(`${e.taskId}/${e.sequence}`);
        if (open.size === 0) quiet.push(index + 1);
      }
    });
    expect(quiet.length).toBeGreaterThanOrEqual(3);
    const cut = quiet[Math.floor(quiet.length / 2)]!;
    const crashed = await crashedHome(events, cut);
    const posts = server.counts.get('POST /orders') ?? 0;
    const resumed = await resumeRun({
      runId: 'ref',
      model: await createModel(SIM),
      store: crashed.store,
      home: crashed.dir,
      tools: { available: orderTools(server.url) },
    });
    await crashed.store.close();
    expect(resumed.status).toBe(reference.status);
    expect(resumed.toolCalls).toBe(reference.toolCalls);
    expect(resumed.tasks.map((t) => [t.id, t.status, t.output])).toEqual(
      reference.tasks.map((t) => [t.id, t.status, t.output]),
    );
    // Only the placements after the cut were made again.
    const placedBefore = events.slice(0, cut).filter((e) => e.type === 'tool-call' && e.name === 'create_order').length;
    const placedInAll = events.filter((e) => e.type === 'tool-call' && e.name === 'create_order').length;
    expect((server.counts.get('POST /orders') ?? 0) - posts).toBe(placedInAll - placedBefore);
  });
});
