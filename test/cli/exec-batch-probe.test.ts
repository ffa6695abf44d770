/**
 * Probes of `weft exec --inputs`: what a kill leaves behind (cases started without a result, results in the
 * store but not yet in --out), --out at the batch's own files by another spelling, and workflows whose JSONata
 * never ends.
 */
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchLog, cutBatchLog, homeBatches, withHomeStore } from './batch-store-harness.js';
import { cli, tempHome } from './cli-harness.js';

const FIXTURES = new URL('../fixtures/workflows/batch/', import.meta.url).pathname;
const WORKFLOW = join(FIXTURES, 'batch.workflow.json');
const TOOLS = join(FIXTURES, 'tools.yaml');

function tenCases(home: string): string {
  const file = join(home, 'cases.jsonl');
  const lines = Array.from({ length: 10 }, (_, i) => JSON.stringify({ id: `c${i}`, input: { tag: `c${i}`, n: i } }));
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
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

/** Keeps the records of c0-c5 only, as a kill after c5 would leave them. */
function rewindLog(home: string, batchId: string): Promise<void> {
  return cutBatchLog(home, batchId, (record) => Number(String(record.id).slice(1)) < 6);
}

describe('weft exec --resume after a kill', () => {
  it('records a start for every case the resume runs, before its result', async () => {
    const home = tempHome();
    const inputs = tenCases(home);
    const created = await cli(batchArgs(home, inputs, '--json', '--concurrency', '1'));
    expect(created.code).toBe(0);
    const { batchId } = JSON.parse(created.stdout) as { batchId: string };
    await rewindLog(home, batchId);
    const resumed = await cli(['exec', '--resume', batchId, '--home', home, '--json']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ passed: 10 });
    // Every case run by the resume has one start record, before its result: a second kill would find them
    // started, not run them again.
    const log = (await batchLog(home, batchId)).map((record) => `${record.type} ${record.id}`);
    for (const id of ['c6', 'c7', 'c8', 'c9']) {
      expect(
        log.filter((entry) => entry === `case-start ${id}`),
        id,
      ).toHaveLength(1);
      expect(log.indexOf(`case-start ${id}`), id).toBeLessThan(log.indexOf(`case-end ${id}`));
    }
  });

  it('--out lists every result exactly once even when the kill lost results the log already had', async () => {
    const home = tempHome();
    const inputs = tenCases(home);
    const out = join(home, 'results.jsonl');
    const created = await cli(batchArgs(home, inputs, '--json', '--concurrency', '1', '--out', out));
    expect(created.code).toBe(0);
    const { batchId } = JSON.parse(created.stdout) as { batchId: string };
    await rewindLog(home, batchId);
    // The log had c0-c5's results; --out got only c0-c2 before the kill (its writes lag the log's), and a torn line.
    const results = readFileSync(out, 'utf8').trim().split('\n');
    writeFileSync(out, `${results.slice(0, 3).join('\n')}\n{"id":"c3","ou`);
    const resumed = await cli(['exec', '--resume', batchId, '--home', home, '--json']);
    expect(resumed.code).toBe(0);
    const ids = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids.sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']);
  });
});

describe('weft exec --out at the wrong place', () => {
  it('refuses --out at the cases file through a hard link or a symlink, and at a directory, before any batch starts', async () => {
    const home = tempHome();
    const inputs = tenCases(home);
    const before = readFileSync(inputs, 'utf8');
    const hard = join(home, 'hard.jsonl');
    linkSync(inputs, hard);
    const soft = join(home, 'soft.jsonl');
    symlinkSync(inputs, soft);
    const spelled = join(home, '.', 'sub', '..', 'cases.jsonl');
    mkdirSync(join(home, 'sub'));
    for (const out of [hard, soft, spelled, join(home, 'sub'), join(home, 'missing', 'r.jsonl')]) {
      const result = await cli(batchArgs(home, inputs, '--out', out));
      expect(result.code, out).toBe(2);
      expect(result.stderr, out).toMatch(/--out/);
    }
    expect(readFileSync(inputs, 'utf8')).toBe(before);
    // No batch was left behind by the refused runs.
    const listed = await cli(['exec', '--resume', 'nothing', '--home', home]);
    expect(listed.code).toBe(2);
    expect(await homeBatches(home)).toEqual([]);
  });
});

