/**
 * The live progress view draws each subtask from the same fold of the log as resume and the run summary
 * (run/subtask-fate.ts), so what it shows cannot drift from what `weft show` reports.
 */
import { describe, expect, it } from 'vitest';
import { createProgressView } from '../../src/cli/run/progress.js';
import type { WeftEvent, WorkflowJson } from '../../src/index.js';

const workflow: WorkflowJson = {
  task: 't',
  subtasks: [
    { id: 'a', objective: 'do a', agent: 'writer', dependsOn: [] },
    { id: 'b', objective: 'do b', agent: 'critic', dependsOn: ['a'] },
    { id: 'c', objective: 'do c', agent: 'writer', dependsOn: [] },
  ],
};

function view(events: readonly WeftEvent[]): string[] {
  let written = '';
  const stream = { write: (text: string) => ((written += text), true), columns: 200 };
  const progress = createProgressView(stream as unknown as NodeJS.WritableStream, { live: true });
  for (const event of events) progress.onEvent(event);
  progress.close();
  // The last frame: everything after the last cursor-up sequence.
  const frames = written.split(/\u001b\[\d+F\u001b\[0J/);
  return frames[frames.length - 1]!.trimEnd().split('\n');
}

describe('the live progress view', () => {
  it('shows each subtask as the log fold has it: running, verifying, retried, completed, failed', () => {
    const lines = view([
      { type: 'run-start', at: 0, runId: 'r1', task: 't', model: 'sim:x', strategy: 'on-failure', options: {} },
      { type: 'plan-chosen', at: 1, version: 1, index: 0, workflow },
      { type: 'task-start', at: 2, taskId: 'a', attempt: 1, agent: 'writer', clone: 0 },
      { type: 'task-start', at: 2, taskId: 'c', attempt: 1, agent: 'writer', clone: 1 },
      { type: 'task-end', at: 3, taskId: 'a', attempt: 1, status: 'completed', output: 'A1' },
      { type: 'task-verify', at: 4, taskId: 'a', attempt: 1, verdict: 'retry', reason: 'too short' },
      { type: 'task-start', at: 5, taskId: 'a', attempt: 2, agent: 'writer', clone: 0 },
      { type: 'task-end', at: 6, taskId: 'a', attempt: 2, status: 'completed', output: 'A2' },
      { type: 'task-verify', at: 7, taskId: 'a', attempt: 2, verdict: 'accept', reason: '' },
      { type: 'task-end', at: 8, taskId: 'c', attempt: 1, status: 'completed', output: 'C1' },
      {
        type: 'model-call',
        at: 8,
        purpose: 'execute',
        model: 'sim:x',
        inputTokens: 1,
        outputTokens: 1,
        costUsd: 0.5,
        durationMs: 1,
      },
      { type: 'task-start', at: 9, taskId: 'b', attempt: 1, agent: 'critic', clone: 0 },
    ]);
    expect(lines[0]).toBe('run r1 · plan v1 · running · 1 calls · $0.5000 · sim:x');
    expect(lines.slice(1)).toEqual([
      '  ✔ a writer completed (attempt 2)',
      '  ▶ b critic running',
      '  … c writer verifying',
    ]);
  });

  it('follows a plan update: removed subtasks leave, an aborted attempt is not started again, the end is shown', () => {
    const updated: WorkflowJson = {
      ...workflow,
      subtasks: [workflow.subtasks[0]!, { id: 'd', objective: 'do d', agent: 'critic', dependsOn: ['a'] }],
    };
    const lines = view([
      { type: 'run-start', at: 0, runId: 'r2', task: 't', model: 'sim:x', strategy: 'on-failure', options: {} },
      { type: 'plan-chosen', at: 1, version: 1, index: 0, workflow },
      { type: 'task-start', at: 2, taskId: 'a', attempt: 1, agent: 'writer', clone: 0 },
      { type: 'task-end', at: 3, taskId: 'a', attempt: 1, status: 'failed', error: 'boom' },
      {
        type: 'plan-update',
        at: 4,
        version: 2,
        cause: 'a: boom',
        diff: { added: ['d'], removed: ['b', 'c'], changed: [], rewired: [] },
        workflow: updated,
      },
      { type: 'task-start', at: 5, taskId: 'a', attempt: 2, agent: 'writer', clone: 0 },
      { type: 'task-end', at: 6, taskId: 'a', attempt: 2, status: 'failed', error: 'cancelled', outcome: 'aborted' },
      { type: 'run-end', at: 7, status: 'cancelled', reason: 'SIGINT' },
    ]);
    expect(lines[0]).toBe('run r2 · plan v2 · cancelled: SIGINT · 0 calls · $0.0000 · sim:x');
    expect(lines.slice(1)).toEqual(['  · a writer not started (attempt 2)', '  · d critic not started']);
  });

  it("shows the end of a running subtask's streaming reply on its row, on one line and bounded, until it ends", () => {
    let written = '';
    const stream = { write: (text: string) => ((written += text), true), columns: 60 };
    const progress = createProgressView(stream as unknown as NodeJS.WritableStream, { live: true });
    const lastFrame = () => {
      progress.close();
      const frames = written.split(/\u001b\[\d+F\u001b\[0J/);
      return frames[frames.length - 1]!.trimEnd().split('\n');
    };
    for (const event of [
      { type: 'run-start', at: 0, runId: 'r3', task: 't', model: 'sim:x', strategy: 'on-failure', options: {} },
      { type: 'plan-chosen', at: 1, version: 1, index: 0, workflow },
      { type: 'task-start', at: 2, taskId: 'a', attempt: 1, agent: 'writer', clone: 0 },
    ] as const satisfies readonly WeftEvent[])
      progress.onEvent(event);
    expect(progress.onStream).toBeDefined();
    progress.onStream?.('a', { kind: 'delta', text: 'The first\nline' });
    expect(lastFrame()[1]).toBe('  ▶ a writer running · The first line');
    // A long reply shows its latest characters, and the row stays within the terminal's width.
    progress.onStream?.('a', { kind: 'delta', text: ` ${'x'.repeat(300)} the end` });
    const long = lastFrame()[1]!;
    expect(long.endsWith('x the end')).toBe(true);
    expect(long.length).toBeLessThanOrEqual(59);
    // A discarded try clears it, and so does the end of the attempt.
    progress.onStream?.('a', { kind: 'discard', chars: 320 });
    expect(lastFrame()[1]).toBe('  ▶ a writer running');
    progress.onStream?.('a', { kind: 'delta', text: 'again' });
    progress.onEvent({ type: 'task-end', at: 3, taskId: 'a', attempt: 1, status: 'completed', output: 'A' });
    expect(lastFrame()[1]).toBe('  … a writer verifying');
  });

  it('the plain view (not a terminal) has no stream to hear', () => {
    const progress = createProgressView({ write: () => true } as unknown as NodeJS.WritableStream, { live: false });
    expect(progress.onStream).toBeUndefined();
  });
});
