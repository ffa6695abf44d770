/**
 * The inputs the quick starts name are shipped: the WorfBench gold sample under examples/worfbench (generate, then
 * score) and the cases of a `weft exec --inputs` batch beside the sum-to-n workflow. Each runs from a plain clone.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../cli/cli-harness.js';

const EXAMPLES = join(import.meta.dirname, '../../examples');
const folders: string[] = [];
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'weft-shipped-'));
  folders.push(folder);
  return folder;
}
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('shipped quick-start inputs', () => {
  it('examples/worfbench: bench worfbench generates predictions that weft eval scores against the same gold', async () => {
    const out = join(tempFolder(), 'wb');
    const gold = join(EXAMPLES, 'worfbench', 'os.json');
    const bench = await cli([
      'bench',
      'worfbench',
      '--data',
      gold,
      '--model',
      'sim:seed=7',
      '--limit',
      '3',
      '--out',
      out,
    ]);
    expect(bench.code, bench.stderr).toBe(0);
    const predictions = readFileSync(join(out, 'predictions.jsonl'), 'utf8').trim().split('\n');
    expect(predictions).toHaveLength(3);
    const scored = await cli(['eval', join(out, 'predictions.jsonl'), '--gold', gold, '--json']);
    expect(scored.code, scored.stderr).toBe(0);
    expect(JSON.parse(scored.stdout)).toMatchObject({ count: 3, skipped: 0 });
    // The licence and provenance travel with the data.
    const readme = readFileSync(join(EXAMPLES, 'worfbench', 'README.md'), 'utf8');
    expect(readme).toContain('MIT License');
    expect(readme).toContain('github.com/zjunlp/WorfBench');
  });

  it('examples/distill-suite/sum-to-n/cases.jsonl: a weft exec batch passes every case', async () => {
    const home = tempFolder();
    const suite = join(EXAMPLES, 'distill-suite');
    const result = await cli([
      'exec',
      join(suite, 'sum-to-n', 'reference.workflow.json'),
      '--tools',
      join(suite, 'tools', 'kit.tools.yaml'),
      '--inputs',
      join(suite, 'sum-to-n', 'cases.jsonl'),
      '--home',
      home,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toMatch(/6 cases, 6 passed, 0 failed, 0 errors/);
  });
});
