/**
 * The dashboard's reader of eval reports (pure): each kind Weft writes is recognised and drawn as tables and
 * histograms; anything else is a problem with its place, never an exception.
 */
import { describe, expect, it } from 'vitest';
import { histogram, MAX_ROWS, readEvalReport, type ShownReport } from '../../src/ui/eval-report-file.js';

const report = (value: unknown): ShownReport => {
  const read = readEvalReport(JSON.stringify(value, null, 2), 'r.json');
  if (!('report' in read)) throw new Error(read.problem);
  return read.report;
};
const problem = (text: string): string => {
  const read = readEvalReport(text, 'r.json');
  if (!('problem' in read)) throw new Error(`read as ${read.report.kind}`);
  return read.problem;
};

const worfeval = {
  count: 3,
  skipped: 1,
  f1_chain: 0.5,
  f1_graph: 0.4,
  byScenario: {
    embodied: { count: 2, f1_chain: 0.75, f1_graph: 0.6 },
    'function call': { count: 1, f1_chain: 0, f1_graph: 0 },
  },
  samples: [
    { id: 'a', f1_chain: 1, f1_graph: 0.8, scenario: 'embodied' },
    { id: 'b', f1_chain: 0.5, f1_graph: 0.4, scenario: 'embodied' },
    { id: 'c', f1_chain: 0, f1_graph: 0, scenario: 'function call' },
  ],
};

