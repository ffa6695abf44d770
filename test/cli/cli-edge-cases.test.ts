/**
 * Edge cases of src/cli found in review: flag validation and exit codes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempHome } from './cli-harness.js';

function planFile(home: string): string {
  const file = join(home, 'plan.json');
  writeFileSync(
    file,
    JSON.stringify({ task: 't', subtasks: [{ id: 'a', objective: 'do a', agent: 'w', dependsOn: [] }] }),
  );
  return file;
}

describe('review: budget flags that can never allow a call', () => {
  // --max-calls and --max-tokens require >= 1, but --timeout and --max-cost accept 0, which refuses the very first
  // call: the user gets a "failed" run (exit 1) instead of a bad-input message (exit 2).
  it('--timeout 0 is bad input (exit 2)', async () => {
    const home = tempHome();
    const result = await cli([
      'run',
      '--plan',
      planFile(home),
      '--model',
      'sim:seed=1',
      '--home',
      home,
      '--timeout',
      '0',
      '--json',
    ]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'BAD_INPUT' } });
  });

  it('--max-cost 0 is bad input (exit 2)', async () => {
    const home = tempHome();
    const result = await cli([
      'run',
      '--plan',
      planFile(home),
      '--model',
      'sim:seed=1',
      '--home',
      home,
      '--max-cost',
      '0',
      '--json',
    ]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'BAD_INPUT' } });
  });
});

describe('review: exit codes', () => {
  it('`weft` with no command prints usage to stderr and exits 2', async () => {
    const result = await cli([]);
    expect(result.code).toBe(2);
  });

  it('a budget-stopped run with --json prints exactly one JSON document and exits 1', async () => {
    const home = tempHome();
    const result = await cli([
      'run',
      '--plan',
      planFile(home),
      '--model',
      'sim:seed=1',
      '--home',
      home,
      '--max-calls',
      '1',
      '--json',
    ]);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as { status: string; calls: number };
    expect(document.status).toBe('failed');
    expect(document.calls).toBe(1);
  });
});
