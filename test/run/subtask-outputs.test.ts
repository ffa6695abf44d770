/** `outputs/<subtask>.md`: safe names for any subtask id, atomic writes, and the summary fold they are written from. */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WeftEvent } from '../../src/run/events.js';
import { renderReport } from '../../src/run/report.js';
import { runResult } from '../../src/run/run-result.js';
import { summarizeRun } from '../../src/run/run-summary.js';
import { SubtaskOutputs } from '../../src/run/subtask-outputs.js';
import { outputFileName } from '../../src/store/run-paths.js';

function temp(): string {
  return mkdtempSync(join(tmpdir(), 'weft-outputs-'));
}

describe('outputFileName', () => {
  it('keeps a plain id and makes any other one a safe, distinct name', () => {
    expect(outputFileName('t1')).toBe('t1.md');
    expect(outputFileName('write-intro_2')).toBe('write-intro_2.md');
    const hostile = [
      '../escape',
      '..',
      '.',
      'a/b',
      'a\\b',
      'con',
      'NUL',
      'x.',
      '/etc/passwd',
      'C:evil',
      'a'.repeat(300),
      'space in id',
      'é',
    ];
    const names = hostile.map(outputFileName);
    for (const name of names) {
      expect(name).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]*\.md$/);
      expect(name.length).toBeLessThanOrEqual(80);
    }
    expect(new Set(names).size).toBe(hostile.length);
    expect(outputFileName('a/b')).not.toBe(outputFileName('a\\b'));
  });
});

describe('SubtaskOutputs', () => {
  it('writes inside the folder whatever the id, replacing (not following) a symlink at the name', () => {
    const root = temp();
    const dir = join(root, 'outputs');
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, 'untouched');
    mkdirSync(dir);
    symlinkSync(outside, join(dir, 't1.md'));
    return (async () => {
      const outputs = new SubtaskOutputs(dir);
      await outputs.write('t1', 'first');
      await outputs.write('../outside', 'second');
      expect(readFileSync(outside, 'utf8')).toBe('untouched');
      expect(lstatSync(join(dir, 't1.md')).isSymbolicLink()).toBe(false);
      expect(readFileSync(join(dir, 't1.md'), 'utf8')).toBe('first');
      expect(readFileSync(join(dir, outputFileName('../outside')), 'utf8')).toBe('second');
      expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    })();
  });

  it('refuses an outputs folder that is a symlink', async () => {
    const root = temp();
    mkdirSync(join(root, 'elsewhere'));
    symlinkSync(join(root, 'elsewhere'), join(root, 'outputs'));
    await expect(new SubtaskOutputs(join(root, 'outputs')).write('t1', 'x')).rejects.toThrow(/not a folder/);
    expect(readdirSync(join(root, 'elsewhere'))).toEqual([]);
  });

  it('settles the folder to the given outputs, removing those that no longer stand', async () => {
    const dir = join(temp(), 'outputs');
    const outputs = new SubtaskOutputs(dir);
    await outputs.write('gone', 'old');
    // Two accepted outputs of one subtask written at once: the later one is what stays.
    await Promise.all([outputs.write('a', 'first'), outputs.write('a', 'A')]);
    writeFileSync(join(dir, 'b.md'), "changed behind the writer's back");
    writeFileSync(join(dir, '.b.md.0123456789ab.tmp'), 'left by a killed process');
    await new SubtaskOutputs(dir).settle([
      { id: 'a', output: 'A' },
      { id: 'b', output: 'B' },
    ]);
    expect(readdirSync(dir).sort()).toEqual(['a.md', 'b.md']);
    expect(readFileSync(join(dir, 'a.md'), 'utf8')).toBe('A');
    expect(readFileSync(join(dir, 'b.md'), 'utf8')).toBe('B');
    expect(existsSync(join(dir, 'gone.md'))).toBe(false);
  });
  it('writes a large batch on its own thread with the same guarantees, and reports a file it could not write', async () => {
    const root = temp();
    const dir = join(root, 'outputs');
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, 'untouched');
    mkdirSync(dir);
    symlinkSync(outside, join(dir, 't7.md'));
    // A folder at a name: renaming a file over it fails, and only that write may fail.
    mkdirSync(join(dir, 't9.md'));
    const outputs = new SubtaskOutputs(dir);
    const writes = Array.from({ length: 300 }, (_, index) => outputs.write(`t${index}`, `output ${index}`));
    const settled = await Promise.allSettled(writes);
    expect(settled.filter((result) => result.status === 'rejected')).toHaveLength(1);
    expect(settled[9]!.status).toBe('rejected');
    expect(readFileSync(outside, 'utf8')).toBe('untouched');
    expect(lstatSync(join(dir, 't7.md')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(dir, 't7.md'), 'utf8')).toBe('output 7');
    expect(readFileSync(join(dir, 't299.md'), 'utf8')).toBe('output 299');
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    // Settling rewrites nothing it already wrote and stops the thread; a later write starts again.
    await outputs.settle(
      Array.from({ length: 300 }, (_, index) => ({ id: `t${index}`, output: `output ${index}` })).filter(
        (entry) => entry.id !== 't9',
      ),
    );
    await outputs.write('t1', 'again');
    expect(readFileSync(join(dir, 't1.md'), 'utf8')).toBe('again');
    await outputs.close();
  });
});

