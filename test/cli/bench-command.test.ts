import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { modelSlug, progressLine, progressReporter } from '../../src/cli/eval/bench-command.js';
import { GOLD_DIR as GOLD } from '../eval/gold-path.js';
import { cli, tempHome } from './cli-harness.js';

interface RawRecord {
  readonly id: string;
  readonly conversations: readonly { readonly role: string; readonly content: string }[];
}

const taskOf = (record: RawRecord) => record.conversations.find((turn) => turn.role === 'user')!.content;
const answerOf = (record: RawRecord) => record.conversations.at(-1)!.content;

/** Two records from each of three files, copied to a temporary data file, with a script that answers the gold. */
function fixture(): { home: string; data: string; script: string; records: RawRecord[] } {
  const home = tempHome();
  const records = ['alfworld.json', 'toolbench.json', 'wikihow.json'].flatMap((file) =>
    (JSON.parse(readFileSync(join(GOLD, file), 'utf8')) as RawRecord[]).slice(0, 2),
  );
  // Each `when` (a whole task) must match its own prompt only.
  for (const a of records) for (const b of records) if (a !== b) expect(taskOf(b).includes(taskOf(a))).toBe(false);
  const data = join(home, 'gold.json');
  writeFileSync(data, JSON.stringify(records));
  const script = join(home, 'gold-replies.json');
  writeFileSync(
    script,
    JSON.stringify({ replies: records.map((record) => ({ when: taskOf(record), text: answerOf(record) })) }),
  );
  return { home, data, script, records };
}

interface BenchDocument {
  out: string;
  planner: string;
  candidates?: number;
  model: string;
  modelKind: string;
  similarity: string;
  records: number;
  generated: number;
  resumed: number;
  errors: number;
  calls: number;
  callsPerRecord: number;
  tokens: { input: number; output: number };
  report: { count: number; f1_chain: number; f1_graph: number; byScenario: Record<string, { count: number }> };
}

describe('weft bench worfbench', () => {
  it('--json prints one document; a model answering the gold scores 1; a rerun resumes with no calls', async () => {
    const { home, data, script, records } = fixture();
    const args = ['bench', 'worfbench', '--data', data, '--model', `scripted:${script}`, '--home', home, '--json'];
    const first = await cli(args);
    expect(first.code).toBe(0);
    const document = JSON.parse(first.stdout) as BenchDocument;
    expect(Object.keys(document).sort()).toEqual(
      [
        'out',
        'planner',
        'model',
        'modelKind',
        'similarity',
        'records',
        'generated',
        'resumed',
        'errors',
        'calls',
        'callsPerRecord',
        'tokens',
        'report',
      ].sort(),
    );
    expect(document).toMatchObject({
      planner: 'single',
      model: `scripted:${script}`,
      modelKind: 'scripted',
      records: records.length,
      generated: records.length,
      resumed: 0,
      errors: 0,
      calls: records.length,
      callsPerRecord: 1,
    });
    expect(document.similarity).toMatch(/^lexical/);
    expect(document.out).toBe(join(home, 'bench', 'worfbench', `${modelSlug(`scripted:${script}`)}-single`));
    expect(document.report).toMatchObject({ count: records.length, f1_chain: 1, f1_graph: 1 });
    expect(Object.keys(document.report.byScenario).sort()).toEqual(['embodied', 'function call', 'open-grounded']);
    expect(existsSync(join(document.out, 'predictions.jsonl'))).toBe(true);
    expect(JSON.parse(readFileSync(join(document.out, 'scores.json'), 'utf8'))).toEqual(document.report);
    // Progress went to stderr, never stdout.
    expect(first.stderr).toContain(`worfbench ${records.length}/${records.length}`);

    const second = JSON.parse((await cli(args)).stdout) as BenchDocument;
    expect(second).toMatchObject({ generated: 0, resumed: records.length, calls: 0, callsPerRecord: 1 });
    expect(second.report.f1_graph).toBe(1);
  });

  it('labels a scripted model in the text output', async () => {
    const { home, data, script } = fixture();
    const result = await cli([
      'bench',
      'worfbench',
      '--data',
      data,
      '--model',
      `scripted:${script}`,
      '--home',
      home,
      '--limit',
      '2',
      '--out',
      join(home, 'out'),
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`scripted:${script} (scripted model)`);
    expect(result.stdout).toContain('not a measure of any language model');
    expect(result.stdout).toMatch(/records 2: 2 generated, 0 resumed, 0 error\(s\)/);
    expect(result.stdout).toContain(join(home, 'out', 'predictions.jsonl'));
    expect(result.stderr).toContain('scripted model');
  });

  it('--planner weft costs K calls a record with the sim model, in its own default folder', async () => {
    const { home, data } = fixture();
    const result = await cli([
      'bench',
      'worfbench',
      '--data',
      data,
      '--model',
      'sim:seed=2',
      '--planner',
      'weft',
      '--candidates',
      '2',
      '--limit',
      '4',
      '--home',
      home,
      '--json',
    ]);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as BenchDocument;
    expect(document).toMatchObject({
      planner: 'weft',
      candidates: 2,
      modelKind: 'sim',
      records: 4,
      calls: 8,
      callsPerRecord: 2,
      errors: 0,
    });
    expect(document.model).toMatch(/^sim:/);
    expect(document.out.endsWith('-weft-k2')).toBe(true);
    expect(result.stderr).toContain('sim model');
  });

  it.each([
    [['--planner', 'best'], '--planner'],
    [['--candidates', '2'], '--candidates'],
    [['--planner', 'weft', '--candidates', '0'], '--candidates'],
    [['--limit', '0'], '--limit'],
    [['--concurrency', 'many'], '--concurrency'],
    [['--out', ' '], '--out'],
  ])('bad flags %j exit 2 naming %s', async (flags, field) => {
    const { home, data, script } = fixture();
    const result = await cli([
      'bench',
      'worfbench',
      '--data',
      data,
      '--model',
      `scripted:${script}`,
      '--home',
      home,
      '--json',
      ...flags,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(field);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'BAD_INPUT', location: { field } } });
    expect(existsSync(join(home, 'bench'))).toBe(false);
  });

  it('a missing --data, or data that is not there, exits 2 naming it', async () => {
    const home = tempHome();
    const missingFlag = await cli(['bench', 'worfbench', '--model', 'sim:seed=1', '--home', home]);
    expect(missingFlag.code).toBe(2);
    expect(missingFlag.stderr).toContain('--data');
    const nowhere = join(home, 'no-such-data');
    const missingData = await cli(['bench', 'worfbench', '--data', nowhere, '--model', 'sim:seed=1', '--home', home]);
    expect(missingData.code).toBe(2);
    expect(missingData.stderr).toContain(nowhere);
  });
});

