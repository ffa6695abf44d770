/** The node panel's fold (task-detail.ts): what a retry was told, and the subtask's output format. */
import { describe, expect, it } from 'vitest';
import type { WeftEvent } from '../../src/run/events.js';
import { taskDetail } from '../../src/ui/task-detail.js';

const events: WeftEvent[] = [
  {
    type: 'plan-chosen',
    at: 0,
    version: 1,
    index: 0,
    workflow: {
      task: 't',
      subtasks: [{ id: 'a', objective: 'write it', agent: 'w', dependsOn: [], outputFormat: 'Markdown' }],
    },
  },
  { type: 'task-start', at: 1, taskId: 'a', attempt: 1, agent: 'w', clone: 0 },
  { type: 'task-end', at: 2, taskId: 'a', attempt: 1, status: 'completed', output: 'draft' },
  { type: 'task-verify', at: 3, taskId: 'a', attempt: 1, verdict: 'retry', reason: 'no title' },
  {
    type: 'task-start',
    at: 4,
    taskId: 'a',
    attempt: 2,
    agent: 'w',
    clone: 0,
    feedback: [{ attempt: 1, verdict: 'retry', reason: 'no title' }],
  },
];

describe('taskDetail', () => {
  it("gives a retry what it was told, a first attempt nothing, and the subtask's output format", () => {
    const detail = taskDetail(events, 'a');
    expect(detail.outputFormat).toBe('Markdown');
    expect(detail.attempts.map((attempt) => attempt.feedback)).toStrictEqual([
      undefined,
      [{ attempt: 1, verdict: 'retry', reason: 'no title' }],
    ]);
    expect(detail.attempts[0]).toMatchObject({ output: 'draft', verdicts: [{ verdict: 'retry', reason: 'no title' }] });
  });
});
