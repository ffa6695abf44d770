/** A suite's task.yaml past its limits: the message says which limit, located. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSuite } from '../../src/distill/load-suite.js';
import { WeftError } from '../../src/errors.js';

describe('loadSuite past its limits', () => {
  it('says how many tests and train inputs a task may have', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-suite-limits-'));
    writeFileSync(join(dir, 'tools.yaml'), 'tools: []\n');
    mkdirSync(join(dir, 'many'));
    const tests = Array.from({ length: 10_001 }, (_, n) => `  - { input: { n: ${n} }, expected: ${n} }\n`).join('');
    const train = Array.from({ length: 1_001 }, (_, n) => `  - { n: ${n} }\n`).join('');
    writeFileSync(
      join(dir, 'many', 'task.yaml'),
      `description: d\ntools: ../tools.yaml\ntrain:\n${train}tests:\n${tests}`,
    );
    const error = await loadSuite(dir).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WeftError);
    const issues = (error as WeftError).issues.map((issue) => `${issue.line}:${issue.field}: ${issue.message}`);
    expect(issues).toEqual(['3:train: at most 1,000 train inputs', '1005:tests: at most 10,000 test cases']);
  });
});
