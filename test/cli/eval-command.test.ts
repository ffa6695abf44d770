/** `weft eval` end to end (in-process): real gold answers as predictions, broken lines, flags and exit codes. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvalReport } from '../../src/eval/eval-report.js';
import { GOLD_DIR, goldSets, loadGoldAnswers } from '../eval/gold-path.js';
import { cli } from './cli-harness.js';

interface RawRecord {
  readonly id: string;
  readonly conversations: readonly { readonly role: string; readonly content: string }[];
}

const answerOf = (record: RawRecord): string => record.conversations.at(-1)!.content;
const firstRecords = (file: string, count: number): RawRecord[] =>
  (JSON.parse(readFileSync(join(GOLD_DIR, file), 'utf8')) as RawRecord[]).slice(0, count);

/** A temp folder with the first five records of os.json (as JSON) and of webshop.json (as JSONL), and a README. */
function goldSubset(): { dir: string; os: RawRecord[]; webshop: RawRecord[] } {
  const dir = mkdtempSync(join(tmpdir(), 'weft-eval-gold-'));
  const os = firstRecords('os.json', 5);
  const webshop = firstRecords('webshop.json', 5);
  writeFileSync(join(dir, 'os.json'), JSON.stringify(os, null, 1));
  writeFileSync(join(dir, 'webshop.jsonl'), webshop.map((record) => JSON.stringify(record)).join('\n'));
  writeFileSync(join(dir, 'README.md'), 'not data');
  return { dir, os, webshop };
}

function writeLines(lines: readonly unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'weft-eval-')), 'predictions.jsonl');
  writeFileSync(file, `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`);
  return file;
}

/** Six gold answers, a blank line, then five lines that cannot be scored (lines 8 to 12). */
function mixedPredictions(os: RawRecord[], webshop: RawRecord[]): string {
  const as = (record: RawRecord) => ({ id: record.id, output: answerOf(record) });
  return writeLines([
    as(os[0]!),
    as(os[1]!),
    as(os[2]!),
    '',
    as(webshop[0]!),
    as(webshop[1]!),
    as(webshop[2]!),
    { id: os[3]!.id, output: '' },
    { id: os[4]!.id, output: 'First I would list the files, then count the words.' },
    { id: webshop[3]!.id, output: 'Node:\n1: search for the item\n2: buy it\nEdge: (START,1) (1,2) (2,7) (2,END)' },
    { id: webshop[4]!.id, output: 'Node:\n1: search for the item\n2: buy it\nEdge: (START,1) (1,2) (2,1) (2,END)' },
    '{"id": "os_1", "output": ',
  ]);
}