describe('summarizeRun outputs', () => {
  const workflow = (status: 'not started' | 'completed', output?: string) => ({
    task: 't',
    subtasks: [
      {
        id: 'a',
        objective: 'a',
        agent: 'w',
        dependsOn: [],
        status,
        attempts: 1,
        ...(output !== undefined ? { output } : {}),
      },
      { id: 'b', objective: 'b', agent: 'w', dependsOn: ['a'], status: 'not started' as const, attempts: 0 },
    ],
  });

  it('keeps the output its accepting verdict saw, drops one a plan update invalidates, and colours the plan by the end', () => {
    const events = [
      { type: 'plan-chosen', at: 0, version: 1, index: 0, workflow: workflow('not started') },
      { type: 'task-start', at: 1, taskId: 'a', attempt: 1, agent: 'w', clone: 0 },
      { type: 'task-end', at: 2, taskId: 'a', attempt: 1, status: 'completed', output: 'rejected' },
      { type: 'task-verify', at: 2, taskId: 'a', attempt: 1, verdict: 'retry', reason: 'no' },
      { type: 'task-start', at: 3, taskId: 'a', attempt: 2, agent: 'w', clone: 0 },
      { type: 'task-end', at: 4, taskId: 'a', attempt: 2, status: 'completed', output: 'good a' },
      { type: 'task-verify', at: 4, taskId: 'a', attempt: 2, verdict: 'accept', reason: '' },
      { type: 'task-start', at: 5, taskId: 'b', attempt: 1, agent: 'w', clone: 0 },
      { type: 'task-end', at: 6, taskId: 'b', attempt: 1, status: 'completed', output: 'good b' },
      { type: 'task-verify', at: 6, taskId: 'b', attempt: 1, verdict: 'accept', reason: '' },
      { type: 'run-end', at: 7, status: 'completed' },
    ] as WeftEvent[];
    const summary = summarizeRun('r', events);
    expect(summary.tasks.map((task) => task.output)).toEqual(['good a', 'good b']);
    expect(summary.workflow?.subtasks.map((subtask) => subtask.status)).toEqual(['completed', 'completed']);
    expect(runResult(summary.tasks)).toEqual({ from: ['b'], text: 'good b', missing: [] });

    // A later version sends `b` back to run: its old output no longer stands.
    const updated = summarizeRun('r', [
      ...events.slice(0, -1),
      {
        type: 'plan-update',
        at: 7,
        version: 2,
        cause: 'review',
        diff: { added: [], removed: [], changed: ['b'], rewired: [] },
        workflow: {
          ...workflow('completed', 'good a'),
          subtasks: [
            workflow('completed', 'good a').subtasks[0]!,
            { ...workflow('completed').subtasks[1]!, objective: 'b2' },
          ],
        },
      },
      { type: 'run-end', at: 8, status: 'failed' },
    ] as WeftEvent[]);
    expect(updated.tasks.map((task) => task.output)).toEqual(['good a', undefined]);
    expect(runResult(updated.tasks)).toBeUndefined();
  });
});

describe('report.md outputs', () => {
  it('shows each output, cuts a long one with a pointer to its file, and fences backticks inside', () => {
    const long = Array.from({ length: 500 }, (_, index) => `line ${index}`).join('\n');
    const tasks = [
      {
        id: 'a/b',
        status: 'completed' as const,
        attempts: 1,
        startMs: 0,
        endMs: 1,
        dependsOn: [],
        toolCalls: 0,
        toolCallsFailed: 0,
        output: 'has ```js\ncode\n``` inside',
      },
      {
        id: 'c',
        status: 'completed' as const,
        attempts: 1,
        startMs: 1,
        endMs: 2,
        dependsOn: ['a/b'],
        toolCalls: 0,
        toolCallsFailed: 0,
        output: long,
      },
    ];
    const report = renderReport({
      summary: {
        runId: 'r',
        status: 'completed',
        planVersion: 1,
        makespanMs: 2,
        calls: 0,
        tokens: { input: 0, output: 0 },
        costUsd: 0,
        toolCalls: 0,
        toolCallsFailed: 0,
        tasks,
      },
      workflow: undefined,
      task: 't',
      model: 'sim:x',
      modelKind: 'sim',
      versions: [],
      artifacts: [],
      refused: [],
    });
    expect(report).toContain('### a/b\n');
    expect(report).toContain('````text\nhas ```js\ncode\n``` inside\n````');
    expect(report).toContain(`File: \`outputs/${outputFileName('a/b')}\``);
    expect(report).toContain('### c (final result)');
    expect(report).toContain('line 39\n```');
    expect(report).not.toContain('line 40\n');
    expect(report).toContain(`Truncated (${long.length} characters in all): the whole output is in \`outputs/c.md\`.`);
  });
});
