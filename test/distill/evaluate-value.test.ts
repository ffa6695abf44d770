/**
 * The interpreter's value evaluation after its speed-ups (found by the distillation bench): the property walk for plain paths must
 * answer exactly as JSONata does, value plans must not leak one case's values into another, and a workflow run
 * many times must give the same answers as a fresh one.
 */
import { describe, expect, it } from 'vitest';
import { evaluateExpression, evaluateValue } from '../../src/distill/evaluate-value.js';
import { runWorkflow } from '../../src/distill/run-workflow.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';

const jsonata = (await import('jsonata')).default;

describe('evaluateValue', () => {
  it('plain paths answer as JSONata does, on arrays, missing fields, nulls, primitives and inherited names', async () => {
    const scope = {
      inputs: {
        a: [1],
        b: [1, 2],
        o: { x: [{ y: 1 }, { y: 2 }] },
        n: null,
        z: 0,
        s: 'text',
        one: { k: { v: 'deep' } },
      },
      vars: { list: [{ id: 1 }], empty: {}, flag: false },
    };
    const expressions = [
      'inputs.a',
      'inputs.b',
      'inputs.o.x',
      'inputs.o.x.y',
      'inputs.o',
      'inputs.n',
      'inputs.n.x',
      'inputs.q',
      'inputs.z',
      'inputs.s',
      'inputs.s.length',
      'inputs.one.k.v',
      'inputs.constructor',
      'inputs.toString',
      'vars.list.id',
      'vars.empty.x',
      'vars.flag',
      'vars',
    ];
    for (const expression of expressions) {
      const ours = await evaluateExpression(expression, scope, 'test');
      const theirs = await jsonata(expression).evaluate(scope);
      expect(JSON.stringify(ours), expression).toBe(JSON.stringify(theirs));
    }
  });

  it('returns fresh objects for literals and keeps a `__proto__` key a plain key', async () => {
    const value = { fixed: { a: [1, 2] }, computed: '{% vars.x + 1 %}', __proto__x: 1 };
    const scope = { inputs: {}, vars: { x: 1 } };
    const first = (await evaluateValue(value, scope, 'v')) as { fixed: { a: number[] } };
    first.fixed.a.push(3);
    const second = (await evaluateValue(value, scope, 'v')) as { fixed: { a: number[] }; computed: number };
    expect(second).toEqual({ fixed: { a: [1, 2] }, computed: 2, __proto__x: 1 });
    const hostile = JSON.parse('{"__proto__": "{% vars.x %}"}') as Record<string, unknown>;
    const result = (await evaluateValue(hostile, scope, 'h')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
  });

  it('a workflow run many times gives each case its own variables (the snapshot is remade after every change)', async () => {
    const workflow: ExecutableWorkflow = {
      name: 'snapshots',
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'a', kind: 'set', values: { x: '{% inputs.n %}', self: '{% vars %}' } },
        { id: 'b', kind: 'set', values: { y: '{% vars.x * 10 %}' } },
        { id: 'end', kind: 'end', output: { x: '{% vars.x %}', y: '{% vars.y %}', keys: '{% $keys(vars.self) %}' } },
      ],
      edges: [
        { from: 'start', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'b', to: 'end' },
      ],
    };
    for (let n = 0; n < 5; n++) {
      const { output } = await runWorkflow(workflow, { input: { n } });
      // `self` saw the variables before `a` ran (none): no cycle, no value from the previous case.
      expect(output).toEqual({ x: n, y: n * 10 });
      expect(JSON.stringify(output)).not.toContain('self');
    }
  });
});