describe('weft eval', () => {
  it('scores gold answers as 1, skips the broken lines with their line numbers, and prints the similarity first', async () => {
    const { dir, os, webshop } = goldSubset();
    const predictions = mixedPredictions(os, webshop);
    const result = await cli(['eval', predictions, '--gold', dir]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^similarity: lexical/);
    expect(result.stdout).toMatch(/^embodied\s+6\s+1\.0000\s+1\.0000$/m);
    expect(result.stdout).toMatch(/^os\s+3\s+1\.0000\s+1\.0000$/m);
    expect(result.stdout).toMatch(/^webshop\s+3\s+1\.0000\s+1\.0000$/m);
    expect(result.stdout).toContain('6 scored · 5 skipped · 0 gold records without a prediction');
    expect(result.stdout).toContain(
      'f1_chain 0.6000 · f1_graph 0.6000 counting the 4 gold records with only skipped predictions as 0',
    );
    for (const line of [8, 9, 10, 11, 12]) expect(result.stdout).toContain(`${predictions}:${line}`);
  });

  it('prints exactly the report with --json', async () => {
    const { dir, os, webshop } = goldSubset();
    const predictions = mixedPredictions(os, webshop);
    const result = await cli(['eval', predictions, '--gold', dir, '--json', '--beta', '0.7', '--max-orders', '5']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as EvalReport;
    expect(Object.keys(report)).toEqual([
      'count',
      'skipped',
      'f1_chain',
      'f1_graph',
      'byScenario',
      'samples',
      'similarity',
      'beta',
      'maxOrders',
      'mcisTimeLimitMs',
      'bySource',
      'skips',
      'missing',
      'withSkipsAsZero',
      'mcisTimeLimitHits',
    ]);
    expect(report).toMatchObject({
      count: 6,
      skipped: 5,
      f1_chain: 1,
      f1_graph: 1,
      byScenario: { embodied: { count: 6, f1_chain: 1, f1_graph: 1 } },
      bySource: { os: { count: 3, f1_chain: 1, f1_graph: 1 }, webshop: { count: 3, f1_chain: 1, f1_graph: 1 } },
      beta: 0.7,
      maxOrders: 5,
      missing: 0,
      withSkipsAsZero: { count: 10, f1_chain: 0.6, f1_graph: 0.6 },
      mcisTimeLimitHits: [],
    });
    expect(report.similarity).toMatch(/^lexical/);
    expect(report.samples.map((sample) => sample.id)).toEqual(
      [...os.slice(0, 3), ...webshop.slice(0, 3)].map((record) => record.id),
    );
    for (const sample of report.samples) {
      expect(sample).toMatchObject({ f1_chain: 1, f1_graph: 1, p_chain: 1, r_chain: 1, p_graph: 1, r_graph: 1 });
    }
    expect(report.skips.map((skip) => [skip.line, skip.problem])).toEqual([
      [8, 'empty'],
      [9, 'no-nodes'],
      [10, 'unknown-node'],
      [11, 'cycle'],
      [12, 'not-json'],
    ]);
    expect(report.skips[2]!.reason).toContain(`${predictions}:10 output: edge (2,7) names node 7`);
  });

  it.each(goldSets())('scores every gold record of a data folder ($name) against itself as 1', async (set) => {
    const records = loadGoldAnswers(set.dir);
    const predictions = writeLines(records.map((record) => ({ id: record.id, output: record.answer })));
    const result = await cli(['eval', predictions, '--gold', set.dir, '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as EvalReport;
    expect(report).toMatchObject({
      count: set.records,
      skipped: 0,
      missing: 0,
      f1_chain: 1,
      f1_graph: 1,
      mcisTimeLimitHits: [],
    });
    const counts = set.full ? [357, 776, 400, 213] : [19, 36, 18, 35];
    expect(report.byScenario).toEqual({
      'function call': { count: counts[0], f1_chain: 1, f1_graph: 1 },
      embodied: { count: counts[1], f1_chain: 1, f1_graph: 1 },
      'problem-solving': { count: counts[2], f1_chain: 1, f1_graph: 1 },
      'open-grounded': { count: counts[3], f1_chain: 1, f1_graph: 1 },
    });
  });

  describe('bad input exits with 2 and names the flag, file or line', () => {
    const gold = join(GOLD_DIR, 'os.json');
    const predictions = writeLines([]);

    it.each([
      [['--beta', '0'], '--beta'],
      [['--beta', '1.5'], '--beta'],
      [['--beta', 'high'], '--beta'],
      [['--max-orders', '0'], '--max-orders'],
      [['--max-orders', '2.5'], '--max-orders'],
      [['--mcis-time-limit', '-5'], '--mcis-time-limit'],
      [['--concurrency', '0'], '--concurrency'],
    ])('%j', async (flags, name) => {
      const result = await cli(['eval', predictions, '--gold', gold, ...flags]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(name);
    });

    it('a missing --gold', async () => {
      const result = await cli(['eval', predictions]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--gold is required');
    });

    it('a missing predictions file, with a JSON error document under --json', async () => {
      const missing = join(tmpdir(), 'weft-no-such-predictions.jsonl');
      const result = await cli(['eval', missing, '--gold', gold, '--json']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(missing);
      expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'BAD_INPUT', location: { file: missing } } });
    });

    it('a missing gold path', async () => {
      const missing = join(tmpdir(), 'weft-no-such-gold');
      const result = await cli(['eval', predictions, '--gold', missing]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(missing);
    });

    it('unusable gold, located by file, line and field', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'weft-eval-bad-gold-'));
      const file = join(dir, 'os.jsonl');
      writeFileSync(
        file,
        `${JSON.stringify(firstRecords('os.json', 1)[0])}\n${JSON.stringify({ id: 'os_2', conversations: 'none' })}\n`,
      );
      const result = await cli(['eval', predictions, '--gold', file]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          `${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+ conversations: expected an array, got a string`,
        ),
      );
    });

    it('an unknown similarity spec', async () => {
      const result = await cli(['eval', predictions, '--gold', gold, '--similarity', 'bogus:thing']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('bogus');
    });
  });
});
