import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluatePredictions } from '../../src/eval/evaluate.js';
import { loadGold, type GoldRecord } from '../../src/eval/gold-data.js';
import { parsePredictions, type Prediction } from '../../src/eval/predictions-file.js';
import { similarityFromFunction } from '../../src/eval/similarity.js';
import { GOLD_DIR } from './gold-path.js';

/** 1 for equal texts, else 0: the tests are about the bookkeeping, not the similarity model. */
const exact = similarityFromFunction('exact text', (a, b) => (a === b ? 1 : 0));

const golds = await Promise.all(
  ['os.json', 'webshop.json', 'lumos.json'].map((file) => loadGold(join(GOLD_DIR, file))),
);
const [os, webshop, lumos] = golds.map((records) => records.slice(0, 3)) as [GoldRecord[], GoldRecord[], GoldRecord[]];
const gold = [...os, ...webshop, ...lumos];

function predictionsOf(lines: readonly unknown[]): ReturnType<typeof parsePredictions> {
  return parsePredictions(
    lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'),
    'p.jsonl',
  );
}

describe('evaluatePredictions', () => {
  it('scores gold against itself as 1, and averages overall, by scenario and by source', async () => {
    const { predictions } = predictionsOf(
      [...os, ...webshop].map((record) => ({ id: record.id, output: record.answer })),
    );
    const report = await evaluatePredictions({ gold, predictions, similarity: exact });
    expect(report).toMatchObject({
      count: 6,
      skipped: 0,
      f1_chain: 1,
      f1_graph: 1,
      byScenario: { embodied: { count: 6, f1_chain: 1, f1_graph: 1 } },
      bySource: { os: { count: 3, f1_chain: 1, f1_graph: 1 }, webshop: { count: 3, f1_chain: 1, f1_graph: 1 } },
      similarity: 'exact text',
      beta: 0.6,
      maxOrders: 20,
      skips: [],
      missing: 3,
      withSkipsAsZero: { count: 6, f1_chain: 1, f1_graph: 1 },
      mcisTimeLimitHits: [],
    });
    expect(report.samples[0]).toMatchObject({
      id: os[0]!.id,
      f1_chain: 1,
      f1_graph: 1,
      p_chain: 1,
      r_chain: 1,
      p_graph: 1,
      r_graph: 1,
      scenario: 'embodied',
      source: 'os',
      line: 1,
      mcisExact: true,
      goldNodes: os[0]!.workflow.nodes.length,
      predictedNodes: os[0]!.workflow.nodes.length,
    });
  });

  it('skips unusable lines with located reasons, scores the rest, and counts the skips as 0 in withSkipsAsZero', async () => {
    const lines: unknown[] = [
      { id: os[0]!.id, output: os[0]!.answer }, // 1 scored
      { id: os[1]!.id, output: '' }, // 2 empty
      'not json', // 3
      { id: os[2]!.id, output: 'I would open the door and walk in.' }, // 4 no Node section
      { id: webshop[0]!.id, output: 'Node:\n1: search\n2: buy\nEdge: (START,1) (1,2) (2,3) (2,END)' }, // 5 unknown node
      { id: webshop[1]!.id, output: 'Node:\n1: search\n2: buy\nEdge: (START,1) (1,2) (2,1) (2,END)' }, // 6 cyclic
      { id: 'nobody_1', output: os[0]!.answer }, // 7 unknown id
      { id: os[0]!.id, output: os[0]!.answer }, // 8 duplicate
      '', // 9 blank, ignored
      { id: lumos[0]!.id, output: 42 }, // 10 non-string output, but a known id
      { id: webshop[2]!.id, output: 'Node:\n1: something else entirely\nEdge: (START,1) (1,END)' }, // 11 scored, 0
    ];
    const read = predictionsOf(lines);
    const report = await evaluatePredictions({
      gold,
      predictions: read.predictions,
      skipped: read.skipped,
      similarity: exact,
      file: 'p.jsonl',
    });
    expect(report.count).toBe(2);
    expect(report.samples.map((sample) => [sample.id, sample.line, sample.f1_graph])).toEqual([
      [os[0]!.id, 1, 1],
      [webshop[2]!.id, 11, 0],
    ]);
    expect(report.skipped).toBe(8);
    expect(report.skips.map(({ line, problem }) => [line, problem])).toEqual([
      [2, 'empty'],
      [3, 'not-json'],
      [4, 'no-nodes'],
      [5, 'unknown-node'],
      [6, 'cycle'],
      [7, 'unknown-id'],
      [8, 'duplicate-id'],
      [10, 'bad-output'],
    ]);
    const reason = (line: number) => report.skips.find((skip) => skip.line === line)!.reason;
    expect(reason(2)).toBe('p.jsonl:2 output: the workflow text is empty');
    expect(reason(5)).toMatch(/^p\.jsonl:5 output: edge \(2,3\) names node 3.* \(line 4, column \d+ of the output\)$/);
    expect(reason(6)).toMatch(/^p\.jsonl:6 output: .*cycle.*1 -> 2 -> 1/);
    expect(reason(7)).toBe('p.jsonl:7 id: no gold record with id "nobody_1"');
    expect(reason(8)).toBe(`p.jsonl:8 id: duplicate id "${os[0]!.id}": line 1 already has a prediction for it`);
    expect(report.f1_graph).toBe(0.5);
    // os_1, os_2, webshop_0, webshop_1 and lumos_0 had only skipped lines: 2 scored + 5 zeros.
    expect(report.withSkipsAsZero).toEqual({ count: 7, f1_chain: report.samples[0]!.f1_chain / 7, f1_graph: 1 / 7 });
    // Gold records no line names: lumos 1 and 2.
    expect(report.missing).toBe(2);
  });

  it('says why generation failed when the benchmark recorded an error', async () => {
    const { predictions } = predictionsOf([{ id: os[0]!.id, output: '', error: 'timed out after 300 s' }]);
    const report = await evaluatePredictions({ gold, predictions, similarity: exact });
    expect(report.skips[0]!.reason).toBe(
      'line 1 output: the workflow text is empty (generation failed: timed out after 300 s)',
    );
  });

  it('reports means of 0 and empty groups when nothing could be scored', async () => {
    const report = await evaluatePredictions({ gold, predictions: [], similarity: exact });
    expect(report).toMatchObject({
      count: 0,
      skipped: 0,
      f1_chain: 0,
      f1_graph: 0,
      byScenario: {},
      bySource: {},
      missing: 9,
      withSkipsAsZero: { count: 0, f1_chain: 0, f1_graph: 0 },
    });
  });

  it('groups a source outside the four scenarios under its own name', async () => {
    const custom: GoldRecord = { ...os[0]!, id: 'mybench_1', source: 'mybench', scenario: undefined };
    const predictions: Prediction[] = [
      { id: 'mybench_1', output: os[0]!.answer, line: 1 },
      { id: lumos[0]!.id, output: lumos[0]!.answer, line: 2 },
    ];
    const report = await evaluatePredictions({ gold: [custom, ...lumos], predictions, similarity: exact });
    expect(Object.keys(report.byScenario)).toEqual(['problem-solving', 'mybench']);
    expect(report.samples.map((sample) => sample.scenario)).toEqual(['mybench', 'problem-solving']);
  });

  it('keeps samples in file order whatever order the similarity answers in, and reports progress', async () => {
    let calls = 0;
    const slowFirst = {
      name: 'delayed exact',
      kind: 'embedding' as const,
      async matrix(rows: readonly string[], columns: readonly string[]) {
        // Earlier calls wait longer, so later samples finish first.
        const delay = 20 - 2 * calls++;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, delay)));
        return rows.map((a) => columns.map((b) => (a === b ? 1 : 0)));
      },
    };
    const records = [...os, ...webshop, ...lumos];
    const predictions = records.map((record, index) => ({ id: record.id, output: record.answer, line: index + 1 }));
    const progress: [number, number][] = [];
    const report = await evaluatePredictions({
      gold,
      predictions,
      similarity: slowFirst,
      concurrency: 4,
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(report.samples.map((sample) => sample.id)).toEqual(records.map((record) => record.id));
    expect(progress).toEqual(records.map((_, index) => [index + 1, 9]));
  });

  it('asks an embedding similarity for every distinct text once before scoring, so it can batch them', async () => {
    const calls: [number, number][] = [];
    const embedding = {
      name: 'recording',
      kind: 'embedding' as const,
      async matrix(rows: readonly string[], columns: readonly string[]) {
        calls.push([rows.length, columns.length]);
        return rows.map((a) => columns.map((b) => (a === b ? 1 : 0)));
      },
    };
    const predictions = os.map((record, index) => ({ id: record.id, output: record.answer, line: index + 1 }));
    const report = await evaluatePredictions({ gold, predictions, similarity: embedding });
    const distinct = new Set(os.flatMap((record) => record.workflow.nodes));
    expect(calls[0]).toEqual([distinct.size, 0]);
    expect(calls).toHaveLength(1 + os.length);
    expect(report.f1_graph).toBe(1);
    // A lexical similarity needs no such pass.
    calls.length = 0;
    await evaluatePredictions({ gold, predictions, similarity: { ...embedding, kind: 'lexical' as const } });
    expect(calls).toHaveLength(os.length);
  });

  it('passes β and the order limit to the scorer and reports them', async () => {
    const half = similarityFromFunction('half', (a, b) => (a === b ? 0.5 : 0));
    const predictions = [{ id: os[0]!.id, output: os[0]!.answer, line: 1 }];
    const strict = await evaluatePredictions({ gold, predictions, similarity: half });
    expect(strict.f1_graph).toBe(0);
    const lenient = await evaluatePredictions({
      gold,
      predictions,
      similarity: half,
      options: { beta: 0.5, maxOrders: 3 },
    });
    expect(lenient).toMatchObject({ f1_graph: 1, beta: 0.5, maxOrders: 3 });
  });

  it.each([0, 2.5])('rejects concurrency %s as every engine does, before scoring anything', async (concurrency) => {
    let calls = 0;
    const counting = similarityFromFunction('counting', (a, b) => (calls++, a === b ? 1 : 0));
    const predictions = [{ id: os[0]!.id, output: os[0]!.answer, line: 1 }];
    // A good concurrency scores, and so asks the similarity: the count below can tell.
    await evaluatePredictions({ gold, predictions, similarity: counting, concurrency: 1 });
    expect(calls).toBeGreaterThan(0);
    calls = 0;
    await expect(evaluatePredictions({ gold, predictions, similarity: counting, concurrency })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: `concurrency expects an integer >= 1, got ${concurrency}`,
      location: { field: 'concurrency' },
    });
    expect(calls).toBe(0);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const predictions = [{ id: os[0]!.id, output: os[0]!.answer, line: 1 }];
    await expect(
      evaluatePredictions({ gold, predictions, similarity: exact, signal: controller.signal }),
    ).rejects.toThrow('cancelled');
  });
});
