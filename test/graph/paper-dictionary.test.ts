import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fromPaperDictionary,
  readyTasks,
  toPaperDictionary,
  workflowFromJson,
  type Workflow,
} from '../../src/graph/index.js';
import { randomDag, workflowOf } from './workflow-fixtures.js';

const workflow = workflowFromJson({
  task: 'write a report',
  subtasks: [
    {
      id: 'a',
      objective: 'collect sources',
      agent: 'researcher',
      dependsOn: [],
      status: 'completed',
      output: 'three papers',
    },
    { id: 'b', objective: 'outline', agent: 'writer', dependsOn: ['a'], status: 'in progress' },
    { id: 'c', objective: 'draft', agent: 'writer', dependsOn: ['a', 'b'] },
    { id: 'd', objective: 'check figures', agent: 'researcher', dependsOn: [], status: 'failed', output: '' },
  ],
});

/** Through JSON text and back, as a plan would travel to and from a model. */
function roundTrip(value: Workflow): Workflow {
  const result = fromPaperDictionary(JSON.parse(JSON.stringify(toPaperDictionary(value))), value.task);
  if (!result.ok) throw new Error(result.issues.map((issue) => `${issue.field ?? ''}: ${issue.message}`).join('\n'));
  return result.workflow;
}

/** What the dictionary carries: everything but attempts and role prompts; dependencies as a set. */
function carried(value: Workflow) {
  return value.subtasks.map((subtask) => ({
    id: subtask.id,
    objective: subtask.objective,
    agent: subtask.agent,
    status: subtask.status,
    output: subtask.output,
    dependsOn: [...subtask.dependsOn].sort(),
  }));
}

describe('toPaperDictionary', () => {
  it('writes the paper record of every subtask, in subtask order', () => {
    const dictionary = toPaperDictionary(workflow);
    expect(Object.keys(dictionary)).toStrictEqual(['a', 'b', 'c', 'd']);
    expect(dictionary).toStrictEqual({
      a: {
        objective: 'collect sources',
        status: 'completed',
        data: 'three papers',
        num_parents_not_completed: 0,
        child: ['b', 'c'],
        agent: 'researcher',
      },
      b: {
        objective: 'outline',
        status: 'in progress',
        data: null,
        num_parents_not_completed: 0,
        child: ['c'],
        agent: 'writer',
      },
      // a is completed, b is not.
      c: {
        objective: 'draft',
        status: 'not started',
        data: null,
        num_parents_not_completed: 1,
        child: [],
        agent: 'writer',
      },
      d: {
        objective: 'check figures',
        status: 'failed',
        data: '',
        num_parents_not_completed: 0,
        child: [],
        agent: 'researcher',
      },
    });
  });

  it('agrees with readyTasks: ready means "not started" with no uncompleted parent', () => {
    fc.assert(
      fc.property(randomDag({ varied: true }), (dag) => {
        const dictionary = toPaperDictionary(dag.workflow);
        const ready = Object.entries(dictionary)
          .filter(([, record]) => record.status === 'not started' && record.num_parents_not_completed === 0)
          .map(([id]) => id);
        expect(ready).toStrictEqual(readyTasks(dag.workflow));
      }),
    );
  });

  it('keeps an id like "__proto__" as a plain key', () => {
    // A computed key, because `{ __proto__: [] }` would set the literal's prototype instead.
    const special = workflowOf({ ['__proto__']: [], b: ['__proto__'] });
    const dictionary = toPaperDictionary(special);
    expect(Object.keys(dictionary)).toStrictEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(dictionary)).toBe(Object.prototype);
    expect(roundTrip(special).subtasks[1]?.dependsOn).toStrictEqual(['__proto__']);
  });
});

