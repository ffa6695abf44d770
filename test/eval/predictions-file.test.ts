import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { parsePredictions, readPredictions } from '../../src/eval/predictions-file.js';

const NODE_TEXT = 'Node:\n1: a\nEdge: (START,1) (1,END)';

describe('parsePredictions', () => {
  it('reads {id, output} lines with their line numbers and ignores blank lines', () => {
    const text = [
      JSON.stringify({ id: 'a_1', output: NODE_TEXT }),
      '',
      '   ',
      JSON.stringify({ id: 'a_2', output: '', extra: 1 }),
    ].join('\n');
    const result = parsePredictions(text, 'p.jsonl');
    expect(result.skipped).toEqual([]);
    expect(result.predictions).toEqual([
      { id: 'a_1', output: NODE_TEXT, line: 1 },
      { id: 'a_2', output: '', line: 4 },
    ]);
  });

  it('skips each bad line with a reason located by file, line (and column) and field', () => {
    const lines = [
      '{"id": "a_1", "output": "x"',
      '[1, 2]',
      '{"output": "x"}',
      '{"id": 7, "output": "x"}',
      '{"id": "a_5"}',
      '{"id": "a_6", "output": 42}',
      '{"id": "a_7", "output": null}',
      '{"id": "  ", "output": "x"}',
    ];
    const { predictions, skipped } = parsePredictions(lines.join('\n'), 'p.jsonl');
    expect(predictions).toEqual([]);
    expect(skipped.map(({ line, id, problem, field }) => ({ line, id, problem, field }))).toEqual([
      { line: 1, id: undefined, problem: 'not-json', field: undefined },
      { line: 2, id: undefined, problem: 'not-an-object', field: undefined },
      { line: 3, id: undefined, problem: 'missing-id', field: 'id' },
      { line: 4, id: undefined, problem: 'bad-id', field: 'id' },
      { line: 5, id: 'a_5', problem: 'missing-output', field: 'output' },
      { line: 6, id: 'a_6', problem: 'bad-output', field: 'output' },
      { line: 7, id: 'a_7', problem: 'bad-output', field: 'output' },
      { line: 8, id: undefined, problem: 'bad-id', field: 'id' },
    ]);
    expect(skipped[0]!.reason).toMatch(/^p\.jsonl:1:28: not JSON: expected ',' or '}'/);
    expect(skipped[1]!.reason).toBe('p.jsonl:2: expected an object {"id", "output"}, got an array');
    expect(skipped[2]!.reason).toBe('p.jsonl:3 id: missing required field "id"');
    expect(skipped[3]!.reason).toBe('p.jsonl:4 id: expected a non-empty string, got a number');
    expect(skipped[5]!.reason).toBe('p.jsonl:6 output: expected a string, got a number');
    expect(skipped[6]!.reason).toBe('p.jsonl:7 output: expected a string, got null');
  });

  it('says "line N" when there is no file name', () => {
    expect(parsePredictions('\nnope').skipped[0]!.reason).toMatch(/^line 2:1: not JSON/);
  });

  it('accepts CRLF line ends and a byte-order mark', () => {
    const text = `\uFEFF${JSON.stringify({ id: 'a_1', output: 'x' })}\r\n${JSON.stringify({ id: 'a_2', output: 'y' })}\r\n`;
    expect(parsePredictions(text).predictions.map((p) => [p.id, p.line])).toEqual([
      ['a_1', 1],
      ['a_2', 2],
    ]);
  });

  it('keeps the error the benchmark wrote for a failed record', () => {
    const text = JSON.stringify({ id: 'a_1', output: '', error: 'model timed out' });
    expect(parsePredictions(text).predictions[0]).toEqual({ id: 'a_1', output: '', line: 1, error: 'model timed out' });
  });
});

describe('readPredictions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-predictions-'));

  it('reads a file', async () => {
    const file = join(dir, 'ok.jsonl');
    writeFileSync(file, `${JSON.stringify({ id: 'a_1', output: NODE_TEXT })}\nnot json\n`);
    const result = await readPredictions(file);
    expect(result.predictions).toHaveLength(1);
    expect(result.skipped[0]!.reason).toContain(`${file}:2:1`);
  });

  it('throws BAD_INPUT naming the path when the file is missing or a folder', async () => {
    const missing = join(dir, 'missing.jsonl');
    await expect(readPredictions(missing)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      location: { file: missing },
      message: expect.stringMatching(/no such file/),
    });
    await expect(readPredictions(dir)).rejects.toBeInstanceOf(WeftError);
    await expect(readPredictions(dir)).rejects.toMatchObject({ code: 'BAD_INPUT', location: { file: dir } });
  });
});
