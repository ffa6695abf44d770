/**
 * `weft distill eval`: its bad-input paths through the CLI's main in-process (exit 2, located), the stages not built
 * yet, and a whole run with fake stages through the command itself (table and --json).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distillEvalCommand } from '../../src/cli/distill/distill-eval-command.js';
import type { Output } from '../../src/cli/output.js';
import type { SuiteStagesFactory } from '../../src/distill/evaluate-suite.js';
import { readTracesFile } from '../../src/distill/read-traces-file.js';
import { readEvalReport } from '../../src/ui/eval-report-file.js';
import { cli, tempHome } from './cli-harness.js';

const SUITE = 'examples/distill-suite';

describe('weft distill eval: bad input', () => {
  it('exits 2 naming the flag for a missing or bad --suite, --variant, --concurrency or --task', async () => {
    const home = tempHome();
    const missing = await cli(['distill', 'eval', '--model', 'sim:seed=1', '--home', home]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--suite');
    const nowhere = await cli([
      'distill',
      'eval',
      '--suite',
      join(home, 'none'),
      '--model',
      'sim:seed=1',
      '--home',
      home,
    ]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain('no suite folder');
    const variant = await cli([
      'distill',
      'eval',
      '--suite',
      SUITE,
      '--variant',
      'es-pd',
      '--model',
      'sim:seed=1',
      '--home',
      home,
    ]);
    expect(variant.code).toBe(2);
    expect(variant.stderr).toContain('--variant must be one of es-pe, es-react, react, pe, all');
    const concurrency = await cli([
      'distill',
      'eval',
      '--suite',
      SUITE,
      '--concurrency',
      '0',
      '--model',
      'sim:seed=1',
      '--home',
      home,
    ]);
    expect(concurrency.code).toBe(2);
    expect(concurrency.stderr).toContain('--concurrency');
    const task = await cli([
      'distill',
      'eval',
      '--suite',
      SUITE,
      '--task',
      'sum-to-m',
      '--model',
      'sim:seed=1',
      '--home',
      home,
      '--json',
    ]);
    expect(task.code).toBe(2);
    expect(JSON.parse(task.stdout).error.message).toContain(
      'no task "sum-to-m" in examples/distill-suite (did you mean "sum-to-n"?)',
    );
  });

  it('exits 2 with file:line:column for a bad task.yaml', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-suite-cli-'));
    mkdirSync(join(dir, 'broken'));
    writeFileSync(
      join(dir, 'broken', 'task.yaml'),
      'description: x\ntools: nowhere.yaml\ntrain: []\ntests: []\nnotes: hi\n',
    );
    const result = await cli(['distill', 'eval', '--suite', dir, '--model', 'sim:seed=1', '--home', tempHome()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(dir, 'broken', 'task.yaml')}:2:1 tools: no tools file`);
    expect(result.stderr).toMatch(/task\.yaml:3:\d+ train: at least one train input/);
    expect(result.stderr).toMatch(/task\.yaml:5:1 notes: unknown field "notes"/);
  });

  it('names BUSINESS_API_URL when a task needs the business API and it is unset (exit 2, before any model call)', async () => {
    const result = await cli(
      ['distill', 'eval', '--suite', SUITE, '--task', 'order-summary', '--model', 'sim:seed=1', '--home', tempHome()],
      { BUSINESS_API_URL: undefined },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("the suite's tools need BUSINESS_API_URL, which is not set");
    expect(result.stderr.match(/is not set/g)?.length).toBe(2);
  });
});

describe('weft distill eval: the real stages with the sim model, offline end to end', () => {
  const run = (model: string, variant = 'all') =>
    cli([
      'distill',
      'eval',
      '--suite',
      SUITE,
      '--task',
      'gcd',
      '--task',
      'fizzbuzz',
      '--variant',
      variant,
      '--model',
      model,
      '--home',
      tempHome(),
      '--json',
    ]);

  it('executes, distils and tests every variant: a faithful sim gives correct workflows that run with no model', async () => {
    const result = await run('sim:seed=1');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.simulated).toBe(true);
    expect(report.variants.map((variant: { variant: string }) => variant.variant)).toEqual([
      'es-pe',
      'es-react',
      'react',
      'pe',
    ]);
    for (const variant of report.variants) {
      expect(variant).toMatchObject({ tasks: 2, correct: 2, executionCompleteness: 1, graphValidity: 1 });
      expect(variant.execLlmCalls).toBe(0);
      expect(variant.usage.calls).toBeGreaterThan(0);
    }
  });

  it('a sim that errs on every graph call gives no correct workflow, and its business calls are counted as mixed', async () => {
    const result = await run('sim:seed=1,mistake=1', 'es-pe');
    const report = JSON.parse(result.stdout);
    const esPe = report.variants.find((variant: { variant: string }) => variant.variant === 'es-pe');
    expect(esPe.correct).toBe(0);
    expect(report.tasks.some((task: { mixedCalls: number }) => task.mixedCalls > 0)).toBe(true);
    for (const variant of report.variants) expect(variant.execLlmCalls).toBe(0);
  });
});

describe('weft distill eval: a run with fake stages', () => {
  const stages: SuiteStagesFactory = () => ({
    execute: async (input, _expected, { task }) => ({
      traceId: 't-x',
      task: task.description,
      mode: 'plan-execute',
      model: 'sim',
      input,
      calls: [],
      success: true,
      usage: { calls: 0, inputTokens: 0, outputTokens: 0 },
    }),
    summarize: async (_traces, { task }) => ({
      workflow: task.reference!,
      finished: true,
      problems: [],
      valid: true,
      mixedCalls: 0,
      graphCalls: 1,
      steps: 1,
      usage: { calls: 0, inputTokens: 0, outputTokens: 0 },
    }),
  });
  const capture = (json: boolean) => {
    const text: string[] = [];
    const log: string[] = [];
    const documents: unknown[] = [];
    const output: Output = {
      json,
      text: (line) => text.push(line),
      write: (piece) => text.push(piece),
      log: (line) => log.push(line),
      document: (value) => documents.push(value),
    };
    return { output, text, log, documents };
  };
  const flags = { suite: SUITE, task: ['gcd', 'fizzbuzz'], model: 'sim:seed=1', home: tempHome() };

  it('prints a table per variant with the overall row, progress on stderr', async () => {
    const { output, text, log } = capture(false);
    const code = await distillEvalCommand(flags, output, new AbortController().signal, { stages });
    expect(code).toBe(0);
    expect(text).toContain('variant es-pe');
    expect(text.some((line) => /^gcd\s+yes\s+5\/5/.test(line))).toBe(true);
    expect(text.some((line) => /^overall\s+2\/2\s+11\/11/.test(line))).toBe(true);
    expect(text[0]).toContain('simulated');
    expect(log.some((line) => line.startsWith('distill eval 2/2'))).toBe(true);
  });

  it('prints one JSON document without the workflows', async () => {
    const { output, documents } = capture(true);
    const code = await distillEvalCommand({ ...flags, json: true }, output, new AbortController().signal, { stages });
    expect(code).toBe(0);
    const document = documents[0] as {
      variants: { correct: number; execLlmCalls: number }[];
      tasks: Record<string, unknown>[];
    };
    expect(document.variants[0]).toMatchObject({ correct: 2, execLlmCalls: 0 });
    expect(document.tasks.map((task) => task.task)).toEqual(['gcd', 'fizzbuzz']);
    expect(document.tasks[0]).not.toHaveProperty('workflow');
  });
});

describe('weft distill eval: --out, --rollouts and --max-visits', () => {
  const scratch = () => mkdtempSync(join(tmpdir(), 'weft-distill-out-'));
  const evalArgs = (...more: string[]) => [
    'distill',
    'eval',
    '--suite',
    SUITE,
    '--task',
    'gcd',
    '--model',
    'sim:seed=1',
    '--home',
    tempHome(),
    ...more,
  ];

  it('--out keeps each task run: workflow, traces and tests that weft exec and weft distill read again, and results', async () => {
    const out = join(scratch(), 'run');
    const result = await cli(evalArgs('--variant', 'all', '--out', out, '--json'));
    expect(result.code, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout);
    expect(document).toMatchObject({ out, selection: 'random_success', rollouts: 1 });
    // report.json is the --json document, and the dashboard reads it as a distill eval report.
    const saved = readFileSync(join(out, 'report.json'), 'utf8');
    expect(JSON.parse(saved)).toEqual(document);
    expect(readEvalReport(saved, 'report.json')).toMatchObject({ report: { kind: 'distill-eval' } });
    const esPe = document.tasks.find((task: { variant: string }) => task.variant === 'es-pe');
    expect(esPe.files).toEqual({
      summary: 'tasks/gcd/es-pe/summary.json',
      workflow: 'tasks/gcd/es-pe/workflow.json',
      traces: 'tasks/gcd/es-pe/traces.jsonl',
      selectedTraces: 'tasks/gcd/es-pe/selected-traces.jsonl',
      tests: 'tasks/gcd/es-pe/tests.jsonl',
      results: 'tasks/gcd/es-pe/results.jsonl',
    });
    const react = document.tasks.find((task: { variant: string }) => task.variant === 'react');
    expect(react.files.selectedTraces).toBeUndefined();
    const at = (file: string) => join(out, file);
    const traces = await readTracesFile(at(esPe.files.traces));
    expect(traces).toHaveLength(2);
    expect(traces.every((trace) => trace.success && trace.taskKey === 'gcd')).toBe(true);
    expect((await readTracesFile(at(esPe.files.selectedTraces))).map((trace) => trace.traceId)).toEqual(
      esPe.selectedTraces,
    );
    const results = readFileSync(at(esPe.files.results), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results[0]).toEqual({ id: 0, input: { a: 12, b: 18 }, expected: 6, ok: true, actual: 6 });
    const summary = JSON.parse(readFileSync(at(esPe.files.summary), 'utf8'));
    expect(summary).toMatchObject({ task: 'gcd', variant: 'es-pe', correct: true, worf: { f1_chain: 1, f1_graph: 1 } });
    // Run again by hand: the workflow on the tests, and the summarize stage on the selected traces.
    const exec = await cli([
      'exec',
      at(esPe.files.workflow),
      '--tools',
      summary.tools[0],
      '--inputs',
      at(esPe.files.tests),
      '--home',
      tempHome(),
      '--json',
    ]);
    expect(exec.code, exec.stderr).toBe(0);
    expect(JSON.parse(exec.stdout)).toMatchObject({ cases: 5, passed: 5 });
    const again = await cli([
      'distill',
      '--traces',
      at(esPe.files.selectedTraces),
      '--tools',
      summary.tools[0],
      '--model',
      `sim:reference=${at(esPe.files.workflow)}`,
      '--out',
      join(out, '..', 'again.workflow.json'),
      '--home',
      tempHome(),
    ]);
    expect(again.code, again.stderr).toBe(0);
  });

  it('keeps a failing task run inspectable: the wrong outputs and errors per test', async () => {
    const out = join(scratch(), 'failing');
    const result = await cli(evalArgs('--model', 'sim:seed=1,mistake=1', '--out', out, '--json'));
    expect(result.code).toBe(0);
    const [task] = JSON.parse(result.stdout).tasks;
    expect(task.correct).toBe(false);
    const results = readFileSync(join(out, task.files.results), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results).toHaveLength(5);
    for (const entry of results)
      expect(entry).toMatchObject({ ok: false, input: expect.any(Object), expected: expect.any(Number) });
    // The graph never got an accepted finish: it is kept as the partial workflow, and its tests say why they did not run.
    expect(task.finished).toBe(false);
    expect(task.files.workflow).toBe('tasks/gcd/es-pe/workflow.partial.json');
    expect(readFileSync(join(out, task.files.workflow), 'utf8')).toContain('"nodes"');
    expect(results[0].error).toBe('not run: the workflow is invalid');
  });

  it('refuses a non-empty or non-folder --out, and bad --rollouts or --max-visits, with exit 2 before any model call', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const full = await cli(evalArgs('--out', dir));
    expect(full.code).toBe(2);
    expect(full.stderr).toContain('is not empty');
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    const file = await cli(evalArgs('--out', join(dir, 'notes.txt')));
    expect(file.code).toBe(2);
    expect(file.stderr).toContain('is not a folder');
    for (const [flag, value, message] of [
      ['--rollouts', '0', '--rollouts expects an integer >= 1'],
      ['--rollouts', '101', '--rollouts expects at most 100'],
      ['--rollouts', 'three', '--rollouts expects an integer >= 1'],
      ['--max-visits', '0', '--max-visits expects an integer >= 1'],
      ['--time-limit', '0', '--time-limit expects an integer >= 1'],
      ['--worker-memory', '64', '--worker-memory expects an integer >= 128'],
      ['--jobs', 'many', '--jobs expects an integer'],
    ] as const) {
      const bad = await cli(evalArgs(flag, value));
      expect(bad.code, `${flag} ${value}`).toBe(2);
      expect(bad.stderr).toContain(message);
    }
  });

  it('--rollouts N makes N traces per train input; --max-visits caps every test run', async () => {
    const rolled = await cli(evalArgs('--model', 'sim:seed=2,solvefail=0.3', '--rollouts', '4', '--json'));
    const report = JSON.parse(rolled.stdout);
    expect(report.rollouts).toBe(4);
    expect(report.tasks[0]).toMatchObject({ trainInputs: 2, rollouts: 4, trainTraces: 8 });
    expect(report.variants[0].traceSuccessRate).toBeGreaterThan(0);
    expect(report.variants[0].traceSuccessRate).toBeLessThan(1);
    const capped = await cli(evalArgs('--max-visits', '5', '--json'));
    const task = JSON.parse(capped.stdout).tasks[0];
    expect(task.correct).toBe(false);
    expect(task.cases.some((entry: { error?: string }) => entry.error?.includes('visit cap of 5 node visits'))).toBe(
      true,
    );
  });

  it("--time-limit, --worker-memory and --jobs are the test cases' hard limits, shown in the report", async () => {
    const limited = await cli(evalArgs('--time-limit', '5000', '--worker-memory', '160', '--jobs', '1', '--json'));
    expect(limited.code).toBe(0);
    const report = JSON.parse(limited.stdout);
    expect(report.caseLimits).toEqual({ timeLimitMs: 5000, memoryMb: 160, jobs: 1 });
    expect(report.tasks[0]).toMatchObject({ correct: true });
  });
});
