import { describe, expect, it } from 'vitest';
import { childrenOf, readyTasks, workflowFromJson } from '../../src/graph/index.js';

const workflow = workflowFromJson({
  task: 't',
  subtasks: [
    { id: 'a', objective: 'x', agent: 'w', dependsOn: [], status: 'completed' },
    { id: 'b', objective: 'x', agent: 'w', dependsOn: ['a'] },
    { id: 'c', objective: 'x', agent: 'w', dependsOn: ['a', 'b'] },
    { id: 'd', objective: 'x', agent: 'w', dependsOn: [], status: 'in progress' },
    { id: 'e', objective: 'x', agent: 'w', dependsOn: [], status: 'failed' },
    { id: 'f', objective: 'x', agent: 'w', dependsOn: [] },
    { id: 'g', objective: 'x', agent: 'w', dependsOn: ['e'] },
    { id: 'h', objective: 'x', agent: 'w', dependsOn: ['d', 'a'] },
  ],
});

describe('readyTasks', () => {
  it('lists not-started subtasks whose dependencies are all completed, in input order', () => {
    // b: its one dependency is completed. f: no dependencies. c waits on b, g on failed e, h on running d.
    expect(readyTasks(workflow)).toStrictEqual(['b', 'f']);
  });

  it('is empty once everything has started', () => {
    const started = { subtasks: workflow.subtasks.map((subtask) => ({ ...subtask, status: 'completed' as const })) };
    expect(readyTasks(started)).toStrictEqual([]);
  });
});

describe('childrenOf', () => {
  it('maps every subtask to its dependents in input order', () => {
    expect(childrenOf(workflow)).toStrictEqual(
      new Map([
        ['a', ['b', 'c', 'h']],
        ['b', ['c']],
        ['c', []],
        ['d', ['h']],
        ['e', ['g']],
        ['f', []],
        ['g', []],
        ['h', []],
      ]),
    );
  });
});
