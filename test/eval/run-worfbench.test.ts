import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { loadGold, type GoldRecord } from '../../src/eval/gold-data.js';
import { createLexicalSimilarity } from '../../src/eval/lexical-similarity.js';
import { parseWorkflowText } from '../../src/eval/parse-workflow-text.js';
import { readPredictionLines, type PredictionLine } from '../../src/eval/predictions-writer.js';
import { runWorfbench, type RunWorfbenchOptions, type WorfbenchProgress } from '../../src/eval/run-worfbench.js';
import { WORFBENCH_PURPOSE } from '../../src/eval/worfbench-prompt.js';
import type { CallTag, ChatCall, ChatModel } from '../../src/llm/chat-model.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { simModel } from '../../src/llm/sim-model.js';
import { estimateUsage } from '../../src/llm/token-estimate.js';
import { GOLD_DIR as GOLD } from './gold-path.js';

let gold: GoldRecord[];
/** Two records of each source with a task no other record shares: a model keyed by task answers each once. */
let sample: GoldRecord[];

beforeAll(async () => {
  gold = await loadGold(GOLD);
  const taskCount = new Map<string, number>();
  for (const record of gold) taskCount.set(record.task, (taskCount.get(record.task) ?? 0) + 1);
  const perSource = new Map<string, number>();
  sample = gold.filter((record) => {
    if (taskCount.get(record.task) !== 1) return false;
    const seen = perSource.get(record.source) ?? 0;
    perSource.set(record.source, seen + 1);
    return seen < 2;
  });
});

function temporaryDir(): string {
  return mkdtempSync(join(tmpdir(), 'weft-worfbench-'));
}

/** The last user message: the record's task (the examples come before it). */
function taskOf(call: ChatCall): string {
  return call.messages.at(-1)?.content ?? '';
}

/** A scripted model that answers each record's prompt with its gold answer, and lists the tasks it was asked. */
function goldModel(
  records: readonly GoldRecord[],
  options: { fail?: ReadonlySet<string> } = {},
): ChatModel & { asked: string[] } {
  const answers = new Map(records.map((record) => [record.task, record]));
  const asked: string[] = [];
  const model = scriptedModel(
    (call) => {
      const record = answers.get(taskOf(call));
      if (!record) throw new Error('not a sample task');
      asked.push(record.id);
      if (options.fail?.has(record.id)) throw new WeftError('PROVIDER', `the provider refused ${record.id}`);
      return record.answer;
    },
    { id: 'scripted:gold' },
  );
  return Object.assign(model, { asked });
}

function options(
  overrides: Partial<RunWorfbenchOptions> & Pick<RunWorfbenchOptions, 'model' | 'outDir'>,
): RunWorfbenchOptions {
  return { records: sample, planner: 'single', concurrency: 4, similarity: createLexicalSimilarity(), ...overrides };
}