describe('weft exec --workers with a bad Redis URL', () => {
  it('never shows the password, and leaves no batch behind', async () => {
    const home = tempHome();
    const inputs = tenCases(home);
    for (const url of [
      'redis://user:s3cretpw@127.0.0.1:1',
      'redis://u:s3cret%40pw@[::1',
      'redis://u:s3cret/pw@127.0.0.1:6379',
      'redis://u:s3cretpw@127.0.0.1:notaport',
      'http://u:s3cretpw@127.0.0.1:1',
      'redis://u:s3cretpw@127.0.0.1:1/db',
    ]) {
      const result = await cli(batchArgs(home, inputs, '--workers', url));
      expect(result.code, url).toBe(2);
      expect(result.stderr, url).toContain('--workers');
      expect(`${result.stdout}${result.stderr}`, url).not.toMatch(/s3cret/);
    }
    expect(await homeBatches(home)).toEqual([]);
  });
});

describe('cases files with odd bytes', () => {
  it('refuses a line that is not UTF-8 (it was decoded into U+FFFD silently), and takes CRLF and a BOM', async () => {
    const home = tempHome();
    const bad = join(home, 'bad.jsonl');
    writeFileSync(
      bad,
      Buffer.concat([
        Buffer.from('{"id":1,"input":{"tag":"a","n":1}}\n{"id":2,"input":{"tag":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('","n":2}}\n'),
      ]),
    );
    const refused = await cli(batchArgs(home, bad));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/bad\.jsonl:2.*not UTF-8/);
    const odd = join(home, 'odd.jsonl');
    writeFileSync(odd, '\uFEFF{"id":1,"input":{"tag":"é","n":1}}\r\n{"id":"1.0","input":{"tag":"b","n":2}}\r\n');
    const taken = await cli(batchArgs(home, odd, '--json'));
    expect(taken.code).toBe(0);
    expect(JSON.parse(taken.stdout)).toMatchObject({ cases: 2, passed: 2 });
  });
});

describe('a case whose output is huge', () => {
  it('is the error OUTPUT_TOO_LARGE, not a line of megabytes in the log, --out and the summary', async () => {
    const home = tempHome();
    const workflow = join(home, 'huge.workflow.json');
    writeFileSync(
      workflow,
      JSON.stringify({
        name: 'huge',
        inputs: { n: { type: 'integer' } },
        nodes: [
          { id: 'start', kind: 'start' },
          { id: 'end', kind: 'end', output: "{% $pad('', inputs.n, 'x') %}" },
        ],
        edges: [{ from: 'start', to: 'end' }],
      }),
    );
    const inputs = join(home, 'cases.jsonl');
    writeFileSync(inputs, '{"id":"small","input":{"n":3}}\n{"id":"big","input":{"n":2000000}}\n');
    const out = join(home, 'results.jsonl');
    const result = await cli(['exec', workflow, '--inputs', inputs, '--home', home, '--out', out, '--json']);
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.stdout) as { results: { id: string; error?: { code: string } }[] };
    expect(summary.results.find((entry) => entry.id === 'big')?.error?.code).toBe('OUTPUT_TOO_LARGE');
    expect(summary.results.find((entry) => entry.id === 'small')).toMatchObject({ output: 'xxx', ok: true });
    expect(readFileSync(out, 'utf8').length).toBeLessThan(10_000);
  });
});

describe('weft exec --concurrency out of range', () => {
  it('refuses more than 10,000 (a hundred million ground the process for minutes) and takes one above the number of cases', async () => {
    const home = tempHome();
    const inputs = tenCases(home);
    const huge = await cli(batchArgs(home, inputs, '--concurrency', '100000000'));
    expect(huge.code).toBe(2);
    expect(huge.stderr).toContain('--concurrency expects at most 10000');
    const wide = await cli(batchArgs(home, inputs, '--concurrency', '10000', '--json'));
    expect(wide.code).toBe(0);
    expect(JSON.parse(wide.stdout)).toMatchObject({ cases: 10, passed: 10 });
  });
});

describe('weft exec --resume of a damaged batch', () => {
  it('refuses a stored manifest that is not one of this version, naming the store, not a stack trace', async () => {
    const home = tempHome();
    const inputs = tenCases(home);
    const created = await cli(batchArgs(home, inputs, '--json'));
    const { batchId } = JSON.parse(created.stdout) as { batchId: string };
    for (const manifest of [{ version: 1, batchId }, { version: 2 }, { ...{ version: 1 }, batchId: 'b-other' }]) {
      await withHomeStore(home, async (store) => {
        await store.deleteBatch(batchId);
        await store.createBatch({ batchId, manifest });
      });
      const text = JSON.stringify(manifest);
      const resumed = await cli(['exec', '--resume', batchId, '--home', home]);
      expect(resumed.code, text).toBe(2);
      expect(resumed.stderr, text).toContain(
        `the manifest of batch ${batchId} in ${join(home, 'weft.db')} is not a batch manifest of this version of Weft`,
      );
      expect(resumed.stderr, text).not.toMatch(/TypeError|SyntaxError| {4}at /);
    }
  });
});
