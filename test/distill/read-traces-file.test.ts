/** `weft distill --traces FILE`: JSON read fast when valid, problems located, deep or huge files refused cleanly. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTracesFile } from '../../src/distill/read-traces-file.js';
import { WeftError } from '../../src/errors.js';

const TRACE = JSON.parse(
  readFileSync('test/fixtures/distill/sum-to-n.traces.jsonl', 'utf8').split('\n')[0] as string,
) as {
  calls: unknown[];
};
const folder = mkdtempSync(join(tmpdir(), 'weft-traces-file-'));

async function issuesOf(file: string): Promise<{ line?: number; field?: string; message: string }[]> {
  const error = await readTracesFile(file).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WeftError);
  return [...(error as WeftError).issues];
}

describe('readTracesFile', () => {
  it('reads a trace of 20,000 calls', async () => {
    const file = join(folder, 'many-calls.json');
    const calls = Array.from({ length: 20_000 }, (_, a) => ({
      tool: 'add',
      args: { a, b: 1 },
      ok: true,
      durationMs: 1,
    }));
    writeFileSync(file, JSON.stringify({ traces: [{ ...TRACE, calls }] }));
    const [trace] = await readTracesFile(file);
    expect(trace?.calls).toHaveLength(20_000);
  });

  it('locates the problems of a small file by line, and names only the field in one past 5 MB', async () => {
    const small = join(folder, 'small.json');
    writeFileSync(small, JSON.stringify({ traces: [TRACE, { ...TRACE, success: 'yes' }] }, null, 2));
    expect(await issuesOf(small)).toEqual([
      expect.objectContaining({ line: expect.any(Number), field: 'traces[1].success' }),
    ]);
    const large = join(folder, 'large.json');
    const padding = 'x'.repeat(5_100_000);
    writeFileSync(
      large,
      JSON.stringify({
        traces: [
          { ...TRACE, task: padding },
          { ...TRACE, success: 'yes' },
        ],
      }),
    );
    const [issue] = await issuesOf(large);
    expect(issue).toMatchObject({ field: 'traces[1].success' });
    expect(issue?.line).toBeUndefined();
  });

  it('refuses a value nested past 100 levels, located', async () => {
    const file = join(folder, 'deep.json');
    const deep = `${'['.repeat(150)}${']'.repeat(150)}`;
    writeFileSync(file, `{"traces": [${JSON.stringify(TRACE).replace('"input":{"n":2}', `"input":${deep}`)}]}`);
    expect(await issuesOf(file)).toEqual([
      expect.objectContaining({ line: 1, message: expect.stringContaining('nested deeper than 100 levels') }),
    ]);
  });
});