describe('fromPaperDictionary', () => {
  it('round-trips through JSON text: ids, objectives, agents, statuses, outputs and edges', () => {
    const back = roundTrip(workflow);
    expect(carried(back)).toStrictEqual(carried(workflow));
    expect(back.task).toBe('write a report');
    expect(back.subtasks.every((subtask) => subtask.attempts === 0)).toBe(true);
    expect(Object.isFrozen(back.subtasks[0])).toBe(true);
  });

  it('round-trips random DAGs with random statuses and outputs', () => {
    fc.assert(
      fc.property(randomDag({ varied: true }), (dag) => {
        const back = roundTrip(dag.workflow);
        expect(carried(back)).toStrictEqual(carried(dag.workflow));
        // And the dictionary itself is a fixed point.
        expect(toPaperDictionary(back)).toStrictEqual(toPaperDictionary(dag.workflow));
      }),
    );
  });

  it('reads the paper prompt example (no objective there, so one is added) with defaults for missing fields', () => {
    const result = fromPaperDictionary(
      {
        Task_A: {
          objective: 'A',
          status: 'not started',
          data: null,
          num_parents_not_completed: 0,
          child: ['Task_B', 'Task_C'],
          agent: 'Agent_1',
        },
        Task_B: {
          objective: 'B',
          status: 'not started',
          data: null,
          num_parents_not_completed: 1,
          child: ['Task_D'],
          agent: 'Agent_2',
        },
        Task_C: { objective: 'C', agent: 'Agent_1' },
        Task_D: { objective: 'D', child: [], agent: 'Agent_2' },
      },
      'the task',
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.workflow.subtasks.map((subtask) => [subtask.id, subtask.dependsOn, subtask.status])).toStrictEqual([
      ['Task_A', [], 'not started'],
      ['Task_B', ['Task_A'], 'not started'],
      ['Task_C', ['Task_A'], 'not started'],
      ['Task_D', ['Task_B'], 'not started'],
    ]);
    expect(result.workflow.roles.map((role) => role.name)).toStrictEqual(['Agent_1', 'Agent_2']);
  });

  it('recomputes an inconsistent num_parents_not_completed instead of reporting it', () => {
    const dictionary = toPaperDictionary(workflow);
    dictionary.c = { ...dictionary.c!, num_parents_not_completed: 7 };
    dictionary.a = { ...dictionary.a!, num_parents_not_completed: 3 };
    const result = fromPaperDictionary(dictionary, workflow.task);
    expect(result.ok).toBe(true);
    if (result.ok) expect(toPaperDictionary(result.workflow)).toStrictEqual(toPaperDictionary(workflow));
  });

  it('takes dependsOn in key order of the parents', () => {
    const result = fromPaperDictionary(
      {
        x: { objective: 'x', agent: 'w', child: ['z'] },
        y: { objective: 'y', agent: 'w', child: ['z'] },
        z: { objective: 'z', agent: 'w' },
      },
      'task',
    );
    expect(result.ok && result.workflow.subtasks[2]?.dependsOn).toStrictEqual(['x', 'y']);
  });

  it('reports unknown, self and repeated children, cycles, bad records and unknown roles, with field paths', () => {
    const result = fromPaperDictionary(
      {
        a: { objective: 'a', agent: 'w', child: ['b', 'ghost', 'a', 'b'] },
        b: { objective: 'b', agent: 'w', child: ['c'] },
        c: { objective: 'c', agent: 'w', child: ['a'] },
        d: { objective: ' ', agent: 'w', status: 'done', data: 42, childs: [] },
        e: 'not a record',
        f: { agent: 'boss' },
      },
      'task',
      { file: 'plan.json', roles: [{ name: 'w', prompt: 'You work.', kind: 'llm' }] },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const byField = new Map(result.issues.map((issue) => [issue.field, issue.message]));
    expect(byField.get('a.child[1]')).toBe('unknown child "ghost"');
    expect(byField.get('a.child[2]')).toBe('subtask "a" lists itself as a child');
    expect(byField.get('a.child[3]')).toBe('child "b" is listed twice');
    expect(byField.get('c.child[0]')).toBe('cycle: a -> b -> c -> a');
    expect(byField.get('d.objective')).toBe('must not be empty');
    expect(byField.get('d.status')).toMatch(/must be one of "not started"/);
    expect(byField.get('d.data')).toBe('must be a string or null');
    expect(byField.get('d.childs')).toMatch(/^unknown field "childs"; expected one of: objective, status, data/);
    expect(byField.get('e')).toBe('expected a subtask record (an object), got a string');
    expect(byField.get('f.objective')).toBe('missing required field "objective"');
    expect(result.issues.every((issue) => issue.file === 'plan.json')).toBe(true);
    expect(result.issues).toHaveLength(10);
  });

  it('reports an agent outside the given roles, and keeps the given roles', () => {
    const roles = [{ name: 'writer', prompt: 'You write.', kind: 'llm' as const }];
    const bad = fromPaperDictionary({ a: { objective: 'a', agent: 'coder' } }, 'task', { roles });
    expect(bad.ok ? [] : bad.issues).toStrictEqual([
      { field: 'a.agent', message: 'unknown role "coder"; roles are: writer' },
    ]);
    const good = fromPaperDictionary({ a: { objective: 'a', agent: 'writer' } }, 'task', { roles });
    expect(good.ok && good.workflow.roles).toStrictEqual(roles);
  });

  it('rejects what is not a dictionary of subtasks, and a blank task', () => {
    for (const value of [null, [], 'text', {}]) {
      const result = fromPaperDictionary(value, 'task');
      expect(result.ok).toBe(false);
    }
    const blankTask = fromPaperDictionary({ a: { objective: 'a', agent: 'w' } }, '  ');
    expect(blankTask.ok ? [] : blankTask.issues.map((issue) => issue.field)).toStrictEqual(['task']);
  });
});
