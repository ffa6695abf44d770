/**
 * The dashboard's engine pages' API (one file: the CLI's modules load once). Sessions made by `weft chat` and
 * batches made by `weft exec --inputs` (in-process, the real code), traces saved through the SQLite store's
 * TraceStore; 200,000 batch results paged from the store; folders of older versions listed, never read.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { batchRecordsOf } from '../../src/distill/batch-store.js';
import type { BatchRecord } from '../../src/store/batch-records.js';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteRunStore, type SqliteRunStore } from '../../src/store/sqlite-run-store.js';
import { newTraceId } from '../../src/store/traces.js';
import { lazyExistingStore } from '../../src/ui/lazy-store.js';
import { CHAT_MODEL, CHAT_PDL } from '../cli/chat-harness.js';
import { GOLD_DIR } from '../eval/gold-path.js';
import { cli, tempHome } from '../cli/cli-harness.js';
import { dashboard, TOKEN } from './engine-helpers.js';
import { createDashboardApp } from '../../src/ui/dashboard-app.js';

const stores: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

describe('dashboard: sessions', () => {
  it('lists sessions newest first and shows one as a transcript with tool calls and verdicts inline', async () => {
    const home = tempHome();
    const log = join(home, 'api.jsonl');
    const first = await cli(
      ['chat', CHAT_PDL, '--model', CHAT_MODEL, '--home', home, '--json'],
      { WEFT_TEST_API_LOG: log },
      'I want a refund\nemail: ada@example.com, order_id: O-7\n/end\n',
    );
    expect(first.code, first.stderr).toBe(0);
    const second = await cli(
      ['chat', CHAT_PDL, '--model', CHAT_MODEL, '--home', home, '--json'],
      { WEFT_TEST_API_LOG: log },
      '<script>alert(1)</script>\n',
    );
    expect(second.code, second.stderr).toBe(0);
    const firstId = JSON.parse(first.stdout).sessionId as string;
    const secondId = JSON.parse(second.stdout).sessionId as string;

    const store = openSqliteRunStore(join(home, 'weft.db'));
    stores.push(store);
    const get = dashboard({ store, home });
    const list = await get('/api/sessions');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.sessions.map((session: { sessionId: string }) => session.sessionId)).toEqual([secondId, firstId]);
    expect(list.body.sessions[1]).toMatchObject({ status: 'ended', procedure: 'Refund chat', turns: 2 });

    const page = await get(`/api/sessions/${firstId}`);
    expect(page.status).toBe(200);
    expect(page.body.session).toMatchObject({ sessionId: firstId, status: 'ended', procedure: 'Refund chat' });
    expect(page.body.totals.toolCalls).toBe(3);
    const roles = page.body.entries.map((entry: { role: string }) => entry.role);
    expect(roles).toContain('user');
    expect(roles).toContain('bot');
    expect(roles).toContain('verdict');
    expect(roles.at(-1)).toBe('end');
    const refund = page.body.entries.find((entry: { name?: string }) => entry.name === 'refund_order');
    expect(refund).toMatchObject({ role: 'tool', ok: true });
    expect(JSON.parse(refund.args)).toEqual({ order_id: 'O-7' });
    expect(JSON.parse(refund.result)).toEqual({ refund_id: 'RF-O-7' });
    // The tool call sits between the user's turn and the bot's reply of the same turn.
    const turn2 = page.body.entries
      .filter((entry: { turn: number }) => entry.turn === 2)
      .map((e: { role: string }) => e.role);
    expect(turn2.indexOf('user')).toBeLessThan(turn2.indexOf('tool'));
    expect(turn2.lastIndexOf('tool')).toBeLessThan(turn2.indexOf('bot'));

    // Paged over the entries.
    const paged = await get(`/api/sessions/${firstId}?offset=1&limit=2`);
    expect(paged.body.entries).toEqual(page.body.entries.slice(1, 3));
    expect(paged.body.entriesTotal).toBe(page.body.entries.length);

    // Hostile text comes back as data (the page renders it as text).
    const hostile = await get(`/api/sessions/${secondId}`);
    expect(hostile.body.entries[0]).toMatchObject({ role: 'user', text: '<script>alert(1)</script>' });

    for (const bad of ['s-20260101-000000-00000000', '..%2F..%2Fetc', 'x'.repeat(300)]) {
      const missing = await get(`/api/sessions/${bad}`);
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('marks simulated API calls, and names the simulated APIs and their model', async () => {
    const home = tempHome();
    const F = 'test/fixtures/flowagent';
    const chat = await cli(
      [
        'chat',
        `${F}/pdl/000.yaml`,
        '--tools',
        `${F}/tools/000.yaml`,
        '--simulate-apis',
        '--model',
        'sim:seed=4',
        '--json',
      ],
      { WEFT_HOME: home },
      'hotel_code: H-LIS-01, check_in: 2031-03-03\n/end\n',
    );
    expect(chat.code, chat.stderr).toBe(0);
    const sessionId = JSON.parse(chat.stdout).sessionId as string;
    const store = openSqliteRunStore(join(home, 'weft.db'));
    stores.push(store);
    const page = await dashboard({ store, home })(`/api/sessions/${sessionId}`);
    expect(page.body).toMatchObject({
      simulatedApis: ['checkRooms', 'bookRoom'],
      apiModel: expect.stringMatching(/^sim:/),
      totals: { simulatedToolCalls: 1 },
    });
    const call = page.body.entries.find((entry: { role: string }) => entry.role === 'tool');
    expect(call).toMatchObject({ name: 'checkRooms', simulated: true, ok: true });
  });

  it('answers as an empty store before any store exists, and needs the token', async () => {
    const home = tempHome();
    const store = lazyExistingStore(async () => undefined);
    const get = dashboard({ store, home });
    expect((await get('/api/sessions')).body).toEqual({ total: 0, offset: 0, sessions: [] });
    expect((await get('/api/traces')).body).toEqual({ traces: [] });
    expect((await get('/api/batches')).body).toEqual({ total: 0, offset: 0, batches: [] });
    expect((await get('/api/reports')).body).toEqual({ reports: [] });
    const app = createDashboardApp({ store, token: TOKEN, home });
    for (const path of ['/api/sessions', '/api/traces', '/api/batches', '/api/reports', '/api/batches/x/results'])
      expect((await app.request(path)).status).toBe(401);
  });
});

describe('dashboard: traces', () => {
  it('lists traces newest first with filters and `more`, and shows one with its tool calls', async () => {
    const home = tempHome();
    const store = openSqliteRunStore(join(home, 'weft.db'));
    stores.push(store);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      const traceId = newTraceId(new Date(Date.UTC(2026, 0, 1, 0, 0, index)));
      ids.push(traceId);
      await store.saveTrace({
        traceId,
        task: `sum <img src=x onerror=alert(1)> ${index}`,
        taskKey: index < 3 ? 'sum' : 'other',
        mode: 'react',
        model: 'sim',
        input: { n: index },
        calls: [
          { tool: 'add', args: { a: index, b: 1 }, ok: true, result: index + 1, durationMs: 3 },
          { tool: 'fail', args: { big: 'x'.repeat(50_000) }, ok: false, error: 'refused', durationMs: 1 },
        ],
        answer: index + 1,
        success: index !== 4,
        usage: { calls: 2, inputTokens: 10, outputTokens: 5, costUsd: 0.001 },
      });
    }
    const get = dashboard({ store, home });
    const all = await get('/api/traces?limit=3');
    expect(all.body.traces).toHaveLength(3);
    expect(all.body.more).toBe(true);
    expect((await get('/api/traces')).body.more).toBeUndefined();
    expect((await get('/api/traces?task=sum')).body.traces).toHaveLength(3);
    const failed = await get('/api/traces?success=false');
    expect(failed.body.traces.map((trace: { traceId: string }) => trace.traceId)).toEqual([ids[4]]);
    expect((await get('/api/traces?success=maybe')).status).toBe(400);

    const one = await get(`/api/traces/${ids[1]}`);
    expect(one.status).toBe(200);
    expect(one.body.trace.task).toBe('sum <img src=x onerror=alert(1)> 1');
    expect(one.body.trace.calls).toHaveLength(2);
    expect(JSON.parse(one.body.trace.calls[0].args)).toEqual({ a: 1, b: 1 });
    // A 50,000-character argument is cut for the page, and says so.
    expect(one.body.trace.calls[1].args.length).toBeLessThan(6_000);
    expect(one.body.trace.calls[1].args).toMatch(/more characters\)$/);
    expect((await get('/api/traces/t-0000')).status).toBe(404);
    expect((await get('/api/traces/not-a-trace')).status).toBe(404);
  });
});

const BATCH_FIXTURES = new URL('../fixtures/workflows/batch/', import.meta.url).pathname;

/** A real batch made by `weft exec --inputs` (in-process): cases that pass, fail and err. */
async function realBatch(home: string): Promise<string> {
  const inputs = join(home, 'cases.jsonl');
  const cases = [
    { id: 'a', input: { tag: 'a', n: 1 }, expected: 2 },
    { id: 'b', input: { tag: 'b', n: 2 }, expected: 5 },
    { id: 'c', input: { tag: 'c', n: -1 } },
    { id: 7, input: { tag: 'boom', n: 3 } },
  ];
  writeFileSync(inputs, `${cases.map((item) => JSON.stringify(item)).join('\n')}\n`);
  const result = await cli([
    'exec',
    join(BATCH_FIXTURES, 'batch.workflow.json'),
    '--tools',
    join(BATCH_FIXTURES, 'tools.yaml'),
    '--inputs',
    inputs,
    '--home',
    home,
    '--json',
  ]);
  expect(result.code, result.stderr).toBe(1);
  return JSON.parse(result.stdout).batchId as string;
}

