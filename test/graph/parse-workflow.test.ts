import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { WeftError, formatError, type LocatedIssue } from '../../src/errors.js';
import { parseWorkflow, toWorkflowJson, workflowFromJson, type Workflow } from '../../src/graph/index.js';

function issuesOf(input: unknown, file?: string): readonly LocatedIssue[] {
  const result = parseWorkflow(input, file === undefined ? {} : { file });
  if (result.ok) throw new Error('expected the plan to be rejected');
  return result.issues;
}

function workflowFrom(input: unknown): Workflow {
  const result = parseWorkflow(input);
  if (!result.ok) throw new Error(`expected a valid plan, got ${JSON.stringify(result.issues)}`);
  return result.workflow;
}

const validYaml = `task: Write a report
subtasks:
  - id: research
    objective: Collect sources
    agent: researcher
  - id: draft
    objective: Write the draft
    agent: writer
    dependsOn: [research]
`;

describe('parseWorkflow: valid plans', () => {
  it('reads YAML, fills defaults and derives roles from the agents in order of first use', () => {
    expect(workflowFrom(validYaml)).toStrictEqual({
      task: 'Write a report',
      roles: [
        { name: 'researcher', prompt: 'You are the researcher.', kind: 'llm' },
        { name: 'writer', prompt: 'You are the writer.', kind: 'llm' },
      ],
      subtasks: [
        {
          id: 'research',
          objective: 'Collect sources',
          agent: 'researcher',
          dependsOn: [],
          status: 'not started',
          attempts: 0,
        },
        {
          id: 'draft',
          objective: 'Write the draft',
          agent: 'writer',
          dependsOn: ['research'],
          status: 'not started',
          attempts: 0,
        },
      ],
    });
  });

  it('reads JSON text and plain objects to the same workflow as YAML', () => {
    const object = {
      task: 'Write a report',
      subtasks: [
        { id: 'research', objective: 'Collect sources', agent: 'researcher', dependsOn: [] },
        { id: 'draft', objective: 'Write the draft', agent: 'writer', dependsOn: ['research'] },
      ],
    };
    const fromYaml = workflowFrom(validYaml);
    expect(workflowFrom(JSON.stringify(object, null, 2))).toStrictEqual(fromYaml);
    expect(workflowFrom(object)).toStrictEqual(fromYaml);
  });

  it('keeps declared roles, statuses, outputs and attempts', () => {
    const workflow = workflowFrom({
      task: 't',
      roles: [
        { name: 'panel', prompt: 'Debate.', kind: 'team', team: 'teams/panel.yaml' },
        { name: 'coder', prompt: 'You code.' },
      ],
      subtasks: [
        { id: 'a', objective: 'x', agent: 'panel', dependsOn: [], status: 'completed', output: 'done', attempts: 2 },
      ],
    });
    expect(workflow.roles).toStrictEqual([
      { name: 'panel', prompt: 'Debate.', kind: 'team', team: 'teams/panel.yaml' },
      { name: 'coder', prompt: 'You code.', kind: 'llm' },
    ]);
    expect(workflow.subtasks[0]).toStrictEqual({
      id: 'a',
      objective: 'x',
      agent: 'panel',
      dependsOn: [],
      status: 'completed',
      output: 'done',
      attempts: 2,
    });
  });

  it("keeps a team role's taskType, and refuses one on an ordinary role", () => {
    const workflow = workflowFrom({
      task: 't',
      roles: [{ name: 'panel', prompt: 'Debate.', kind: 'team', team: 'p.yaml', taskType: 'math' }],
      subtasks: [{ id: 'a', objective: 'x', agent: 'panel' }],
    });
    expect(workflow.roles[0]).toStrictEqual({
      name: 'panel',
      prompt: 'Debate.',
      kind: 'team',
      team: 'p.yaml',
      taskType: 'math',
    });
    const issues = issuesOf({
      task: 't',
      roles: [{ name: 'w', prompt: 'p', taskType: 'math' }],
      subtasks: [{ id: 'a', objective: 'x', agent: 'w' }],
    });
    expect(issues).toEqual([
      expect.objectContaining({
        field: 'roles[0].taskType',
        message: expect.stringContaining('applies only to roles of kind "team"'),
      }),
    ]);
  });

  it('returns a deeply frozen workflow and does not share arrays with the input', () => {
    const dependsOn = ['a'];
    const workflow = workflowFrom({
      task: 't',
      subtasks: [
        { id: 'a', objective: 'x', agent: 'w' },
        { id: 'b', objective: 'y', agent: 'w', dependsOn },
      ],
    });
    expect(Object.isFrozen(workflow)).toBe(true);
    expect(Object.isFrozen(workflow.subtasks)).toBe(true);
    expect(Object.isFrozen(workflow.subtasks[1])).toBe(true);
    expect(Object.isFrozen(workflow.subtasks[1]?.dependsOn)).toBe(true);
    expect(Object.isFrozen(workflow.roles[0])).toBe(true);
    expect(Object.isFrozen(dependsOn)).toBe(false);
    expect(() => (workflow.subtasks as unknown as unknown[]).push({})).toThrow(TypeError);
  });

  it('accepts a byte-order mark and picks the syntax from the file extension', () => {
    expect(workflowFrom(`\uFEFF${validYaml}`).subtasks).toHaveLength(2);
    // Flow-style YAML starting with `{` is read as YAML when the file says so.
    const flowYaml = '{task: t, subtasks: [{id: a, objective: x, agent: w}]}';
    expect(parseWorkflow(flowYaml, { file: 'plan.yaml' }).ok).toBe(true);
    expect(issuesOf(flowYaml)[0]?.message).toMatch(/^invalid JSON: expected a double-quoted property name/);
  });
});

