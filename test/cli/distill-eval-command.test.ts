/**
 * `weft distill eval`: its bad-input paths through the CLI's main in-process (exit 2, located), the stages not built
 * yet, and a whole run with fake stages through the command itself (table and --json).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distillEvalCommand } from '../../src/cli/distill-eval-command.js';
import type { Output } from '../../src/cli/output.js';
import type { SuiteStagesFactory } from '../../src/distill/evaluate-suite.js';
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
