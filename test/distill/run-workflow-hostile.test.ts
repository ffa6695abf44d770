/**
 * Hostile workflows for the interpreter: JSONata that never ends or recurses without bound, prototype names as
 * node ids, variables and inputs, huge and deeply nested loops.
 */
import { describe, expect, it } from 'vitest';
import { parseExecutableWorkflow } from '../../src/distill/read-workflow-file.js';
import { runWorkflow } from '../../src/distill/run-workflow.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';

const oneSet = (values: Record<string, unknown>, output: unknown = '{% vars %}'): ExecutableWorkflow => ({
  name: 'one_set',
  nodes: [
    { id: 'start', kind: 'start' },
    { id: 'loop', kind: 'set', values },
    { id: 'end', kind: 'end', output },
  ],
  edges: [
    { from: 'start', to: 'loop' },
    { from: 'loop', to: 'end' },
  ],
});

describe('runWorkflow on expressions that never end', () => {
  it('stops a JSONata expression that loops forever at its time limit, naming the node (it starved the event loop)', async () => {
    const forever = oneSet({ x: '{% ($f := function($n){ $f($n + 1) }; $f(0)) %}' });
    // Without the limit this never settles: not even vitest's own timeout can fire.
    await expect(runWorkflow(forever, { input: {}, expressionTimeLimitMs: 300 })).rejects.toMatchObject({
      code: 'WORKFLOW',
      message: expect.stringMatching(/node loop \(values\)\.x: .*failed: .*timeout/i),
    });
  });

  it('stops unbounded non-tail recursion by depth, not by memory', async () => {
    const deep = oneSet({ x: '{% ($f := function($n){ 1 + $f($n + 1) }; $f(0)) %}' });
    await expect(runWorkflow(deep, { input: {} })).rejects.toMatchObject({
      code: 'WORKFLOW',
      message: expect.stringMatching(/node loop \(values\)\.x: .*Stack overflow/),
    });
  });

  it('still runs deep but bounded recursion', async () => {
    const bounded = oneSet({ x: '{% ($f := function($n){ $n = 0 ? 0 : 1 + $f($n - 1) }; $f(500)) %}' }, '{% vars.x %}');
    expect((await runWorkflow(bounded, { input: {} })).output).toBe(500);
  });
});

describe('prototype names in a workflow file', () => {
  it('refuses "__proto__" as an input, argument or variable name (zod dropped it silently), located', async () => {
    const text = `{
  "name": "p",
  "inputs": { "__proto__": { "type": "object" }, "n": { "__proto__": { "type": "string" } } },
  "nodes": [
    { "id": "start", "kind": "start" },
    { "id": "s", "kind": "set", "values": { "__proto__": { "polluted": 1 } } },
    { "id": "t", "kind": "tool", "tool": "echo", "args": { "__proto__": 1 } },
    { "id": "end", "kind": "end", "output": { "__proto__": "{% vars %}" } }
  ],
  "edges": [{ "from": "start", "to": "s" }, { "from": "s", "to": "t" }, { "from": "t", "to": "end" }]
}`;
    const { workflow, problems } = await parseExecutableWorkflow(text, 'p.workflow.json');
    expect(workflow).toBeUndefined();
    expect(problems.map((problem) => `${problem.line}:${problem.path}`)).toEqual([
      '3:inputs.__proto__',
      '3:inputs.n.__proto__',
      '6:nodes[1].values.__proto__',
      '7:nodes[2].args.__proto__',
    ]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('runs with prototype names as node ids, variables and keys of values, polluting nothing', async () => {
    const workflow: ExecutableWorkflow = {
      name: 'proto',
      nodes: [
        { id: 'start', kind: 'start' },
        { id: '__proto__', kind: 'forEach', items: '{% [1, 2] %}', as: 'constructor', body: 'body', out: 'toString' },
        { id: 'body', kind: 'set', values: { hasOwnProperty: '{% vars.constructor * 10 %}' } },
        { id: 'constructor', kind: 'end', output: '{% vars %}' },
      ],
      edges: [
        { from: 'start', to: '__proto__' },
        { from: '__proto__', to: 'body' },
        { from: 'body', to: '__proto__' },
        { from: '__proto__', to: 'constructor' },
      ],
    };
    const result = await runWorkflow(workflow, { input: JSON.parse('{"__proto__": {"polluted": 1}}') });
    expect(result.output).toEqual({ constructor: 2, hasOwnProperty: 20, toString: [1, 2] });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