/** The dashboard over the home's store, and that store's handle (the test changes batches through it). */
function batchDashboard(home: string) {
  const store = openSqliteRunStore(join(home, 'weft.db'));
  stores.push(store);
  return { store, get: dashboard({ store, home }) };
}

/** Gives a stored batch another manifest, keeping its log (the store has no manifest update: written again). */
async function changeManifest(
  store: SqliteRunStore,
  batchId: string,
  change: (manifest: Record<string, unknown>) => Record<string, unknown>,
  more: readonly BatchRecord[] = [],
): Promise<void> {
  const info = await store.getBatch(batchId);
  const records: BatchRecord[] = [];
  for await (const record of batchRecordsOf(store, batchId)) records.push(record);
  await store.deleteBatch(batchId);
  await store.createBatch({ batchId, manifest: change(info?.manifest ?? {}) });
  const all = [...records, ...more];
  for (let index = 0; index < all.length; index += 10_000)
    await store.appendBatchRecords(batchId, all.slice(index, index + 10_000));
}

describe('dashboard: batches', () => {
  it('lists a real batch with its counts and shows its workflow graph and its results, errors with node and field', async () => {
    const home = tempHome();
    const batchId = await realBatch(home);
    const { store, get } = batchDashboard(home);
    const list = await get('/api/batches');
    expect(list.body.total).toBe(1);
    expect(list.body.batches[0]).toMatchObject({
      batchId,
      status: 'finished',
      cases: 4,
      passed: 1,
      failed: 1,
      errors: 2,
      notRun: 0,
    });
    const page = await get(`/api/batches/${batchId}`);
    expect(page.status).toBe(200);
    expect(page.body.graph.name).toBe('tag_and_double');
    const kinds = Object.fromEntries(
      page.body.graph.layout.nodes.map((node: { id: string; kind: string }) => [node.id, node.kind]),
    );
    expect(kinds).toMatchObject({ start: 'start', sign: 'condition', broken: 'set', note: 'tool', done: 'end' });
    const branch = page.body.graph.layout.edges.find(
      (edge: { from: string; to: string }) => edge.from === 'sign' && edge.to === 'wait',
    );
    expect(branch).toMatchObject({ kind: 'branch', label: 'true' });
    for (const node of page.body.graph.layout.nodes)
      expect(Number.isFinite(node.x) && Number.isFinite(node.y)).toBe(true);

    const results = await get(`/api/batches/${batchId}/results`);
    expect(results.body.total).toBe(4);
    const byId = Object.fromEntries(results.body.results.map((row: { id: string | number }) => [String(row.id), row]));
    expect(byId.a).toMatchObject({ status: 'passed', output: '2' });
    expect(byId.b).toMatchObject({ status: 'failed', output: '4' });
    expect(byId.c.status).toBe('error');
    expect(byId.c.error.field).toMatch(/broken/);
    expect(byId['7'].error.message).toContain('the service refused boom');
    const errors = await get(`/api/batches/${batchId}/results?status=error`);
    expect(errors.body.results.map((row: { status: string }) => row.status)).toEqual(['error', 'error']);
    expect((await get(`/api/batches/${batchId}/results?status=weird`)).status).toBe(400);
    // A live process holding the batch (its owner in the store) makes it `running`; the dashboard only reads it.
    const alive = { pid: process.pid, host: hostname() };
    expect(await store.takeOverBatch(batchId, alive, undefined)).toBe(true);
    const running = await get(`/api/batches/${batchId}?graph=no`);
    expect(running.body.batch.status).toBe('running');
    expect(running.body.graph).toBeUndefined();
    expect((await store.getBatch(batchId))?.owner).toEqual(alive);
    // One on another host cannot be checked: shown running too, never judged gone.
    await store.takeOverBatch(batchId, { pid: 1, host: 'another-host' }, alive);
    expect((await get(`/api/batches/${batchId}?graph=no`)).body.batch.status).toBe('running');
    expect((await get('/api/batches/b-nope')).status).toBe(404);
    expect((await get('/api/batches/..')).status).toBe(404);
  });

  it('pages 200,000 results in completion order a page at a time, and follows the batch as it grows', async () => {
    const home = tempHome();
    const batchId = await realBatch(home);
    const { store, get } = batchDashboard(home);
    const total = 200_000;
    const records: BatchRecord[] = [];
    for (let index = 0; index < total; index++) {
      records.push({ type: 'case-start', id: `k${index}`, attempt: 1 });
      records.push(
        index % 10 === 3
          ? {
              type: 'case-end',
              id: `k${index}`,
              status: 'error',
              error: { code: 'TOOL', message: 'no', field: 'node note' },
            }
          : { type: 'case-end', id: `k${index}`, status: 'passed', output: index },
      );
    }
    // A case started whose result is not in yet (running, or cut off by a kill).
    records.push({ type: 'case-start', id: 'k-late', attempt: 1 });
    await changeManifest(
      store,
      batchId,
      (manifest) => ({ ...manifest, inputs: { ...(manifest.inputs as object), cases: total + 5 } }),
      records,
    );
    const started = performance.now();
    const summary = (await get('/api/batches')).body.batches[0];
    if (process.env.WEFT_MEASURE) console.log(`counting ${total} cases: ${Math.round(performance.now() - started)} ms`);
    expect(summary).toMatchObject({
      results: total + 4,
      errors: total / 10 + 2,
      status: 'stopped',
      notRun: 1,
      startedWithoutResult: 1,
    });
    const page = await get(`/api/batches/${batchId}/results?offset=100000&limit=3`);
    expect(page.body.total).toBe(total + 4);
    expect(page.body.results.map((row: { id: string }) => row.id)).toEqual(['k99996', 'k99997', 'k99998']);
    const errors = await get(`/api/batches/${batchId}/results?status=error&offset=5&limit=2`);
    expect(errors.body.results).toEqual([
      { id: 'k33', status: 'error', error: { code: 'TOOL', message: 'no', field: 'node note' } },
      { id: 'k43', status: 'error', error: { code: 'TOOL', message: 'no', field: 'node note' } },
    ]);
    // The late case ends, and a resume re-runs k3 (now passed): its last result is the one shown, at its new place.
    await store.appendBatchRecords(batchId, [
      { type: 'case-end', id: 'k-late', status: 'passed', output: 1 },
      { type: 'case-start', id: 'k3', attempt: 2 },
      { type: 'case-end', id: 'k3', status: 'passed', output: 'again' },
    ]);
    const after = (await get('/api/batches')).body.batches[0];
    expect(after).toMatchObject({ results: total + 5, errors: total / 10 + 1, status: 'finished', notRun: 0 });
    const last = await get(`/api/batches/${batchId}/results?offset=${total + 3}&limit=5`);
    expect(last.body.results.map((row: { id: string }) => row.id)).toEqual(['k-late', 'k3']);
  }, 120_000);

  it('lists folders of an older Weft by name with how to import them, reading none of their files', async () => {
    const home = tempHome();
    const batchId = await realBatch(home);
    const outside = tempHome();
    writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET\n');
    mkdirSync(join(home, 'batches'));
    // 1. A batch folder that is a link out of the batches folder, with a secret for a manifest.
    const secretDir = join(outside, 'b-20990101-000000-aaaaaa');
    mkdirSync(secretDir);
    symlinkSync(join(outside, 'secret.txt'), join(secretDir, 'batch.json'));
    symlinkSync(secretDir, join(home, 'batches', 'b-20990101-000000-aaaaaa'));
    // 2. A manifest that is a named pipe (nobody writes it: reading it would hang the server).
    const piped = join(home, 'batches', 'b-20950101-000000-eeeeee');
    mkdirSync(piped);
    execFileSync('mkfifo', [join(piped, 'batch.json')]);
    // 3. A name no batch can have, and a folder the store has too (it is listed once, from the store).
    mkdirSync(join(home, 'batches', '.hidden'));
    mkdirSync(join(home, 'batches', batchId));

    const { get } = batchDashboard(home);
    const list = await get('/api/batches');
    expect(list.status).toBe(200);
    expect(list.body.batches.map((row: { batchId: string }) => row.batchId)).toEqual([
      batchId,
      'b-20990101-000000-aaaaaa',
      'b-20950101-000000-eeeeee',
    ]);
    expect(list.body.batches[1]).toMatchObject({
      status: 'unreadable',
      problem: expect.stringContaining('`weft exec --resume b-20990101-000000-aaaaaa` imports it into the store'),
    });
    expect(JSON.stringify(list.body)).not.toContain('TOP SECRET');
    // Not in the store: no page of its own.
    expect((await get('/api/batches/b-20990101-000000-aaaaaa')).status).toBe(404);
    expect((await get('/api/batches/b-20990101-000000-aaaaaa/results')).status).toBe(404);
  });

  it('shows a stored manifest that is not one of this version as unreadable, with why', async () => {
    const home = tempHome();
    const batchId = await realBatch(home);
    const { store, get } = batchDashboard(home);
    await changeManifest(store, batchId, (manifest) => ({ ...manifest, inputs: 'x' }));
    const row = (await get('/api/batches')).body.batches[0];
    expect(row).toMatchObject({
      batchId,
      status: 'unreadable',
      problem: expect.stringMatching(/^its manifest .*inputs/),
    });
    const page = await get(`/api/batches/${batchId}`);
    expect(page.body.batch).toMatchObject({ status: 'unreadable' });
    expect(page.body.graph).toBeUndefined();
  });

  it('shows no graph when the workflow file changed since the batch started', async () => {
    const home = tempHome();
    const batchId = await realBatch(home);
    const { store, get } = batchDashboard(home);
    const workflow = join(home, 'changed.workflow.json');
    writeFileSync(workflow, readFileSync(join(BATCH_FIXTURES, 'batch.workflow.json')));
    await changeManifest(store, batchId, (manifest) => ({
      ...manifest,
      workflow: { ...(manifest.workflow as object), path: workflow },
    }));
    expect((await get(`/api/batches/${batchId}`)).body.graph.layout).toBeDefined();
    writeFileSync(workflow, '{"name": "other"}');
    const page = await get(`/api/batches/${batchId}`);
    expect(page.body.graph).toEqual({ problem: expect.stringMatching(/changed since the batch started/) });
  });
});

