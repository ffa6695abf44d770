/**
 * Isolated workflow runs: hostile expressions that no in-process limit stops (one long JSONata step, a
 * backtracking regex) end with a result or a located error, and the process goes on.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeWorkflowWorkers, runWorkflowIsolated } from '../../src/distill/run-workflow-isolated.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import type { Tool } from '../../src/tools/tool.js';

afterAll(closeWorkflowWorkers);

function endsWith(output: string): ExecutableWorkflow {
  return {
    name: 'hostile',
    nodes: [
      { id: 's', kind: 'start' },
      { id: 'e', kind: 'end', output },
    ],
    edges: [{ from: 's', to: 'e' }],
  };
}

const HOSTILE = {
  'a backtracking regex': `{% $match("${'a'.repeat(32)}!", /(a+)+$/) %}`,
  'a reduce over ten million': '{% $reduce([1..10000000], function($a, $b){ $a + $b }) %}',
  'a map over five million': '{% [1..5000000].{"k": $} %}',
  'a sort of three million': '{% $sort([1..3000000], function($a, $b){ $a < $b }) %}',
};

describe('runWorkflowIsolated', () => {
  for (const [name, expression] of Object.entries(HOSTILE)) {
    it(`ends ${name} with a result or a located error`, async () => {
      const outcome = await runWorkflowIsolated(endsWith(expression), { input: {}, timeLimitMs: 300 }).then(
        (result) => ({ ok: true as const, output: result.output }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      if (outcome.ok) expect(name).toBe('a backtracking regex');
      else
        expect(outcome.error).toMatchObject({
          code: expect.stringMatching(/^(TIMEOUT|WORKFLOW)$/),
          location: { field: 'node e (output)' },
          message: expect.stringMatching(/^node e \(output\): /),
        });
    });
  }

  it('runs the backtracking regex to its answer on the linear-time engine', async () => {
    const result = await runWorkflowIsolated(endsWith(HOSTILE['a backtracking regex']), { input: {} });
    expect(result.output).toBeUndefined();
  });

  it('refuses a regex with a backreference, naming node and field', async () => {
    await expect(runWorkflowIsolated(endsWith('{% $match("aa", /(a)\\1/) %}'), { input: {} })).rejects.toMatchObject({
      code: 'WORKFLOW',
      location: { field: 'node e (output)' },
      message: expect.stringContaining('linear-time engine'),
    });
  });

  it('stops a case that never ends at its time limit and runs the next case', async () => {
    const forever = endsWith('{% ($f := function($n){ $f($n + 1) }; $f(0)) %}');
    await expect(runWorkflowIsolated(forever, { input: {}, timeLimitMs: 200 })).rejects.toMatchObject({
      code: expect.stringMatching(/^(TIMEOUT|WORKFLOW)$/),
      location: { field: 'node e (output)' },
    });
    const fine = await runWorkflowIsolated(endsWith('{% inputs.n * 2 %}'), { input: { n: 21 } });
    expect(fine.output).toBe(42);
  });

  it('calls tools on this thread, with their results in the case', async () => {
    const calls: unknown[] = [];
    const add: Tool = {
      name: 'add',
      description: 'adds',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      source: 'test',
      async call(args) {
        calls.push(args);
        const { a, b } = args as { a: number; b: number };
        return a + b;
      },
    };
    const workflow: ExecutableWorkflow = {
      name: 'adds',
      nodes: [
        { id: 's', kind: 'start' },
        { id: 't', kind: 'tool', tool: 'add', args: { a: '{% inputs.x %}', b: 2 }, out: 'sum' },
        { id: 'e', kind: 'end', output: '{% vars.sum * 10 %}' },
      ],
      edges: [
        { from: 's', to: 't' },
        { from: 't', to: 'e' },
      ],
    };
    const results = await Promise.all(
      [1, 2, 3].map((x) => runWorkflowIsolated(workflow, { input: { x }, tools: [add] })),
    );
    expect(results.map((result) => result.output)).toEqual([30, 40, 50]);
    expect(results[0]!.toolCalls).toEqual([{ node: 't', tool: 'add', args: { a: 1, b: 2 }, result: 3 }]);
    expect(calls).toHaveLength(3);
  });

  it('fails a case whose tool fails, naming node and tool', async () => {
    const broken: Tool = {
      name: 'broken',
      description: 'fails',
      inputSchema: { type: 'object' },
      source: 'test',
      async call() {
        throw new Error('out of stock');
      },
    };
    const workflow: ExecutableWorkflow = {
      name: 'breaks',
      nodes: [
        { id: 's', kind: 'start' },
        { id: 't', kind: 'tool', tool: 'broken', args: {} },
        { id: 'e', kind: 'end' },
      ],
      edges: [
        { from: 's', to: 't' },
        { from: 't', to: 'e' },
      ],
    };
    await expect(runWorkflowIsolated(workflow, { input: {}, tools: [broken] })).rejects.toMatchObject({
      code: 'WORKFLOW',
      location: { field: 'nodes.t' },
      message: expect.stringContaining('tool broken failed: broken: out of stock'),
    });
  });
});
