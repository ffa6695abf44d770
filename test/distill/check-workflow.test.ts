import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkWorkflow } from '../../src/distill/check-workflow.js';
import type { ExecutableWorkflow, WorkflowEdge, WorkflowNode } from '../../src/distill/workflow.js';

// The example (with a schema for its input), as a fixture the CLI tests run too.
const sumToN = JSON.parse(
  readFileSync(new URL('../fixtures/workflows/sum-to-n.workflow.json', import.meta.url), 'utf8'),
) as ExecutableWorkflow;
const withNodes = (
  nodes: WorkflowNode[],
  edges: WorkflowEdge[] = sumToN.edges as WorkflowEdge[],
): ExecutableWorkflow => ({
  ...sumToN,
  nodes,
  edges,
});
const replace = (id: string, node: WorkflowNode) => sumToN.nodes.map((n) => (n.id === id ? node : n));
const messages = async (workflow: ExecutableWorkflow, toolNames?: string[]) =>
  (await checkWorkflow(workflow, toolNames ? { toolNames } : {})).map(
    (p) => `${p.severity}: ${p.path ?? ''}: ${p.message}`,
  );

describe('checkWorkflow', () => {
  it('finds nothing wrong with the issue example', async () => {
    expect(await messages(sumToN, ['add'])).toEqual([]);
  });

  it('reports unknown tools, JSONata syntax errors and a condition without its false edge, located', async () => {
    expect(await messages(sumToN, ['sub'])).toEqual(['error: nodes[3].tool: unknown tool "add"']);
    const bad = await messages(
      withNodes(replace('next', { id: 'next', kind: 'set', values: { i: '{% vars.i + %}' } })),
    );
    expect(bad.some((m) => m.startsWith('error: nodes[4].values.i: node next (values.i): JSONata syntax error'))).toBe(
      true,
    );
    const noFalse = await messages(
      withNodes([...sumToN.nodes], sumToN.edges.filter((e) => e.when !== false) as WorkflowEdge[]),
    );
    expect(noFalse).toContain(
      'error: nodes[2]: condition "more" needs an edge for both true and false (or a default edge)',
    );
  });

  it('reports a missing end, unreachable nodes and a cycle with no condition', async () => {
    const noEnd = await messages(
      withNodes(
        sumToN.nodes.filter((n) => n.kind !== 'end'),
        sumToN.edges.filter((e) => e.to !== 'end') as WorkflowEdge[],
      ),
    );
    expect(noEnd).toContain('error: nodes: a workflow needs at least one end node');
    const island = await messages(withNodes([...sumToN.nodes, { id: 'lost', kind: 'set', values: { z: 1 } }]));
    expect(island.some((m) => m.includes('"lost" cannot be reached from the start'))).toBe(true);
    const spin: ExecutableWorkflow = {
      ...sumToN,
      edges: [...sumToN.edges.filter((e) => e.from !== 'next'), { from: 'next', to: 'add' }],
    };
    const cycle = await messages(spin);
    expect(cycle.some((m) => m.includes('on a cycle without a condition'))).toBe(true);
  });

  it('checks variables: never assigned is an error, assigned on some paths only a warning', async () => {
    const early = await messages(withNodes(replace('init', { id: 'init', kind: 'set', values: { i: 0 } })));
    // acc comes round the loop from the tool node, but not on the first pass: some paths only.
    expect(early).toContain('warning: nodes[3].args.a: vars.acc is assigned on some paths to "add" but not all');
    const never = await messages(withNodes(replace('end', { id: 'end', kind: 'end', output: '{% vars.total %}' })));
    expect(never).toContain('error: nodes[5].output: vars.total is never assigned');
    // acc assigned only inside the loop: the end (reached with n = 0 without it) sees it on some paths.
    const some = await messages(withNodes(replace('init', { id: 'init', kind: 'set', values: { i: 0, acc: 0 } })));
    expect(some).toEqual([]);
    const partial = await messages(
      withNodes(
        replace('init', { id: 'init', kind: 'set', values: { i: 0 } }).map((n) =>
          n.id === 'add' ? { ...n, args: { a: 1, b: 2 } } : n,
        ),
      ),
    );
    expect(partial).toContain('warning: nodes[5].output: vars.acc is assigned on some paths to "end" but not all');
  });
});

describe('checkWorkflow on a large workflow', () => {
  it('checks a chain of 10,000 nodes without exhausting the stack, and says when variables are not checked', async () => {
    const nodes: WorkflowNode[] = [{ id: 'start', kind: 'start' }];
    const edges: WorkflowEdge[] = [];
    let previous = 'start';
    for (let i = 0; i < 9_998; i++) {
      nodes.push({ id: `s${i}`, kind: 'set', values: { [`v${i}`]: i } });
      edges.push({ from: previous, to: `s${i}` });
      previous = `s${i}`;
    }
    nodes.push({ id: 'end', kind: 'end' });
    edges.push({ from: previous, to: 'end' });
    const problems = await checkWorkflow({ name: 'chain', nodes, edges });
    expect(problems.map((problem) => problem.severity)).toEqual(['warning']);
    expect(problems[0]?.message).toContain('variables not checked');
  });
});
