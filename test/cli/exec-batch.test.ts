/**
 * `weft exec FILE --inputs cases.jsonl` and `weft exec --resume BATCH`: a batch of cases through one
 * workflow with no model, in this process. Module tools record each call per case (WEFT_TEST_CALLS), so "no case
 * run twice" is counted, not assumed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBatchCases, scanBatchCases } from '../../src/distill/batch-cases.js';
import { batchRecordsOf, createBatch } from '../../src/distill/batch-store.js';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.js';
import { runBatch } from '../../src/distill/run-batch.js';
import { runWorkflow } from '../../src/distill/run-workflow.js';
import { loadWorkflowFile } from '../../src/distill/read-workflow-file.js';
import { loadToolsFile } from '../../src/tools/tools-file.js';
import { createBatchProgress } from '../../src/cli/distill/batch-progress.js';
import { batchLog, cutBatchLog, homeBatches, withHomeStore } from './batch-store-harness.js';
import { Capture, cli, tempHome } from './cli-harness.js';

const FIXTURES = new URL('../fixtures/workflows/batch/', import.meta.url).pathname;
const WORKFLOW = join(FIXTURES, 'batch.workflow.json');
const TOOLS = join(FIXTURES, 'tools.yaml');

interface Case {
  id: string | number;
  input: Record<string, unknown>;
  expected?: unknown;
}

function casesFile(home: string, cases: readonly (Case | string)[], name = 'cases.jsonl'): string {
  const file = join(home, name);
  writeFileSync(file, `${cases.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('\n')}\n`);
  return file;
}

/** How many times each tag called `record`. */
function callCounts(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (!existsSync(file)) return counts;
  for (const tag of readFileSync(file, 'utf8').split('\n').filter(Boolean)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  return counts;
}

const batchArgs = (home: string, inputs: string, ...more: string[]) => [
  'exec',
  WORKFLOW,
  '--tools',
  TOOLS,
  '--inputs',
  inputs,
  '--home',
  home,
  ...more,
];

describe('weft exec --inputs (batches)', () => {
  it('runs every case: passed, failed and errors partition the cases; a case error is located and ends only that case', async () => {
    const home = tempHome();
    const calls = join(home, 'calls.txt');
    const inputs = casesFile(home, [
      { id: 1, input: { tag: 'a', n: 2 }, expected: 4 },
      { id: 'two', input: { tag: 'b', n: 3 }, expected: 7 }, // wrong expectation: failed
      { id: 3, input: { tag: 'c', n: 5 } }, // no expectation: ok when it runs
      { id: 4, input: { tag: 'd', n: -1 }, expected: 0 }, // JSONata error in node `broken`
      { id: 5, input: { tag: 'boom1', n: 1 } }, // the tool throws
      { id: 6, input: { tag: 'e' } }, // input fails the workflow's `inputs` schema
      { id: 7, input: { tag: 'f', n: 0 }, expected: null }, // output 0 is not null: failed
    ]);
    const out = join(home, 'results.jsonl');
    const result = await cli(batchArgs(home, inputs, '--out', out, '--json'), { WEFT_TEST_CALLS: calls });
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.stdout) as {
      batchId: string;
      cases: number;
      passed: number;
      failed: number;
      errors: number;
      results: {
        id: string | number;
        output: unknown;
        ok: boolean;
        error?: { code: string; message: string; field?: string };
      }[];
    };
    expect(summary).toMatchObject({ cases: 7, passed: 2, failed: 2, errors: 3 });
    expect(summary.batchId).toMatch(/^b-/);
    const byId = new Map(summary.results.map((entry) => [entry.id, entry]));
    expect(byId.get(1)).toEqual({ id: 1, output: 4, ok: true });
    expect(byId.get('two')).toEqual({ id: 'two', output: 6, ok: false });
    expect(byId.get(3)).toEqual({ id: 3, output: 10, ok: true });
    expect(byId.get(7)).toMatchObject({ output: 0, ok: false });
    expect(byId.get(4)?.error).toMatchObject({ code: 'WORKFLOW', field: 'node broken (values).x' });
    expect(byId.get(4)?.error?.message).toContain('$number("not a number")');
    expect(byId.get(5)?.error?.message).toMatch(/node note: tool record failed: .*refused boom1/);
    expect(byId.get(6)?.error).toMatchObject({ code: 'BAD_INPUT', field: 'input' });
    // Every result is in --out, one line per case.
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: unknown });
    expect(lines.map((line) => line.id).sort()).toEqual([1, 3, 4, 5, 6, 7, 'two'].sort());
    // The log holds a start before each result; the schema-refused case called no tool.
    expect([...callCounts(calls).values()].every((count) => count === 1)).toBe(true);
    expect(callCounts(calls).has('e')).toBe(false);
  });

  it('prints a summary line and the failing cases without --json, and no progress bar on a pipe', async () => {
    const home = tempHome();
    const inputs = casesFile(home, [
      { id: 1, input: { tag: 'a', n: 2 }, expected: 4 },
      { id: 2, input: { tag: 'b', n: -2 } },
    ]);
    const result = await cli(batchArgs(home, inputs));
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^batch b-\S+: 2 cases, 1 passed, 0 failed, 1 errors\n {2}2: WORKFLOW: node broken/);
    expect(result.stderr).not.toContain('\r');
    expect(result.stderr).not.toContain('[#');
  });

  it('reports every bad line at once with its line and field, and refuses duplicate ids (7 and "7" alike)', async () => {
    const home = tempHome();
    const inputs = casesFile(home, [
      { id: 1, input: { tag: 'a', n: 1 } },
      '{"id": 2, "input": {"tag": "b", "n": 1}', // not JSON
      { id: 3, inpt: { tag: 'c', n: 1 } } as unknown as Case,
      { id: 7, input: { tag: 'd', n: 1 } },
      { id: '7', input: { tag: 'e', n: 1 } },
      '[1, 2]',
      { id: true, input: 'x' } as unknown as Case,
      `{"id": 9, "input": {"tag": "bin\u0000", "n": 1}}`,
      `{"id": 10, "input": ${'['.repeat(150)}${']'.repeat(150)}}`,
    ]);
    const result = await cli(batchArgs(home, inputs));
    expect(result.code).toBe(2);
    const text = result.stderr;
    expect(text).toContain('invalid cases file');
    expect(text).toMatch(new RegExp(`${inputs}:2:\\d+.*invalid JSON`));
    expect(text).toMatch(new RegExp(`${inputs}:3:\\d+ inpt.*did you mean "input"`));
    expect(text).toMatch(new RegExp(`${inputs}:3:\\d+ input.*missing "input"`));
    expect(text).toMatch(new RegExp(`${inputs}:5:\\d+ id.*duplicate id "7" \\(first on line 4\\)`));
    expect(text).toMatch(new RegExp(`${inputs}:6:1.*expected an object`));
    expect(text).toMatch(new RegExp(`${inputs}:7:\\d+ id.*"id" must be`));
    expect(text).toMatch(new RegExp(`${inputs}:7:\\d+ input.*"input" must be an object`));
    expect(text).toMatch(new RegExp(`${inputs}:8.*NUL byte`));
    expect(text).toMatch(new RegExp(`${inputs}:9.*nested deeper than 100`));
    // Refused before anything ran: no batch in the store.
    expect(await homeBatches(home)).toEqual([]);
  });

  it('refuses a line over the size limit and a file that is not a regular file', async () => {
    const home = tempHome();
    const inputs = casesFile(home, [`{"id": 1, "input": {"tag": "${'x'.repeat(1_100_000)}", "n": 1}}`]);
    const big = await cli(batchArgs(home, inputs));
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/cases.jsonl:1: the line is longer than 1000000 bytes/);
    const folder = await cli(batchArgs(home, home));
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('is not a regular file');
  });

  it('--json lists at most 1,000 results and says how many are only in the --out file', async () => {
    const home = tempHome();
    const workflow = join(home, 'echo.workflow.json');
    writeFileSync(
      workflow,
      JSON.stringify({
        name: 'echo',
        nodes: [
          { id: 'start', kind: 'start' },
          { id: 'end', kind: 'end', output: '{% inputs.x + 1 %}' },
        ],
        edges: [{ from: 'start', to: 'end' }],
      }),
    );
    const inputs = casesFile(
      home,
      Array.from({ length: 1005 }, (_, i) => ({ id: i, input: { x: i }, expected: i + 1 })),
    );
    const out = join(home, 'all.jsonl');
    const result = await cli(['exec', workflow, '--inputs', inputs, '--out', out, '--home', home, '--json']);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      passed: number;
      results: unknown[];
      resultsOmitted: number;
      resultsNote: string;
    };
    expect(summary.passed).toBe(1005);
    expect(summary.results).toHaveLength(1000);
    expect(summary.resultsOmitted).toBe(5);
    expect(summary.resultsNote).toContain(out);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(1005);
  });

  it('resume: cases with a result are not run again; an interrupted case is reported, not rerun, unless asked', async () => {
    const home = tempHome();
    const calls = join(home, 'calls.txt');
    const env = { WEFT_TEST_CALLS: calls };
    const cases: Case[] = Array.from({ length: 10 }, (_, i) => ({
      id: `c${i}`,
      input: { tag: `c${i}`, n: i },
      expected: i * 2,
    }));
    const inputs = casesFile(home, cases);
    const created = await cli(batchArgs(home, inputs, '--json', '--concurrency', '2'), env);
    expect(created.code).toBe(0);
    const { batchId } = JSON.parse(created.stdout) as { batchId: string };
    // Rewind its log to what a kill leaves: results for c0-c5, c6 and c7 started without a result, c8 and c9 not
    // started. (The real SIGINT path is in test/long/exec-batch-signals.test.ts.)
    await cutBatchLog(home, batchId, (record) => {
      const index = Number(String(record.id).slice(1));
      return index < 6 || (record.type === 'case-start' && index < 8);
    });
    writeFileSync(calls, '');
    const resumed = await cli(['exec', '--resume', batchId, '--home', home, '--json'], env);
    expect(resumed.code).toBe(1);
    const summary = JSON.parse(resumed.stdout) as {
      passed: number;
      errors: number;
      results: { id: string; ok: boolean; error?: { code: string; message: string } }[];
    };
    expect(summary).toMatchObject({ passed: 8, errors: 2 });
    expect(summary.results).toHaveLength(10);
    const interrupted = summary.results.filter((entry) => entry.error);
    expect(interrupted.map((entry) => entry.id).sort()).toEqual(['c6', 'c7']);
    expect(interrupted[0]?.error).toMatchObject({
      code: 'INTERRUPTED',
      message: expect.stringContaining('interrupted; not run again'),
    });
    // Only c8 and c9 ran in the resume: no case twice.
    expect([...callCounts(calls).entries()].sort()).toEqual([
      ['c8', 1],
      ['c9', 1],
    ]);
    // A second resume runs nothing; with --rerun-interrupted only c6 and c7 run again.
    writeFileSync(calls, '');
    const again = await cli(['exec', '--resume', batchId, '--home', home, '--json'], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ passed: 8, errors: 2 });
    expect(callCounts(calls).size).toBe(0);
    const rerun = await cli(['exec', '--resume', batchId, '--home', home, '--rerun-interrupted', '--json'], env);
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ passed: 10, errors: 0, failed: 0 });
    expect([...callCounts(calls).entries()].sort()).toEqual([
      ['c6', 1],
      ['c7', 1],
    ]);
    const starts = (await batchLog(home, batchId)).filter(
      (record) => record.type === 'case-start' && record.id === 'c6' && record.attempt === 2,
    );
    expect(starts).toHaveLength(1);
  });

  it('imports a batch an earlier version left in a folder (records named `start` and `result`) on its first resume', async () => {
    const home = tempHome();
    const calls = join(home, 'calls.txt');
    const env = { WEFT_TEST_CALLS: calls };
    const cases: Case[] = Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, input: { tag: `c${i}`, n: i } }));
    const created = await cli(batchArgs(home, casesFile(home, cases), '--json', '--concurrency', '1'), env);
    expect(created.code).toBe(0);
    const { batchId } = JSON.parse(created.stdout) as { batchId: string };
    // The folder an earlier version leaves after a kill: c0-c2 ended, c3 started without an end, c4, c5 not run,
    // and a torn last line. The store does not know the batch.
    const manifest = await withHomeStore(home, async (store) => {
      const info = await store.getBatch(batchId);
      await store.deleteBatch(batchId);
      return info?.manifest;
    });
    expect((await homeBatches(home)).map((batch) => batch.batchId)).toEqual([]);
    const folder = join(home, 'batches', batchId);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'batch.json'), JSON.stringify(manifest));
    const lines = [
      ...['c0', 'c1', 'c2'].flatMap((id) => [
        { type: 'start', id, attempt: 1 },
        { type: 'result', id, status: 'passed', output: 0 },
      ]),
      { type: 'start', id: 'c3', attempt: 1 },
    ].map((record) => JSON.stringify(record));
    const folderLog = `${lines.join('\n')}\n{"type":"result","id":"c4","sta`;
    writeFileSync(join(folder, 'log.jsonl'), folderLog);
    writeFileSync(calls, '');
    const resumed = await cli(['exec', '--resume', batchId, '--home', home, '--json'], env);
    const summary = JSON.parse(resumed.stdout) as { passed: number; errors: number; results: { id: string }[] };
    expect(summary).toMatchObject({ passed: 5, errors: 1 });
    expect(summary.results.map((entry) => entry.id).sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    // Only the cases the old log had not started ran; the store holds the imported records under today's names.
    expect([...callCounts(calls).keys()].sort()).toEqual(['c4', 'c5']);
    const log = await batchLog(home, batchId);
    expect(log.slice(0, 7).map((record) => `${record.type} ${record.id}`)).toEqual([
      'case-start c0',
      'case-end c0',
      'case-start c1',
      'case-end c1',
      'case-start c2',
      'case-end c2',
      'case-start c3',
    ]);
    expect(
      log
        .slice(7)
        .map((record) => record.type)
        .sort(),
    ).toEqual(['case-end', 'case-end', 'case-end', 'case-start', 'case-start']);
    // The folder is left as it was; a second resume reads the store, not the folder.
    expect(readFileSync(join(folder, 'log.jsonl'), 'utf8')).toBe(folderLog);
    const again = await cli(['exec', '--resume', batchId, '--home', home, '--json'], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ passed: 5, errors: 1 });
    expect(await batchLog(home, batchId)).toHaveLength(log.length);
  });

  it("names the folder when an earlier version's batch cannot be imported", async () => {
    const home = tempHome();
    const folder = join(home, 'batches', 'b-old');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'batch.json'), '{"version": 1, "batchId": ');
    const torn = await cli(['exec', '--resume', 'b-old', '--home', home]);
    expect(torn.code).toBe(2);
    expect(torn.stderr).toContain(`batch b-old of an older Weft in ${folder} cannot be imported`);
    writeFileSync(join(folder, 'batch.json'), '{}');
    writeFileSync(join(folder, 'owner.json'), JSON.stringify({ pid: process.pid, host: hostname() }));
    const owned = await cli(['exec', '--resume', 'b-old', '--home', home]);
    expect(owned.code).toBe(2);
    expect(owned.stderr).toContain(`process ${process.pid} on ${hostname()} may still be running it`);
    expect(await homeBatches(home)).toEqual([]);
  });

  it('a stopped batch leaves running cases started without a result; the resume reports them and runs the rest', async () => {
    const home = tempHome();
    const calls = join(home, 'calls.txt');
    process.env['WEFT_TEST_CALLS'] = calls;
    const tools = await loadToolsFile(TOOLS);
    try {
      const { workflow } = await loadWorkflowFile(WORKFLOW, { toolNames: tools.tools.map((tool) => tool.name) });
      const cases: Case[] = Array.from({ length: 8 }, (_, i) => ({
        id: i,
        input: { tag: `t${i}`, n: 1000 + (i === 2 ? 30_000 : 0) },
      }));
      const inputs = casesFile(home, cases);
      const scan = await scanBatchCases(inputs);
      const store = await openSqliteRunStore(join(home, 'weft.db'));
      await createBatch(store, {
        version: 1,
        batchId: 'b-stop-test',
        createdAt: new Date().toISOString(),
        workflow: { path: WORKFLOW, sha256: '' },
        inputs: { path: inputs, sha256: scan.sha256, cases: scan.cases },
        options: { concurrency: 2 },
      });
      const stop = new AbortController();
      let results = 0;
      const summary = await runBatch({
        batchId: 'b-stop-test',
        store,
        cases: () => readBatchCases(inputs),
        total: scan.cases,
        concurrency: 2,
        drainMs: 50,
        signal: stop.signal,
        runCase: async (item, _attempt, signal) => {
          const run = await runWorkflow(workflow, { tools: tools.tools, input: item.input, signal });
          return { output: run.output, steps: run.steps, toolCalls: run.toolCalls.length };
        },
        onProgress: ({ done }) => {
          results = done;
          if (done >= 2) stop.abort();
        },
      });
      expect(results).toBeGreaterThanOrEqual(2);
      expect(summary.stopped).toBe(true);
      expect(summary.notRun).toBeGreaterThan(0);
      const log = [];
      for await (const record of batchRecordsOf(store, 'b-stop-test')) log.push(record);
      await store.close();
      // Case 2 was running (30 s pause) when the drain time ran out: started, no result.
      expect(log).toContainEqual({ type: 'case-start', id: 2, attempt: 1 });
      expect(log.filter((record) => record.type === 'case-end' && record.id === 2)).toEqual([]);
      const before = callCounts(calls);
      expect(before.get('t2')).toBe(1);
      expect(summary.passed + summary.failed + summary.errors + summary.notRun).toBe(8);
    } finally {
      await tools.close();
      delete process.env['WEFT_TEST_CALLS'];
    }
  });

  it('refuses to resume when the workflow or the cases file changed, and when another live process owns the batch', async () => {
    const home = tempHome();
    const workflow = join(home, 'wf.json');
    writeFileSync(workflow, readFileSync(WORKFLOW));
    const inputs = casesFile(home, [{ id: 1, input: { tag: 'a', n: 1 } }]);
    const first = await cli(['exec', workflow, '--tools', TOOLS, '--inputs', inputs, '--home', home, '--json']);
    expect(first.code).toBe(0);
    const { batchId } = JSON.parse(first.stdout) as { batchId: string };
    const owner = async () => (await homeBatches(home)).find((batch) => batch.batchId === batchId)?.owner;

    // Another process (this one: alive, on this host) owns it.
    const alive = { pid: process.pid, host: hostname() };
    await withHomeStore(home, (store) => store.takeOverBatch(batchId, alive, undefined));
    const owned = await cli(['exec', '--resume', batchId, '--home', home]);
    expect(owned.code).toBe(2);
    expect(owned.stderr).toContain(`is being run by process ${process.pid}`);
    expect(await owner()).toEqual(alive);
    // An owner that has exited is taken over, and released when the resume ends.
    const gone = { pid: spawnSync(process.execPath, ['-e', '0']).pid as number, host: hostname() };
    await withHomeStore(home, (store) => store.takeOverBatch(batchId, gone, alive));
    const taken = await cli(['exec', '--resume', batchId, '--home', home]);
    expect(taken.code).toBe(0);
    expect(await owner()).toBeUndefined();
    // One on another host is never judged gone.
    await withHomeStore(home, (store) => store.takeOverBatch(batchId, { pid: 1, host: 'another-host' }, undefined));
    const elsewhere = await cli(['exec', '--resume', batchId, '--home', home]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('is being run by process 1 on another-host');
    await withHomeStore(home, (store) => store.releaseBatch(batchId, { pid: 1, host: 'another-host' }));

    writeFileSync(inputs, `${JSON.stringify({ id: 1, input: { tag: 'a', n: 2 } })}\n`);
    const casesChanged = await cli(['exec', '--resume', batchId, '--home', home]);
    expect(casesChanged.code).toBe(2);
    expect(casesChanged.stderr).toMatch(/cases file .* changed since the batch started/);
    writeFileSync(inputs, `${JSON.stringify({ id: 1, input: { tag: 'a', n: 1 } })}\n`);
    writeFileSync(workflow, readFileSync(WORKFLOW, 'utf8').replace('inputs.n * 2', 'inputs.n * 3'));
    const workflowChanged = await cli(['exec', '--resume', batchId, '--home', home]);
    expect(workflowChanged.code).toBe(2);
    expect(workflowChanged.stderr).toMatch(/workflow file .* changed since the batch started/);

    const unknown = await cli(['exec', '--resume', 'b-nope', '--home', home]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no batch b-nope');
    const traversal = await cli(['exec', '--resume', '../x', '--home', home]);
    expect(traversal.code).toBe(2);
    expect(traversal.stderr).toContain('Invalid batch id');
  });

  it('refuses mixed flags: --input with --inputs, batch flags without --inputs, FILE with --resume', async () => {
    const home = tempHome();
    const inputs = casesFile(home, [{ id: 1, input: { tag: 'a', n: 1 } }]);
    const both = await cli([...batchArgs(home, inputs), '--input', '{}']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
    const stray = await cli(['exec', WORKFLOW, '--tools', TOOLS, '--input', '{"tag":"a","n":1}', '--out', 'x.jsonl']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('--out is for a batch');
    const resumeWithFile = await cli(['exec', WORKFLOW, '--resume', 'b-x', '--home', home]);
    expect(resumeWithFile.code).toBe(2);
    const overwrite = await cli([...batchArgs(home, inputs), '--out', inputs]);
    expect(overwrite.code).toBe(2);
    expect(overwrite.stderr).toContain("is the batch's own input");
    expect(readFileSync(inputs, 'utf8')).toContain('"tag":"a"');
    const zero = await cli([...batchArgs(home, inputs), '--concurrency', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--concurrency');
  });
});

describe('weft exec --inputs with its stdout closed', () => {
  it('finishes the batch and records every result when the reader has gone (EPIPE)', async () => {
    const home = tempHome();
    const inputs = casesFile(home, [
      { id: 1, input: { tag: 'a', n: 1 } },
      { id: 2, input: { tag: 'b', n: 2 } },
    ]);
    const closed = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const stderr = new Capture();
    const code = await main(batchArgs(home, inputs), { stdout: closed, stderr });
    expect(code).toBe(0);
    const [batch] = await homeBatches(home);
    const log = await batchLog(home, batch?.batchId as string);
    expect(log.filter((record) => record.type === 'case-end')).toHaveLength(2);
  });
});

describe('the batch progress bar', () => {
  it('redraws one line on a TTY and writes nothing elsewhere', async () => {
    const tty = Object.assign(new Capture(), { isTTY: true, columns: 120 });
    const view = createBatchProgress(tty);
    view.update({ done: 5, total: 10, passed: 4, failed: 1, errors: 0 });
    view.close();
    expect(tty.text).toMatch(/^\r\u001b\[2K\[#{12}\.{12}\] 5\/10 · 4 passed · 1 failed · 0 errors · \d+ cases\/s\n$/);
    const pipe = new Capture();
    const quiet = createBatchProgress(pipe);
    quiet.update({ done: 5, total: 10, passed: 5, failed: 0, errors: 0 });
    quiet.close();
    expect(pipe.text).toBe('');
  });
});
