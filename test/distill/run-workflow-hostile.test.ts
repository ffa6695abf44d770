/**
 * Hostile workflows for the interpreter: JSONata that never ends or recurses without bound, prototype names as
 * node ids, variables and inputs, huge and deeply nested loops.
 */
import { describe, expect, it } from 'vitest';
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
