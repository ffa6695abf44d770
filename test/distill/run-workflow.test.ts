import { readFileSync } from 'node:fs';
import type { WeftError } from '../../src/errors.js';
import { describe, expect, it } from 'vitest';
import { runWorkflow } from '../../src/distill/run-workflow.js';
import { createWorkflowTool } from '../../src/distill/workflow-tool.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import type { JsonValue, Tool } from '../../src/tools/tool.js';

const calls: { name: string; args: JsonValue }[] = [];
const tool = (name: string, run: (args: Record<string, number>) => JsonValue): Tool => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  source: 'test',
  async call(args) {
    calls.push({ name, args });
    return run(args as Record<string, number>);
  },
});
const add = tool('add', ({ a, b }) => (a ?? 0) + (b ?? 0));
const double = tool('double', ({ x }) => (x ?? 0) * 2);

// The example (with a schema for its input), as a fixture the CLI tests run too.
const sumToN = JSON.parse(
  readFileSync(new URL('../fixtures/workflows/sum-to-n.workflow.json', import.meta.url), 'utf8'),
) as ExecutableWorkflow;

describe('runWorkflow (the interpreter)', () => {
  it("passes the caller's scope to each tool call; a workflow tool passes its own call's on", async () => {
    const scopes: (string | undefined)[] = [];
    const seeing: Tool = {
      ...add,
      call: (args, context) => {
        scopes.push(context.scope);
        return add.call(args, context);
      },
    };
    await runWorkflow(sumToN, { tools: [seeing], input: { n: 1 }, toolScope: 'run:r-1' });
    await runWorkflow(sumToN, { tools: [seeing], input: { n: 1 } });
    const asTool = createWorkflowTool(sumToN, { name: 'sum_to_n', tools: [seeing], source: 'test', file: 'x.json' });
    await asTool.call({ n: 1 }, { signal: new AbortController().signal, scope: 'session:s-1' });
    expect(scopes).toEqual(['run:r-1', undefined, 'session:s-1']);
  });

  it('runs the issue example with a loop through a condition, calling the tool each round, with no model', async () => {
    calls.length = 0;
    const result = await runWorkflow(sumToN, { tools: [add], input: { n: 4 } });
    expect(result.output).toBe(10);
    expect(result.llmCalls).toBe(0);
    expect(calls.map((call) => call.args)).toEqual([
      { a: 0, b: 1 },
      { a: 1, b: 2 },
      { a: 3, b: 3 },
      { a: 6, b: 4 },
    ]);
    expect(result.steps).toBe(16); // start, init, 5 checks, 4 adds, 4 nexts, end
    expect((await runWorkflow(sumToN, { tools: [add], input: { n: 0 } })).output).toBe(0);
  });

  it('forEach runs its sub-path per item and collects the results; multi-way conditions take the matching edge', async () => {
    const workflow: ExecutableWorkflow = {
      name: 'doubles',
      nodes: [
        { id: 'start', kind: 'start' },
        {
          id: 'each',
          kind: 'forEach',
          items: '{% inputs.xs %}',
          as: 'x',
          body: 'dbl',
          result: '{% vars.d %}',
          out: 'ds',
        },
        { id: 'dbl', kind: 'tool', tool: 'double', args: { x: '{% vars.x %}' }, out: 'd' },
        { id: 'size', kind: 'condition', expr: '$count(vars.ds) > 2 ? "many" : "few"' },
        { id: 'many', kind: 'end', output: { kind: 'many', sum: '{% $sum(vars.ds) %}' } },
        { id: 'few', kind: 'end', output: { kind: 'few', values: '{% vars.ds %}' } },
      ],
      edges: [
        { from: 'start', to: 'each' },
        { from: 'each', to: 'dbl' },
        { from: 'dbl', to: 'each' },
        { from: 'each', to: 'size' },
        { from: 'size', to: 'many', when: 'many' },
        { from: 'size', to: 'few', default: true },
      ],
    };
    expect((await runWorkflow(workflow, { tools: [double], input: { xs: [1, 2, 3] } })).output).toEqual({
      kind: 'many',
      sum: 12,
    });
    expect((await runWorkflow(workflow, { tools: [double], input: { xs: [5] } })).output).toEqual({
      kind: 'few',
      values: [10],
    });
  });

  it('a loop that never ends stops at the visit cap, and errors name the node and field', async () => {
    const forever: ExecutableWorkflow = {
      ...sumToN,
      nodes: sumToN.nodes.map((node) => (node.id === 'next' ? { id: 'next', kind: 'set', values: { i: 0 } } : node)),
    };
    const stopped = await runWorkflow(forever, { tools: [add], input: { n: 3 }, maxVisits: 100 }).catch(
      (error: unknown) => error as WeftError,
    );
    expect(stopped).toMatchObject({ code: 'WORKFLOW', location: { field: expect.stringMatching(/^nodes\./) } });
    // The cap and the node are named, and a long finite loop is given as a possible cause, with the flag.
    const node = (stopped as WeftError).location?.field?.slice('nodes.'.length);
    expect((stopped as WeftError).message).toContain(`node ${node}: stopped at the visit cap of 100 node visits`);
    expect((stopped as WeftError).message).toContain(
      'a long finite loop: raise the cap (--max-visits N on the command line',
    );
    // A long finite loop: stopped under a low cap, finished under a higher one.
    await expect(runWorkflow(sumToN, { tools: [add], input: { n: 60 }, maxVisits: 100 })).rejects.toMatchObject({
      code: 'WORKFLOW',
    });
    expect((await runWorkflow(sumToN, { tools: [add], input: { n: 60 }, maxVisits: 1_000 })).output).toBe(1830);
    await expect(runWorkflow(sumToN, { tools: [add], input: { n: 3 }, maxVisits: 0 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      location: { field: 'maxVisits' },
    });
    const badExpr: ExecutableWorkflow = {
      ...sumToN,
      nodes: sumToN.nodes.map((node) =>
        node.id === 'more' ? { id: 'more', kind: 'condition', expr: '{% vars.i < %}' } : node,
      ),
    };
    await expect(runWorkflow(badExpr, { tools: [add], input: { n: 3 } })).rejects.toMatchObject({
      code: 'WORKFLOW',
      message: expect.stringContaining('node more (expr): JSONata syntax error'),
    });
    const failing = tool('add', () => {
      throw new Error('adder broke');
    });
    await expect(runWorkflow(sumToN, { tools: [failing], input: { n: 1 } })).rejects.toMatchObject({
      code: 'WORKFLOW',
      message: expect.stringContaining('node add: tool add failed'),
    });
    await expect(runWorkflow(sumToN, { tools: [], input: { n: 1 } })).rejects.toMatchObject({
      message: expect.stringContaining('no tool named add'),
    });
  });
});