describe('eval reports for the dashboard', () => {
  it('bins scores in [0, 1]: 1 in the last bin, values outside clamped, NaN left out', () => {
    expect(histogram([0, 0.05, 0.1, 0.99, 1, 1.5, -2, Number.NaN], 10)).toEqual([3, 1, 0, 0, 0, 0, 0, 0, 0, 3]);
  });

  it('reads weft eval --json: per-scenario table, samples and F1 histograms', () => {
    const shown = report(worfeval);
    expect(shown.kind).toBe('worfeval');
    expect(shown.tables[0]).toEqual({
      title: 'By scenario',
      columns: ['scenario', 'count', 'f1 chain', 'f1 graph'],
      rows: [
        ['embodied', 2, 0.75, 0.6],
        ['function call', 1, 0, 0],
      ],
    });
    expect(shown.histograms[0]!.series.map((series) => series.counts)).toEqual([
      [1, 0, 0, 0, 0, 1, 0, 0, 0, 1],
      [1, 0, 0, 0, 1, 0, 0, 0, 1, 0],
    ]);
  });

  it('reads weft bench worfbench --json (scored and cancelled), two-workflow eval, team, dialog and distill evals', () => {
    expect(report({ planner: 'single', model: 'sim', records: 3, report: worfeval }).kind).toBe('worfbench');
    const cancelled = report({ planner: 'weft', report: null });
    expect(cancelled.title).toMatch(/cancelled/);
    expect(cancelled.tables).toEqual([]);
    const pair = report({
      gold: { name: 'g' },
      predicted: { name: 'p' },
      f1_chain: 1,
      p_chain: 1,
      r_chain: 1,
      f1_graph: 0.5,
      p_graph: 0.5,
      r_graph: 0.5,
    });
    expect(pair.tables[0]!.rows).toEqual([
      ['chain', 1, 1, 1],
      ['graph', 0.5, 0.5, 0.5],
    ]);
    const team = report({
      team: 'trio',
      accuracy: 0.5,
      correct: 1,
      total: 2,
      perItem: [
        { id: 'q1', correct: true, answer: '4', expected: '4', calls: 3, stopReason: 'consensus' },
        { id: 'q2', correct: false, answer: '', expected: '5', calls: 0, stopReason: 'failed', error: 'boom' },
      ],
    });
    expect(team.tables[0]!.rows[1]).toEqual(['q2', 'no', '', '5', 0, 'failed: boom']);
    const summary = {
      turns: 4,
      errors: 0,
      passRate: 0.75,
      toolTurns: 0,
      tool: { precision: 1, recall: 1, f1: 1 },
      params: { precision: 1, recall: 1, f1: 1 },
    };
    const dialog = report({ procedure: 'Refund', ...summary, byOow: { none: summary, oow: { ...summary, turns: 0 } } });
    // No tool turns: the tool scores are not applicable, shown empty rather than as a perfect 1.
    expect(dialog.tables[0]!.rows[0]).toEqual(['all', 4, 0.75, 0, null, null, null, null]);
    const distill = report({
      suite: 's.yaml',
      variants: [{ variant: 'single', tasks: 2, correct: 1, caseRate: 0.5, tests: 4, passed: 3, testPassRate: 0.75 }],
      tasks: [
        { task: 't1', variant: 'single', tests: 2, passed: 2, passRate: 1, correct: true },
        { task: 't2', variant: 'single', tests: 2, passed: 1, passRate: 0.5, correct: false },
      ],
    });
    expect(distill.histograms[0]!.series).toEqual([{ name: 'single', counts: [0, 0, 0, 0, 0, 1, 0, 0, 0, 1] }]);
  });

  it('gives a two-workflow eval and a distill eval numbers of their own, which the reports list shows', () => {
    // These two kinds kept their scores only in tables, so their row in the reports list had no numbers.
    const numbers = (shown: ShownReport) => shown.stats.filter((stat) => typeof stat.value === 'number');
    const pair = report({
      gold: { name: 'g' },
      predicted: { name: 'p' },
      f1_chain: 0.8333333,
      p_chain: 1,
      r_chain: 0.7142857,
      f1_graph: 0.5,
      p_graph: 0.5,
      r_graph: 0.5,
    });
    expect(numbers(pair)).toEqual([
      { label: 'f1 chain', value: 0.833 },
      { label: 'f1 graph', value: 0.5 },
    ]);
    const distill = report({
      suite: 's.yaml',
      variants: [],
      tasks: [
        { task: 't1', variant: 'pe', tests: 2, passed: 2, passRate: 1, correct: true },
        { task: 't1', variant: 'react', tests: 2, passed: 1, passRate: 0.5, correct: false },
        { task: 't2', variant: 'pe', tests: 3, passed: 0, passRate: 0, correct: false },
      ],
    });
    expect(numbers(distill)).toEqual([
      { label: 'task runs', value: 3 },
      { label: 'correct', value: 1 },
      { label: 'test pass rate', value: 0.429 },
    ]);
    // No tests at all: no rate made up from 0 / 0.
    const empty = report({ suite: 's.yaml', variants: [], tasks: [] });
    expect(empty.stats.map((stat) => stat.label)).toEqual(['suite', 'task runs', 'correct']);
  });

  it('cuts long tables and says how many rows are left out', () => {
    const samples = Array.from({ length: MAX_ROWS + 7 }, (_, index) => ({ id: `s${index}`, f1_chain: 1, f1_graph: 1 }));
    const shown = report({ ...worfeval, samples });
    expect(shown.tables[1]!.rows).toHaveLength(MAX_ROWS);
    expect(shown.tables[1]!.more).toBe(7);
    expect(shown.histograms[0]!.series[0]!.counts[9]).toBe(MAX_ROWS + 7);
  });

  it('names the place of a problem: not JSON, not a report, a bad field; deep nesting is no crash', () => {
    expect(problem('{\n  "count": 1,\n  oops\n}')).toMatch(/^r\.json:3:3: not JSON/);
    expect(problem('[1, 2]')).toMatch(/not a report Weft knows/);
    expect(problem('"text"')).toMatch(/not a report Weft knows/);
    expect(problem('{"hello": 1}')).toMatch(/expected the --json of weft eval/);
    const bad = JSON.stringify({ ...worfeval, samples: [{ id: 'a', f1_chain: 'high', f1_graph: 1 }] }, null, 2);
    expect(problem(bad)).toMatch(/^r\.json:\d+:\d+ samples\[0\]\.f1_chain: /);
    const deep = `{"count": 1, "f1_chain": 1, "f1_graph": 1, "byScenario": ${'['.repeat(50_000)}${']'.repeat(50_000)}, "samples": []}`;
    expect(problem(deep)).toMatch(/byScenario/);
  });
});