describe('dashboard: eval reports', () => {
  it('shows a weft eval --json report: per-scenario table and F1 histograms; broken files show their problem', async () => {
    const home = tempHome();
    const records = (
      JSON.parse(readFileSync(join(GOLD_DIR, 'os.json'), 'utf8')) as {
        id: string;
        conversations: { content: string }[];
      }[]
    ).slice(0, 6);
    const predictions = join(home, 'predictions.jsonl');
    writeFileSync(
      predictions,
      `${records
        .map((record, index) => ({
          id: record.id,
          // Four right answers, two poor ones: the histogram has something in its first and last bins.
          output:
            index < 4 ? record.conversations.at(-1)!.content : 'Node:\n1: do something else\nEdge: (START,1) (1,END)',
        }))
        .map((line) => JSON.stringify(line))
        .join('\n')}\n`,
    );
    const evaluated = await cli(['eval', predictions, '--gold', join(GOLD_DIR, 'os.json'), '--json']);
    expect(evaluated.code, evaluated.stderr).toBe(0);
    const reports = join(home, 'reports');
    mkdirSync(reports);
    writeFileSync(join(reports, 'os.json'), evaluated.stdout);
    writeFileSync(join(reports, 'broken.json'), '{"count": 3,\n  "f1_chain": ');
    writeFileSync(join(reports, 'other.json'), '{"hello": "world"}');
    const bad = JSON.parse(evaluated.stdout);
    bad.byScenario = { os: { count: 6, f1_chain: 'high', f1_graph: 1 } };
    writeFileSync(join(reports, 'bad-field.json'), JSON.stringify(bad, null, 2));
    writeFileSync(join(reports, 'junk.json'), Buffer.from([0, 159, 146, 150, 0, 255]));
    writeFileSync(join(reports, 'notes.txt'), 'not listed');
    // weft bench worfbench keeps its scores.json under the home: found without --reports.
    mkdirSync(join(home, 'bench', 'worfbench', 'sim-single'), { recursive: true });
    writeFileSync(join(home, 'bench', 'worfbench', 'sim-single', 'scores.json'), evaluated.stdout);

    const get = dashboard({ home, reports: [reports, join(home, 'missing.json')] });
    const list = await get('/api/reports');
    expect(list.status).toBe(200);
    const byName = Object.fromEntries(
      list.body.reports.map((report: { name: string; source: string }) => [`${report.source}:${report.name}`, report]),
    );
    expect(Object.keys(byName).sort()).toEqual([
      'home:scores.json',
      'reports:bad-field.json',
      'reports:broken.json',
      'reports:junk.json',
      'reports:missing.json',
      'reports:os.json',
      'reports:other.json',
    ]);
    expect(byName['reports:os.json']).toMatchObject({ kind: 'worfeval' });
    expect(byName['home:scores.json']).toMatchObject({ kind: 'worfeval' });
    expect(byName['reports:broken.json'].problem).toMatch(/broken\.json:2:15: not JSON/);
    expect(byName['reports:other.json'].problem).toMatch(/not a report Weft knows/);
    expect(byName['reports:bad-field.json'].problem).toMatch(/bad-field\.json:\d+:\d+ byScenario\.os\.f1_chain: /);
    expect(byName['reports:junk.json'].problem).toMatch(/binary/);
    expect(byName['reports:missing.json'].problem).toMatch(/no such file/);

    const shown = await get(`/api/reports/${byName['reports:os.json'].id}`);
    expect(shown.status).toBe(200);
    const scenarios = shown.body.report.tables.find((table: { title: string }) => table.title === 'By scenario');
    expect(scenarios.columns).toEqual(['scenario', 'count', 'f1 chain', 'f1 graph']);
    expect(scenarios.rows).toHaveLength(Object.keys(JSON.parse(evaluated.stdout).byScenario).length);
    const [chain, graph] = shown.body.report.histograms[0].series;
    expect(chain.counts.reduce((sum: number, count: number) => sum + count, 0)).toBe(6);
    expect(chain.counts[9]).toBe(4);
    expect(graph.counts[9]).toBe(4);
    const broken = await get(`/api/reports/${byName['reports:broken.json'].id}`);
    expect(broken.status).toBe(200);
    expect(broken.body.problem).toMatch(/not JSON/);
    expect((await get('/api/reports/0123456789abcdef')).status).toBe(404);
  });

  it("links a distill eval's kept files (weft distill eval --out) and serves only those, from inside its folder", async () => {
    const home = tempHome();
    const out = join(home, 'distilled');
    const evaluated = await cli([
      'distill',
      'eval',
      '--suite',
      'examples/distill-suite',
      '--task',
      'gcd',
      '--model',
      'sim:seed=1',
      '--out',
      out,
      '--home',
      home,
      '--json',
    ]);
    expect(evaluated.code, evaluated.stderr).toBe(0);
    const get = dashboard({ reports: [out] });
    const [listed] = (await get('/api/reports')).body.reports;
    expect(listed).toMatchObject({ name: 'report.json', kind: 'distill-eval' });
    const shown = await get(`/api/reports/${listed.id}`);
    const tasks = shown.body.report.tables.find((table: { title: string }) => table.title === 'Tasks');
    expect(tasks.columns).toEqual([
      'task',
      'variant',
      'tests',
      'passed',
      'pass rate',
      'correct',
      'f1 chain',
      'f1 graph',
      'workflow',
      'traces',
      'selected',
      'results',
      'summary',
    ]);
    expect(tasks.rows[0].slice(6)).toEqual([
      1,
      1,
      { text: 'workflow', file: 'tasks/gcd/es-pe/workflow.json' },
      { text: 'traces', file: 'tasks/gcd/es-pe/traces.jsonl' },
      { text: 'selected', file: 'tasks/gcd/es-pe/selected-traces.jsonl' },
      { text: 'results', file: 'tasks/gcd/es-pe/results.jsonl' },
      { text: 'summary', file: 'tasks/gcd/es-pe/summary.json' },
    ]);
    const file = (path: string) => get(`/api/reports/${listed.id}/file?path=${encodeURIComponent(path)}`);
    const workflow = await file('tasks/gcd/es-pe/workflow.json');
    expect(workflow.status).toBe(200);
    expect(workflow.body).toMatchObject({ path: 'tasks/gcd/es-pe/workflow.json', truncated: false });
    expect(JSON.parse(workflow.body.text).nodes.length).toBeGreaterThan(0);
    // Nothing the report does not link, whatever the path says.
    for (const path of ['tasks/gcd/es-pe/./workflow.json', '../report.json', '/etc/passwd', 'report.json'])
      expect((await file(path)).status, path).toBe(404);
    // A folder on the way, or the file, that became a symbolic link is refused, not followed.
    const elsewhere = join(home, 'elsewhere');
    mkdirSync(join(elsewhere, 'es-pe'), { recursive: true });
    writeFileSync(join(elsewhere, 'es-pe', 'results.jsonl'), 'secret\n');
    const task = join(out, 'tasks', 'gcd');
    renameSync(task, join(home, 'moved'));
    symlinkSync(elsewhere, task);
    const viaLink = await file('tasks/gcd/es-pe/results.jsonl');
    expect(viaLink.status).toBe(400);
    expect(viaLink.body.error.message).toContain('symbolic link');
    rmSync(task);
    renameSync(join(home, 'moved'), task);
    rmSync(join(task, 'es-pe', 'traces.jsonl'));
    symlinkSync(join(elsewhere, 'es-pe', 'results.jsonl'), join(task, 'es-pe', 'traces.jsonl'));
    const linkedFile = await file('tasks/gcd/es-pe/traces.jsonl');
    expect(linkedFile.status).toBe(400);
    expect(linkedFile.body.error.message).toContain('symbolic link');
    // A report whose links leave its folder is not shown at all.
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    report.tasks[0].files.results = '../../outside.jsonl';
    writeFileSync(join(out, 'report.json'), JSON.stringify(report, null, 2));
    const planted = (await get('/api/reports')).body.reports[0];
    expect(planted.problem).toMatch(/tasks\[0\]\.files\.results: a path inside the report's folder/);
  });
});
