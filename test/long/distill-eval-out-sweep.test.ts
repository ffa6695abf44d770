/**
 * `weft distill eval --out` over the whole shipped suite, every variant, two rollouts, the `all` selection and a
 * sim that errs (graph mistakes and given-up rollouts): every task run's files are there and read back — the
 * traces as `weft distill --traces` reads them, the workflow as `weft exec` loads it (a finished one) or as JSON (a
 * partial one), the tests as a batch's cases — every results line agrees with the report, and the report is one
 * the dashboard shows. In npm run test:long (about half a minute).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BusinessApi, startBusinessApi } from '../../examples/business-api/business-api.js';
import { scanBatchCases } from '../../src/distill/batch-cases.js';
import { readTracesFile } from '../../src/distill/read-traces-file.js';
import { loadWorkflowFile } from '../../src/distill/read-workflow-file.js';
import { readEvalReport } from '../../src/ui/eval-report-file.js';
import { cli, tempHome } from '../cli/cli-harness.js';

let api: BusinessApi;
beforeAll(async () => {
  api = await startBusinessApi({ port: 0 });
});
afterAll(async () => api?.close());

describe('weft distill eval --out over the whole suite', () => {
  it('keeps every task run of every variant, and every file reads back', async () => {
    const home = tempHome();
    const out = join(home, 'kept');
    const result = await cli(
      [
        'distill',
        'eval',
        '--suite',
        'examples/distill-suite',
        '--variant',
        'all',
        '--rollouts',
        '2',
        '--selection',
        'all',
        '--model',
        'sim:seed=4,mistake=0.1,solvefail=0.1',
        '--out',
        out,
        '--home',
        home,
        '--json',
      ],
      { BUSINESS_API_URL: api.url },
    );
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.tasks).toHaveLength(30 * 4);
    expect(readEvalReport(readFileSync(join(out, 'report.json'), 'utf8'), 'report.json')).toMatchObject({
      report: { kind: 'distill-eval' },
    });
    for (const task of report.tasks) {
      const where = `${task.task} (${task.variant})`;
      const at = (file: string) => join(out, file);
      const traces = await readTracesFile(at(task.files.traces));
      const baseline = task.variant === 'react' || task.variant === 'pe';
      expect(traces.length, where).toBe(baseline ? 1 : task.trainInputs * 2);
      expect(traces.filter((trace) => trace.success).length, where).toBe(task.successfulTraces);
      if (!baseline) {
        // `all`: the summarizer got every trace.
        const selected = await readTracesFile(at(task.files.selectedTraces));
        expect(
          selected.map((trace) => trace.traceId),
          where,
        ).toEqual(traces.map((trace) => trace.traceId));
      }
      if (task.finished) await loadWorkflowFile(at(task.files.workflow));
      else if (task.files.workflow)
        expect(JSON.parse(readFileSync(at(task.files.workflow), 'utf8')).nodes, where).toBeInstanceOf(Array);
      expect((await scanBatchCases(at(task.files.tests))).cases, where).toBe(task.tests);
      const results = readFileSync(at(task.files.results), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(results.filter((entry) => entry.ok).length, where).toBe(task.passed);
      expect(existsSync(at(task.files.summary)), where).toBe(true);
    }
  });
});