describe('parseWorkflow: syntax errors carry a line and column', () => {
  it('locates a JSON syntax error', () => {
    const text = '{\n  "task": "t",\n  "subtasks": [\n    {"id": "a",}\n  ]\n}';
    expect(issuesOf(text, 'plan.json')).toStrictEqual([
      { file: 'plan.json', line: 4, column: 16, message: 'invalid JSON: trailing comma before }' },
    ]);
  });

  it.each([
    ['{"task": }', 1, 10, 'expected a value, unexpected character "}"'],
    ['{"task": "t"\n "subtasks": []}', 2, 2, `expected ',' or '}' after a property value, unexpected character "\\""`],
    ['[1,]', 1, 4, 'trailing comma before ]'],
    ['{"a": tru}', 1, 7, 'expected a value, unexpected character "t"'],
    ['{"a": "x\\q"}', 1, 9, 'invalid escape sequence \\q in string'],
    ['{"a": "line\nbreak"}', 1, 12, 'unescaped control character (e.g. a line break) in string'],
    ['{"a": 1}}', 1, 9, 'unexpected content after the JSON value: "}"'],
    ['{"a": 01}', 1, 8, `expected ',' or '}' after a property value, unexpected character "1"`],
    ['{"a" 1}', 1, 6, `expected ':' after a property name, found character "1"`],
    ['{"a": "open', 1, 12, 'unterminated string'],
    ['{"a": [1, 2', 1, 12, `expected ',' or ']' after an array element, unexpected end of input`],
  ])('JSON %j → line %i column %i', (text, line, column, message) => {
    expect(issuesOf(text)).toStrictEqual([{ line, column, message: `invalid JSON: ${message}` }]);
  });

  it('rejects a key repeated in one JSON object (JSON.parse would keep the last silently)', () => {
    expect(issuesOf('{"task": "a",\n "task": "b", "subtasks": []}')).toStrictEqual([
      { line: 2, column: 2, message: 'invalid JSON: duplicate key "task" in the same object' },
    ]);
  });

  it('locates a YAML syntax error', () => {
    expect(issuesOf('task: t\nsubtasks:\n\t- id: a\n', 'plan.yaml')).toStrictEqual([
      { file: 'plan.yaml', line: 3, column: 1, message: 'invalid YAML: Tabs are not allowed as indentation' },
    ]);
  });

  it('rejects a repeated YAML key with its line', () => {
    expect(issuesOf('task: a\ntask: b\nsubtasks: []\n')).toMatchObject([
      { line: 2, column: 1, message: expect.stringMatching(/^invalid YAML: .*unique/) },
    ]);
  });

  it('reports an empty plan', () => {
    expect(issuesOf('')).toStrictEqual([{ message: 'the plan is empty' }]);
    expect(issuesOf(null)).toStrictEqual([{ message: 'the plan is empty' }]);
  });
});