describe('helpers', () => {
  it('modelSlug makes a folder name of a model id', () => {
    expect(modelSlug('openai:gpt-4o-mini')).toBe('openai-gpt-4o-mini');
    expect(modelSlug('openai-compatible:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-7B')).toBe(
      'openai-compatible-http-127.0.0.1-8000-v1-qwen-qwen2.5-7b',
    );
    expect(modelSlug('sim:latency=fixed(0),seed=7')).toBe('sim-latency-fixed-0-seed-7');
  });

  it('progressLine shows done/total, errors, calls, running f1 and the ETA', () => {
    expect(
      progressLine({
        done: 3,
        total: 10,
        generated: 2,
        resumed: 1,
        errors: 1,
        calls: 6,
        elapsedMs: 2000,
        etaMs: 65_000,
        meanF1Chain: 0.5,
        meanF1Graph: 0.25,
      }),
    ).toBe('worfbench 3/10 · 1 resumed · 1 error(s) · 6 calls · f1 chain 0.500 graph 0.250 · ETA 1m05s');
    expect(
      progressLine({ done: 10, total: 10, generated: 10, resumed: 0, errors: 0, calls: 10, elapsedMs: 1, etaMs: 0 }),
    ).toBe('worfbench 10/10 · 10 calls');
  });

  it('progressReporter redraws one line on a TTY and prints a line per 10 % elsewhere', () => {
    const capture = (isTTY: boolean) => {
      let text = '';
      const stream = Object.assign(
        new Writable({
          write(chunk, _encoding, callback) {
            text += String(chunk);
            callback();
          },
        }),
        { isTTY, columns: 200 },
      );
      return { stream, text: () => text };
    };
    const step = (done: number) => ({
      done,
      total: 20,
      generated: done,
      resumed: 0,
      errors: 0,
      calls: done,
      elapsedMs: done * 100,
      etaMs: (20 - done) * 100,
    });
    const tty = capture(true);
    const live = progressReporter(tty.stream);
    for (let done = 1; done <= 20; done++) live.update(step(done));
    live.close();
    expect(tty.text()).toBe(`\r\u001b[2K${progressLine(step(20))}\n`);
    const pipe = capture(false);
    const plain = progressReporter(pipe.stream);
    for (let done = 1; done <= 20; done++) plain.update(step(done));
    plain.close();
    const lines = pipe.text().trimEnd().split('\n');
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toBe(progressLine(step(20)));
  });
});
