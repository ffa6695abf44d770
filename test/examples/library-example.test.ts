/**
 * docs/library.md's example is examples/library.ts (the same text), and it runs as a user would run it (tsx, from the
 * repository root, importing 'weft'). `npm run typecheck` type-checks it with the rest of examples/.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../e2e/weft-cli.js';

function runExample(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'examples/library.ts'],
      { cwd: ROOT, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

describe('examples/library.ts', () => {
  it('is the code block of docs/library.md, word for word, with no cast', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8');
    const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf('## Example')))?.[1];
    const file = readFileSync(join(ROOT, 'examples', 'library.ts'), 'utf8');
    expect(block).toBe(file);
    expect(file).toContain("from 'weft';");
    expect(file).not.toMatch(/\bas [A-Z]/);
  });

  it('plans, runs, reads back and prunes a run through the public API', async () => {
    const { code, stdout, stderr } = await runExample();
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^plan: 4 subtasks \(candidate \d of 3\)$/);
    expect(lines[1]).toMatch(/^run \S+: completed, 4\/4 subtasks completed, \d+ model calls$/);
    expect(lines[2]).toBe('stored summary: completed, plan version 1, 4 subtasks');
    expect(lines[3]).toMatch(/^pruned 1 run\(s\), [1-9]\d* bytes freed; 0 left$/);
    // The handle's events stream one task-end per subtask (each accepted at its first attempt with sim:).
    expect(lines[4]).toBe('4 task-end events streamed');
    expect(lines).toHaveLength(5);
  });
});