describe('parseWorkflow: shape rules, located by line, column and field', () => {
  it('requires task and subtasks', () => {
    expect(issuesOf('roles: []\n', 'p.yaml')).toStrictEqual([
      { file: 'p.yaml', line: 1, column: 1, field: 'task', message: 'missing required field "task"' },
      { file: 'p.yaml', line: 1, column: 1, field: 'subtasks', message: 'missing required field "subtasks"' },
    ]);
  });

  it('rejects a blank task and an empty subtask list', () => {
    expect(issuesOf('task: "   "\nsubtasks: []\n')).toStrictEqual([
      { line: 1, column: 1, field: 'task', message: 'must not be empty' },
      { line: 2, column: 1, field: 'subtasks', message: 'must list at least one subtask' },
    ]);
  });

  it('rejects a non-object plan and a non-array subtask list', () => {
    expect(issuesOf('- a\n- b\n')).toStrictEqual([{ line: 1, column: 1, message: 'expected an object, got an array' }]);
    expect(issuesOf({ task: 't', subtasks: 'all of it' })).toStrictEqual([
      { field: 'subtasks', message: 'expected an array, got a string' },
    ]);
  });

  it('rejects missing, blank and mistyped subtask fields', () => {
    const text = [
      'task: t', //                        1
      'subtasks:', //                      2
      '  - id: a', //                      3
      '    agent: w', //                   4
      '  - id: b', //                      5
      '    objective: "  "', //            6
      '    agent: 7', //                   7
      '    dependsOn: [a, 3]', //          8
      '    attempts: -1', //               9
      '  - id: ""', //                     10
      '    objective: x', //               11
      '    agent: w', //                   12
      '    status: done', //               13
      '    attempts: 1.5', //              14
      '    output: [x]', //                15
    ].join('\n');
    expect(issuesOf(text, 'plan.yaml')).toStrictEqual([
      {
        file: 'plan.yaml',
        line: 3,
        column: 5,
        field: 'subtasks[0].objective',
        message: 'missing required field "objective"',
      },
      { file: 'plan.yaml', line: 6, column: 5, field: 'subtasks[1].objective', message: 'must not be empty' },
      { file: 'plan.yaml', line: 7, column: 5, field: 'subtasks[1].agent', message: 'expected a string, got a number' },
      {
        file: 'plan.yaml',
        line: 8,
        column: 20,
        field: 'subtasks[1].dependsOn[1]',
        message: 'expected a string, got a number',
      },
      { file: 'plan.yaml', line: 9, column: 5, field: 'subtasks[1].attempts', message: 'must not be negative' },
      { file: 'plan.yaml', line: 10, column: 5, field: 'subtasks[2].id', message: 'must not be empty' },
      {
        file: 'plan.yaml',
        line: 13,
        column: 5,
        field: 'subtasks[2].status',
        message: 'must be one of "not started", "in progress", "completed", "failed"',
      },
      { file: 'plan.yaml', line: 14, column: 5, field: 'subtasks[2].attempts', message: 'must be a whole number' },
      {
        file: 'plan.yaml',
        line: 15,
        column: 5,
        field: 'subtasks[2].output',
        message: 'expected a string, got an array',
      },
    ]);
  });

  it('rejects unknown fields in subtasks, roles and at the top level, naming the allowed ones', () => {
    const text = [
      '{',
      '  "task": "t",',
      '  "version": 2,',
      '  "roles": [{"name": "w", "prompt": "p", "model": "x"}],',
      '  "subtasks": [',
      '    {"id": "a", "objective": "x", "agent": "w", "depends_on": []}',
      '  ]',
      '}',
    ].join('\n');
    expect(issuesOf(text)).toStrictEqual([
      {
        line: 3,
        column: 3,
        field: 'version',
        message: 'unknown field "version"; expected one of: task, roles, subtasks',
      },
      {
        line: 4,
        column: 42,
        field: 'roles[0].model',
        message: 'unknown field "model"; expected one of: name, prompt, kind, team, taskType, tools',
      },
      {
        line: 6,
        column: 49,
        field: 'subtasks[0].depends_on',
        message:
          'unknown field "depends_on"; expected one of: id, objective, agent, dependsOn, status, output, attempts, outputFormat',
      },
    ]);
  });

  it('checks roles: prompt, kind, team', () => {
    const text = [
      'task: t', //                                   1
      'roles:', //                                    2
      '  - name: a', //                               3
      '    prompt: ""', //                            4
      '  - name: b', //                               5
      '    prompt: p', //                             6
      '    kind: ""', //                              7
      '  - name: c', //                               8
      '    prompt: p', //                             9
      '    kind: team', //                            10
      '  - name: d', //                               11
      '    prompt: p', //                             12
      '    team: t.yaml', //                          13
      'subtasks:', //                                 14
      '  - {id: x, objective: o, agent: a}', //       15
    ].join('\n');
    expect(issuesOf(text)).toStrictEqual([
      { line: 4, column: 5, field: 'roles[0].prompt', message: 'must not be empty' },
      { line: 7, column: 5, field: 'roles[1].kind', message: 'must not be empty' },
      { line: 8, column: 5, field: 'roles[2].team', message: 'a role of kind "team" needs a "team" file' },
      { line: 13, column: 5, field: 'roles[3].team', message: '"team" applies only to roles of kind "team"' },
    ]);
  });
});

