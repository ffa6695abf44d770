import { describe, expect, it } from 'vitest';
import { diffWorkflows, formatDiff, workflowFromJson } from '../../src/graph/index.js';

const before = workflowFromJson({
  task: 't',
  subtasks: [
    { id: 'a', objective: 'research', agent: 'researcher', dependsOn: [] },
    { id: 'b', objective: 'draft', agent: 'writer', dependsOn: ['a'] },
    { id: 'c', objective: 'review', agent: 'writer', dependsOn: ['a', 'b'] },
    { id: 'd', objective: 'publish', agent: 'writer', dependsOn: ['c'] },
  ],
});

describe('diffWorkflows', () => {
  it('finds added, removed, changed and rewired subtasks', () => {
    const after = workflowFromJson({
      task: 't',
      subtasks: [
        { id: 'a', objective: 'research', agent: 'researcher', dependsOn: [], status: 'completed', output: 'notes' },
        { id: 'e', objective: 'outline', agent: 'writer', dependsOn: ['a'] },
        { id: 'b', objective: 'draft from the outline', agent: 'writer', dependsOn: ['e'] },
        // Same dependencies in another order: not rewired. Another agent: changed.
        { id: 'c', objective: 'review', agent: 'editor', dependsOn: ['b', 'a'] },
      ],
    });
    expect(diffWorkflows(before, after)).toStrictEqual({
      added: ['e'],
      removed: ['d'],
      changed: ['b', 'c'],
      rewired: ['b'],
    });
  });

  it('ignores status, output and attempts', () => {
    const after = {
      subtasks: before.subtasks.map((subtask) => ({ ...subtask, status: 'failed' as const, attempts: 3, output: 'x' })),
    };
    expect(diffWorkflows(before, after)).toStrictEqual({ added: [], removed: [], changed: [], rewired: [] });
  });
});

describe('formatDiff', () => {
  it('writes one line per non-empty category', () => {
    expect(formatDiff({ added: ['e', 'f'], removed: [], changed: ['b'], rewired: ['b', 'c'] })).toBe(
      'added: e, f\nchanged: b\nrewired: b, c',
    );
  });

  it('says when nothing changed', () => {
    expect(formatDiff({ added: [], removed: [], changed: [], rewired: [] })).toBe('no changes');
  });
});
