/**
 * A file with a problem on every character (100,000 stray `}`) is read in linear time, and the CLI reports the
 * first 50 problems and how many more there are, not megabytes of them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_REPORTED_ISSUES } from '../../src/errors.js';
import { readStructuredSource } from '../../src/text/read-structured-source.js';
import { cli, tempHome } from './cli-harness.js';

interface ErrorDocument {
  error: { code: string; issues: { line: number; column: number; message: string }[]; omittedIssues?: number };
}

describe('many problems in one file', () => {
  it('are each located at their own line and column', () => {
    const source = readStructuredSource('}\n  }\n}}\n', 'plan.yaml');
    expect('issues' in source && source.issues.map(({ line, column }) => [line, column])).toEqual([
      [1, 1],
      [2, 3],
      [3, 1],
      [3, 2],
    ]);
  });

  it('100,000 stray closing braces: the first 50 issues and "and N more", as text and as JSON', async () => {
    const home = tempHome();
    const plan = join(home, 'plan.yaml');
    const count = 100_000;
    writeFileSync(plan, `${'}'.repeat(count)}\n`);

    const text = await cli(['run', '--plan', plan, '--model', 'sim:seed=1', '--home', home]);
    expect(text.code).toBe(2);
    const issueLines = text.stderr.split('\n').filter((line) => line.startsWith('  - '));
    expect(issueLines).toHaveLength(MAX_REPORTED_ISSUES);
    expect(issueLines[49]).toContain(`${plan}:1:50: invalid YAML`);
    expect(text.stderr).toContain(`  … and ${count - MAX_REPORTED_ISSUES} more`);
    expect(text.stderr.length).toBeLessThan(20_000);

    const json = await cli(['run', '--plan', plan, '--model', 'sim:seed=1', '--home', home, '--json']);
    expect(json.code).toBe(2);
    const document = JSON.parse(json.stdout) as ErrorDocument;
    expect(document.error.code).toBe('PLAN_INVALID');
    expect(document.error.issues).toHaveLength(MAX_REPORTED_ISSUES);
    expect(document.error.omittedIssues).toBe(count - MAX_REPORTED_ISSUES);
    expect(json.stdout.length).toBeLessThan(20_000);
  }, 120_000);
});