describe('parseWorkflow: role kinds', () => {
  it('accepts any kind name: which kinds exist is up to the engines a run is given (checked when it starts)', () => {
    const parsed = parseWorkflow(
      'task: t\nroles:\n  - {name: a, prompt: p, kind: echo}\nsubtasks:\n  - {id: x, objective: o, agent: a}\n',
    );
    expect(parsed.ok && parsed.workflow.roles.map((role) => role.kind)).toEqual(['echo']);
  });
});

describe('parseWorkflow: graph rules', () => {
  it('rejects a duplicate id, naming both positions', () => {
    const text =
      'task: t\nsubtasks:\n  - id: a\n    objective: x\n    agent: w\n  - id: a\n    objective: y\n    agent: w\n';
    expect(issuesOf(text, 'plan.yaml')).toStrictEqual([
      {
        file: 'plan.yaml',
        line: 6,
        column: 5,
        field: 'subtasks[1].id',
        message: 'duplicate id "a", also used at subtasks[0].id (line 3)',
      },
    ]);
  });

  it('rejects an unknown dependency, naming it', () => {
    const plan = { task: 't', subtasks: [{ id: 'a', objective: 'x', agent: 'w', dependsOn: ['ghost'] }] };
    expect(issuesOf(plan, 'plan.json')).toStrictEqual([
      { file: 'plan.json', field: 'subtasks[0].dependsOn[0]', message: 'unknown dependency "ghost"' },
    ]);
  });

  it('rejects a self-dependency and a repeated dependency', () => {
    const text =
      'task: t\nsubtasks:\n  - {id: a, objective: x, agent: w}\n  - {id: b, objective: y, agent: w, dependsOn: [a, b, a]}\n';
    expect(issuesOf(text)).toStrictEqual([
      { line: 4, column: 52, field: 'subtasks[1].dependsOn[1]', message: 'subtask "b" depends on itself' },
      { line: 4, column: 55, field: 'subtasks[1].dependsOn[2]', message: 'dependency "a" is listed twice' },
    ]);
  });

  it('rejects a cycle, naming it from its earliest subtask and locating where it closes', () => {
    const text = [
      'task: t',
      'subtasks:',
      '  - {id: a, objective: x, agent: w, dependsOn: [c]}',
      '  - {id: b, objective: x, agent: w, dependsOn: [a]}',
      '  - {id: c, objective: x, agent: w, dependsOn: [b]}',
      '  - {id: d, objective: x, agent: w, dependsOn: [c]}',
    ].join('\n');
    expect(issuesOf(text)).toStrictEqual([
      { line: 3, column: 49, field: 'subtasks[0].dependsOn[0]', message: 'cycle: a -> b -> c -> a' },
    ]);
  });

  it('reports each separate cycle', () => {
    const plan = {
      task: 't',
      subtasks: [
        { id: 'a', objective: 'x', agent: 'w', dependsOn: ['b'] },
        { id: 'b', objective: 'x', agent: 'w', dependsOn: ['a'] },
        { id: 'c', objective: 'x', agent: 'w', dependsOn: ['d'] },
        { id: 'd', objective: 'x', agent: 'w', dependsOn: ['c'] },
      ],
    };
    expect(issuesOf(plan).map((issue) => [issue.field, issue.message])).toStrictEqual([
      ['subtasks[0].dependsOn[0]', 'cycle: a -> b -> a'],
      ['subtasks[2].dependsOn[0]', 'cycle: c -> d -> c'],
    ]);
  });

  it('rejects an agent that is not a declared role, listing the roles', () => {
    const plan = {
      task: 't',
      roles: [
        { name: 'writer', prompt: 'p' },
        { name: 'coder', prompt: 'p' },
      ],
      subtasks: [{ id: 'a', objective: 'x', agent: 'painter', dependsOn: [] }],
    };
    expect(issuesOf(plan)).toStrictEqual([
      { field: 'subtasks[0].agent', message: 'unknown role "painter"; roles are: writer, coder' },
    ]);
  });

  it('rejects a duplicate role name', () => {
    const plan = {
      task: 't',
      roles: [
        { name: 'w', prompt: 'p' },
        { name: 'w', prompt: 'q' },
      ],
      subtasks: [{ id: 'a', objective: 'x', agent: 'w' }],
    };
    expect(issuesOf(plan)).toStrictEqual([
      { field: 'roles[1].name', message: 'duplicate role "w", also declared at roles[0].name' },
    ]);
  });

  it('returns all issues at once, shape and graph together, in source order', () => {
    const text = [
      'task: t', //                                               1
      'subtasks:', //                                             2
      '  - {id: a, objective: "", agent: w, dependsOn: [zz]}', // 3
      '  - {id: a, objective: x, agent: w, colour: red}', //      4
    ].join('\n');
    expect(
      issuesOf(text).map((issue) => `${issue.line}:${issue.column} ${issue.field}: ${issue.message}`),
    ).toStrictEqual([
      '3:13 subtasks[0].objective: must not be empty',
      '3:50 subtasks[0].dependsOn[0]: unknown dependency "zz"',
      '4:6 subtasks[1].id: duplicate id "a", also used at subtasks[0].id (line 3)',
      '4:37 subtasks[1].colour: unknown field "colour"; expected one of: id, objective, agent, dependsOn, status, output, attempts, outputFormat',
    ]);
  });
});