function predictionLines(outDir: string): PredictionLine[] {
  return readFileSync(join(outDir, 'predictions.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as PredictionLine);
}

describe('runWorfbench with a model that answers the gold', () => {
  it('scores 1 on every record, one call each, and writes predictions and scores', async () => {
    const outDir = temporaryDir();
    const progress: WorfbenchProgress[] = [];
    const result = await runWorfbench(
      options({ model: goldModel(sample), outDir, onProgress: (p) => progress.push(p) }),
    );
    expect(sample.length).toBeGreaterThanOrEqual(16);
    expect(result).toMatchObject({
      records: sample.length,
      generated: sample.length,
      resumed: 0,
      errors: 0,
      calls: sample.length,
      callsPerRecord: 1,
      cancelled: false,
    });
    expect(result.tokens.input).toBeGreaterThan(0);
    expect(result.report!.count).toBe(sample.length);
    expect(result.report!.f1_chain).toBe(1);
    expect(result.report!.f1_graph).toBe(1);
    expect(JSON.parse(readFileSync(join(outDir, 'scores.json'), 'utf8'))).toEqual(result.report);
    const lines = predictionLines(outDir);
    expect(lines.map((line) => line.id).sort()).toEqual(sample.map((record) => record.id).sort());
    for (const line of lines) {
      expect(line).toMatchObject({ planner: 'single', model: 'scripted:gold', calls: 1 });
      expect(line.error).toBeUndefined();
    }
    // Progress counts up to the total, with a running mean (lexical similarity) of 1 throughout.
    expect(progress.map((p) => p.done)).toEqual(sample.map((_, index) => index + 1));
    expect(progress.at(-1)).toMatchObject({ total: sample.length, meanF1Chain: 1, meanF1Graph: 1, etaMs: 0 });
  });

  it('runs only the first `limit` records, in file order', async () => {
    const model = goldModel(sample);
    const result = await runWorfbench(options({ model, outDir: temporaryDir(), limit: 5, concurrency: 1 }));
    expect(result.records).toBe(5);
    expect(model.asked).toEqual(sample.slice(0, 5).map((record) => record.id));
    expect(result.report!.count).toBe(5);
  });
});

describe('resuming', () => {
  it('after a crash, generates only the records without a complete line and counts only their calls', async () => {
    const outDir = temporaryDir();
    const half = Math.floor(sample.length / 2);
    const done = sample.slice(0, half);
    const written = done.map((record) =>
      JSON.stringify({
        id: record.id,
        output: record.answer,
        planner: 'single',
        model: 'scripted:gold',
        calls: 1,
        tokens: { input: 10, output: 5 },
        durationMs: 1,
      }),
    );
    // The crash cut the next record's line in the middle.
    const cut = sample[half]!;
    writeFileSync(join(outDir, 'predictions.jsonl'), `${written.join('\n')}\n{"id":"${cut.id}","output":"Node:\\n1: `);
    writeFileSync(join(outDir, 'bench.json'), JSON.stringify({ model: 'scripted:gold', planner: 'single' }));
    const model = goldModel(sample);
    const result = await runWorfbench(options({ model, outDir }));
    const rest = sample.slice(half).map((record) => record.id);
    expect(model.asked.sort()).toEqual([...rest].sort());
    expect(result).toMatchObject({
      resumed: half,
      generated: rest.length,
      calls: rest.length,
      errors: 0,
      callsPerRecord: 1,
    });
    expect(result.report).toMatchObject({ count: sample.length, f1_chain: 1, f1_graph: 1 });
    const lines = predictionLines(outDir);
    expect(lines).toHaveLength(sample.length);
    expect(new Set(lines.map((line) => line.id)).size).toBe(sample.length);
  });

  it('a finished run resumes with nothing to do', async () => {
    const outDir = temporaryDir();
    await runWorfbench(options({ model: goldModel(sample), outDir }));
    const again = goldModel(sample);
    const result = await runWorfbench(options({ model: again, outDir }));
    expect(again.asked).toEqual([]);
    expect(result).toMatchObject({ generated: 0, resumed: sample.length, calls: 0, callsPerRecord: 1 });
    expect(result.report!.f1_graph).toBe(1);
  });

  it('refuses an output folder made with another model or planner, naming the field', async () => {
    const outDir = temporaryDir();
    await runWorfbench(options({ model: goldModel(sample), outDir, limit: 1 }));
    const other = scriptedModel(() => '', { id: 'scripted:other' });
    await expect(runWorfbench(options({ model: other, outDir, limit: 1 }))).rejects.toMatchObject({
      code: 'BAD_INPUT',
      location: { field: 'model' },
    });
    await expect(
      runWorfbench(options({ model: goldModel(sample), outDir, limit: 1, planner: 'weft' })),
    ).rejects.toMatchObject({ code: 'BAD_INPUT', location: { field: 'planner' } });
  });
});

describe('failures', () => {
  it('one record erroring is written with its error and an empty output, and the run goes on', async () => {
    const outDir = temporaryDir();
    const failing = sample[3]!.id;
    const result = await runWorfbench(options({ model: goldModel(sample, { fail: new Set([failing]) }), outDir }));
    expect(result).toMatchObject({ generated: sample.length, errors: 1, calls: sample.length });
    const line = predictionLines(outDir).find((entry) => entry.id === failing)!;
    expect(line).toMatchObject({ output: '', calls: 1 });
    expect(line.error).toContain(`refused ${failing}`);
    // The failed record is skipped (located at its line, with the generation error) and counts 0 in the means
    // that count skips; the others score 1.
    const report = result.report!;
    expect(report).toMatchObject({ count: sample.length - 1, skipped: 1, f1_graph: 1 });
    expect(report.skips[0]).toMatchObject({ id: failing, problem: 'empty' });
    expect(report.skips[0]!.reason).toContain('predictions.jsonl:');
    expect(report.skips[0]!.reason).toContain(`refused ${failing}`);
    expect(report.withSkipsAsZero.f1_graph).toBeCloseTo((sample.length - 1) / sample.length, 10);
    // A rerun tries the failed record again, and only it.
    const retry = goldModel(sample);
    const again = await runWorfbench(options({ model: retry, outDir }));
    expect(retry.asked).toEqual([failing]);
    expect(again).toMatchObject({ generated: 1, resumed: sample.length - 1, errors: 0 });
    expect(again.report!.f1_graph).toBe(1);
    expect(predictionLines(outDir)).toHaveLength(sample.length);
  });

  it('Ctrl-C stops cleanly: finished records are kept, in-flight ones are not written, nothing is scored', async () => {
    const outDir = temporaryDir();
    const controller = new AbortController();
    const answers = new Map(sample.map((record) => [record.task, record.answer]));
    let calls = 0;
    const model: ChatModel = {
      id: 'scripted:gold',
      kind: 'scripted',
      async generate(call, signal) {
        calls += 1;
        if (calls === 3) {
          controller.abort(new WeftError('ABORTED', 'cancelled by the user'));
          signal?.throwIfAborted();
        }
        const text = answers.get(taskOf(call)) ?? '';
        return { text, usage: estimateUsage(call, text), model: 'scripted' };
      },
    };
    const result = await runWorfbench(options({ model, outDir, concurrency: 1, signal: controller.signal }));
    expect(result).toMatchObject({ cancelled: true, generated: 2, errors: 0 });
    expect(result.report).toBeUndefined();
    expect(existsSync(join(outDir, 'scores.json'))).toBe(false);
    expect(predictionLines(outDir).map((line) => line.id)).toEqual(sample.slice(0, 2).map((record) => record.id));
    const rest = goldModel(sample);
    const resumed = await runWorfbench(options({ model: rest, outDir }));
    expect(rest.asked.sort()).toEqual(
      sample
        .slice(2)
        .map((record) => record.id)
        .sort(),
    );
    expect(resumed.report!.f1_chain).toBe(1);
  });

  it('a bad configuration (a user error) stops the run and is thrown', async () => {
    const model = scriptedModel(
      () => {
        throw new WeftError('MODEL_CONFIG', 'no API key');
      },
      { id: 'scripted:broken' },
    );
    await expect(runWorfbench(options({ model, outDir: temporaryDir() }))).rejects.toMatchObject({
      code: 'MODEL_CONFIG',
    });
  });

  it('rejects a bad concurrency, K or limit, naming the field', async () => {
    const model = goldModel(sample);
    await expect(runWorfbench(options({ model, outDir: temporaryDir(), concurrency: 0 }))).rejects.toMatchObject({
      location: { field: 'concurrency' },
    });
    await expect(
      runWorfbench(options({ model, outDir: temporaryDir(), planner: 'weft', candidates: 0 })),
    ).rejects.toMatchObject({ location: { field: 'candidates' } });
    await expect(runWorfbench(options({ model, outDir: temporaryDir(), limit: -1 }))).rejects.toMatchObject({
      location: { field: 'limit' },
    });
  });

  it.each([0, 2.5])('rejects concurrency %s as every engine does, before any call or file', async (concurrency) => {
    const model = spying(goldModel(sample));
    const outDir = join(temporaryDir(), 'out');
    await expect(runWorfbench(options({ model, outDir, concurrency }))).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: `concurrency expects an integer >= 1, got ${concurrency}`,
      location: { field: 'concurrency' },
    });
    expect(model.tags).toHaveLength(0);
    expect(existsSync(outDir)).toBe(false);
  });
});

