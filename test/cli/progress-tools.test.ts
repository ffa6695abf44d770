/** Tool calls in the progress views: the live view's count and the tool a subtask waits on. */
import { describe, expect, it } from 'vitest';
import { createProgressView } from '../../src/cli/run/progress.js';
import type { WeftEvent, WorkflowJson } from '../../src/index.js';

const workflow: WorkflowJson = {
  task: 't',
  subtasks: [
    { id: 'a', objective: 'do a', agent: 'clerk', dependsOn: [] },
    { id: 'b', objective: 'do b', agent: 'clerk', dependsOn: [] },
  ],
};

function output(events: readonly WeftEvent[], live: boolean): string[] {
  let written = '';
  const stream = { write: (text: string) => ((written += text), true), columns: 200 };
  const progress = createProgressView(stream as unknown as NodeJS.WritableStream, { live });
  for (const event of events) progress.onEvent(event);
  progress.close();
  const frames = written.split(/\u001b\[\d+F\u001b\[0J/);
  return frames[frames.length - 1]!.trimEnd().split('\n');
}

const events: WeftEvent[] = [
  { type: 'run-start', at: 0, runId: 'r1', task: 't', model: 'sim:x', strategy: 'on-failure', options: {} },
  { type: 'plan-chosen', at: 1, version: 1, index: 0, workflow },
  { type: 'task-start', at: 2, taskId: 'a', attempt: 1, agent: 'clerk', clone: 0 },
  { type: 'task-start', at: 2, taskId: 'b', attempt: 1, agent: 'clerk', clone: 1 },
  {
    type: 'tool-call',
    at: 3,
    taskId: 'a',
    attempt: 1,
    sequence: 0,
    step: 0,
    callId: 'c0',
    name: 'create_order',
    args: {},
  },
  {
    type: 'tool-result',
    at: 4,
    taskId: 'a',
    attempt: 1,
    sequence: 0,
    name: 'create_order',
    ok: true,
    result: 1,
    durationMs: 12,
  },
  {
    type: 'tool-call',
    at: 5,
    taskId: 'a',
    attempt: 1,
    sequence: 1,
    step: 1,
    callId: 'c1',
    name: 'get_order',
    args: {},
  },
  { type: 'tool-call', at: 5, taskId: 'b', attempt: 1, sequence: 0, step: 0, callId: 'c2', name: 'refund', args: {} },
  {
    type: 'tool-result',
    at: 6,
    taskId: 'b',
    attempt: 1,
    sequence: 0,
    name: 'refund',
    ok: false,
    error: 'refund: HTTP 409',
    code: 'TOOL',
    durationMs: 3.4,
  },
];

describe('tool calls in the progress views', () => {
  it('the live view counts them and shows the tool a running subtask waits on', () => {
    const lines = output(events, true);
    expect(lines[0]).toContain('3 tool calls (1 failed)');
    expect(lines.find((line) => line.includes(' a clerk'))).toMatch(/running · tool get_order$/);
    // b waits on no tool; its failed call is counted on its row.
    expect(lines.find((line) => line.includes(' b clerk'))).toMatch(/^ {2}▶ b clerk running · 1 tool call failed$/);
  });

  it('the live view marks a subtask that completed although one of its tool calls failed', () => {
    const done: WeftEvent[] = [
      { type: 'task-end', at: 7, taskId: 'b', attempt: 1, status: 'completed', output: 'refunded' },
      { type: 'task-verify', at: 8, taskId: 'b', attempt: 1, verdict: 'accept', reason: 'ok' },
    ];
    const lines = output([...events, ...done], true);
    expect(lines.find((line) => line.includes(' b clerk'))).toBe('  ⚠ b clerk completed · 1 tool call failed');
  });

  it('the plain view prints one line per finished call, errors with their code', () => {
    const lines = output(events, false);
    expect(lines).toContain('[0.0s] tool create_order for a #1: ok (12 ms)');
    expect(lines).toContain('[0.0s] tool refund for b #1: TOOL: refund: HTTP 409 (3 ms)');
  });
});