describe('workflowFromJson and toWorkflowJson', () => {
  it('throws PLAN_INVALID carrying every issue', () => {
    let caught: unknown;
    try {
      workflowFromJson({ task: '', subtasks: [{ id: 'a', objective: 'x', agent: 'w', dependsOn: ['a'] }] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WeftError);
    const error = caught as WeftError;
    expect(error.code).toBe('PLAN_INVALID');
    expect(error.issues.map((issue) => issue.field)).toStrictEqual(['task', 'subtasks[0].dependsOn[0]']);
    expect(formatError(error)).toBe(
      [
        'invalid workflow: 2 issues',
        '  - task: must not be empty',
        '  - subtasks[0].dependsOn[0]: subtask "a" depends on itself',
      ].join('\n'),
    );
  });

  it('writes every field, and the result parses back to the same workflow from JSON or YAML text', () => {
    const workflow = workflowFrom(validYaml);
    const json = toWorkflowJson(workflow);
    expect(json).toStrictEqual({
      task: 'Write a report',
      roles: [
        { name: 'researcher', prompt: 'You are the researcher.', kind: 'llm' },
        { name: 'writer', prompt: 'You are the writer.', kind: 'llm' },
      ],
      subtasks: [
        {
          id: 'research',
          objective: 'Collect sources',
          agent: 'researcher',
          dependsOn: [],
          status: 'not started',
          attempts: 0,
        },
        {
          id: 'draft',
          objective: 'Write the draft',
          agent: 'writer',
          dependsOn: ['research'],
          status: 'not started',
          attempts: 0,
        },
      ],
    });
    expect(workflowFrom(JSON.stringify(json))).toStrictEqual(workflow);
    expect(workflowFrom(stringify(json))).toStrictEqual(workflow);
    // The JSON is a fresh, mutable copy.
    json.subtasks[0]?.dependsOn.push('x');
    expect(workflow.subtasks[0]?.dependsOn).toStrictEqual([]);
  });
});

describe('sections other readers own', () => {
  it('leaves out the named top-level keys, and only those; without sections they are unknown fields', () => {
    const text = 'task: t\ntools: []\nallowHosts: [localhost]\nsubtasks: [{ id: a, objective: o, agent: x }]\n';
    expect(parseWorkflow(text, { file: 'plan.yaml', sections: ['tools', 'allowHosts'] }).ok).toBe(true);
    const strict = parseWorkflow(text, { file: 'plan.yaml' });
    expect(strict.ok).toBe(false);
    if (!strict.ok) expect(strict.issues.map((issue) => issue.field)).toEqual(['tools', 'allowHosts']);
    expect(parseWorkflow(text, { file: 'plan.yaml', sections: ['tools'] }).ok).toBe(false);
  });
});