/** Records every call's tag on the way to the model. */
function spying(model: ChatModel): ChatModel & { tags: CallTag[] } {
  const tags: CallTag[] = [];
  return {
    id: model.id,
    kind: model.kind,
    tags,
    generate(call, signal) {
      if (call.tag) tags.push(call.tag);
      return model.generate(call, signal);
    },
  };
}

describe('with the sim model', () => {
  it('the weft planner makes K plan calls per record, keyed by the record, and no update call', async () => {
    const records = sample.slice(0, 4);
    const model = spying(simModel('seed=3'));
    const result = await runWorfbench(
      options({ records, model, planner: 'weft', candidates: 3, outDir: temporaryDir() }),
    );
    expect(result).toMatchObject({ calls: 12, callsPerRecord: 3, errors: 0, candidates: 3 });
    expect(model.tags.every((tag) => tag.purpose === 'plan')).toBe(true);
    for (const record of records) {
      const tags = model.tags.filter((tag) => tag.key === `${record.id}/plan`);
      expect(tags.map((tag) => tag.attempt).sort()).toEqual([1, 2, 3]);
    }
    for (const line of predictionLines(result.outDir)) {
      expect(line).toMatchObject({ planner: 'weft', calls: 3 });
      expect(parseWorkflowText(line.output).ok).toBe(true);
    }
    expect(result.report!.count).toBe(4);
    expect(result.report!.skipped).toBe(0);
  });

  it('the single-shot prompt gets a valid workflow of task fragments, the same whatever the concurrency', async () => {
    const records = sample.slice(0, 8);
    const first = await runWorfbench(
      options({ records, model: spying(simModel('seed=5')), outDir: temporaryDir(), concurrency: 1 }),
    );
    const model = spying(simModel('seed=5'));
    const second = await runWorfbench(options({ records, model, outDir: temporaryDir(), concurrency: 8 }));
    expect(model.tags.every((tag) => tag.purpose === WORFBENCH_PURPOSE)).toBe(true);
    const outputs = (outDir: string) => new Map(predictionLines(outDir).map((line) => [line.id, line.output]));
    expect(outputs(second.outDir)).toEqual(outputs(first.outDir));
    for (const record of records) {
      const parsed = parseWorkflowText(outputs(first.outDir).get(record.id)!);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) continue;
      const words = new Set(record.task.toLowerCase().match(/[\p{L}\p{N}]+/gu));
      for (const node of parsed.workflow.nodes) {
        for (const word of node.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) expect(words.has(word)).toBe(true);
      }
    }
    // Nodes drawn from the task share words with the gold: partial credit, not zero and not one.
    expect(first.report!.f1_chain).toBeGreaterThan(0);
    expect(first.report!.f1_chain).toBeLessThan(1);
  });

  it('badjson makes every reply unreadable: each is skipped as having no nodes, and counts 0', async () => {
    const records = sample.slice(0, 3);
    const result = await runWorfbench(
      options({ records, model: simModel('seed=1,badjson=1'), outDir: temporaryDir() }),
    );
    expect(result.errors).toBe(0);
    expect(result.report).toMatchObject({
      count: 0,
      skipped: 3,
      withSkipsAsZero: { count: 3, f1_chain: 0, f1_graph: 0 },
    });
    expect(result.report!.skips.map((skip) => skip.problem)).toEqual(['no-nodes', 'no-nodes', 'no-nodes']);
  });

  it('provider errors (no retries here) are written per record and the run completes', async () => {
    const records = sample.slice(0, 3);
    const result = await runWorfbench(options({ records, model: simModel('seed=1,error=1'), outDir: temporaryDir() }));
    expect(result).toMatchObject({ generated: 3, errors: 3, calls: 3 });
    expect(predictionLines(result.outDir).every((line) => line.error === 'simulated provider error (HTTP 503)')).toBe(
      true,
    );
  });
});

describe('readPredictionLines', () => {
  it('keeps complete successful lines, the last of an id, and drops a cut last line, failures and junk', () => {
    const line = (id: string, extra: object = {}) =>
      JSON.stringify({
        id,
        output: `out ${id}`,
        planner: 'single',
        model: 'm',
        calls: 1,
        tokens: { input: 1, output: 1 },
        durationMs: 0,
        ...extra,
      });
    const text = [
      line('a'),
      'not json',
      line('b', { error: 'boom' }),
      line('c'),
      line('a', { output: 'again' }),
      '{"id":"d","outp',
    ].join('\n');
    const { existing, dropped } = readPredictionLines(text);
    expect([...existing.keys()].sort()).toEqual(['a', 'c']);
    expect(existing.get('a')!.output).toBe('again');
    expect(dropped).toEqual({ truncated: 1, failed: 1, invalid: 2 });
  });
});
