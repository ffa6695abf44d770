/** Executable workflows as WorfBench text (workflowToWorfText) and scored against each other (compareWorkflows). */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareWorkflows, MAX_SCORED_STEPS } from '../../src/distill/compare-workflows.js';
import type { ExecutableWorkflow, WorkflowEdge, WorkflowNode } from '../../src/distill/workflow.js';
import { workflowToWorfText } from '../../src/distill/workflow-to-worf-text.js';
import { formatWorkflowText } from '../../src/eval/format-workflow-text.js';
import { createLexicalSimilarity } from '../../src/eval/lexical-similarity.js';
import { parseWorkflowText } from '../../src/eval/parse-workflow-text.js';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/workflows/${name}`, import.meta.url), 'utf8')) as ExecutableWorkflow;
const sumToN = fixture('sum-to-n.workflow.json');
const everyKind = fixture('every-kind.workflow.json');

const start: WorkflowNode = { id: 'start', kind: 'start' };
const end: WorkflowNode = { id: 'end', kind: 'end' };
const tool = (id: string, name = id, args: Record<string, unknown> = {}): WorkflowNode => ({
  id,
  kind: 'tool',
  tool: name,
  args,
});
const chain = (...ids: string[]): WorkflowEdge[] => ids.slice(1).map((to, at) => ({ from: ids[at]!, to }));
const text = (workflow: Pick<ExecutableWorkflow, 'nodes' | 'edges'>) =>
  formatWorkflowText(workflowToWorfText(workflow));

describe('workflowToWorfText', () => {
  it('sum-to-n: the loop back to the condition is dropped, the set nodes bridged', () => {
    expect(text(sumToN)).toBe(
      ['Node:', '1: Check whether i < n', '2: Call add with a and b', 'Edge: (START,1) (1,2) (1,END) (2,END)'].join(
        '\n',
      ),
    );
  });

  it('every kind: the forEach becomes its body and leads on to what follows it; ends are END', () => {
    expect(workflowToWorfText(everyKind)).toEqual({
      nodes: [
        'Call add with a and b',
        'Check whether total > 100 ? "big" : total > 10 ? "medium" : "small" is "big" or "medium"',
      ],
      edges: [
        ['START', 1],
        [1, 2],
        [2, 'END'],
      ],
    });
  });

  it('a body of several steps runs in sequence into the step after the loop (an explicit body edge or not)', () => {
    const loop: WorkflowNode = { id: 'loop', kind: 'forEach', items: '{% inputs.xs %}', body: 'a' };
    const nodes = [start, loop, tool('a'), tool('b'), tool('c'), end];
    const edges = [...chain('start', 'loop', 'c', 'end'), ...chain('a', 'b', 'loop')];
    const expected = ['Node:', '1: Call a', '2: Call b', '3: Call c', 'Edge: (START,1) (1,2) (2,3) (3,END)'].join('\n');
    expect(text({ nodes, edges })).toBe(expected);
    expect(text({ nodes, edges: [{ from: 'loop', to: 'a' }, ...edges] })).toBe(expected);
  });

  it('nested loops flatten to their steps in order', () => {
    const outer: WorkflowNode = { id: 'outer', kind: 'forEach', items: '{% inputs.rows %}', body: 'fetch' };
    const inner: WorkflowNode = { id: 'inner', kind: 'forEach', items: '{% vars.cells %}', body: 'cell' };
    const workflow = {
      nodes: [start, outer, tool('fetch'), inner, tool('cell'), tool('sum'), tool('report'), end],
      edges: [
        ...chain('start', 'outer', 'report', 'end'),
        ...chain('fetch', 'inner', 'sum', 'outer'),
        { from: 'cell', to: 'inner' },
      ],
    };
    expect(workflowToWorfText(workflow)).toEqual({
      nodes: ['Call fetch', 'Call cell', 'Call sum', 'Call report'],
      edges: [
        ['START', 1],
        [1, 2],
        [2, 3],
        [3, 4],
        [4, 'END'],
      ],
    });
  });

  it('a body that always ends the workflow keeps the edge past the loop', () => {
    const loop: WorkflowNode = { id: 'loop', kind: 'forEach', items: '{% inputs.xs %}', body: 'first' };
    const workflow = {
      nodes: [start, loop, tool('first'), { id: 'early', kind: 'end' } as const, tool('none'), end],
      edges: [...chain('start', 'loop', 'none', 'end'), { from: 'first', to: 'early' }],
    };
    expect(text(workflow)).toBe(
      ['Node:', '1: Call first', '2: Call none', 'Edge: (START,1) (START,2) (1,END) (2,END)'].join('\n'),
    );
  });

  it('bridges chains of set nodes, keeps an early exit to END and names arguments and multi-way values', () => {
    const workflow = {
      nodes: [
        start,
        tool('find', 'find_customer', { email: '{% inputs.email %}' }),
        { id: 'keep', kind: 'set', values: { c: 1 } } as const,
        { id: 'keep2', kind: 'set', values: { d: 2 } } as const,
        { id: 'tier', kind: 'condition', expr: 'vars.customer.tier' } as const,
        tool('gold', 'apply_discount', { id: 1, percent: 10, note: 'x' }),
        end,
      ],
      edges: [
        ...chain('start', 'find', 'keep', 'keep2', 'tier'),
        { from: 'tier', to: 'gold', when: 'gold' },
        { from: 'tier', to: 'end', default: true },
        { from: 'gold', to: 'end' },
      ],
    };
    expect(text(workflow)).toBe(
      [
        'Node:',
        '1: Call find_customer with email',
        '2: Check whether customer.tier is "gold"',
        '3: Call apply_discount with id, percent and note',
        'Edge: (START,1) (1,2) (2,3) (2,END) (3,END)',
      ].join('\n'),
    );
  });

  it('a workflow without tools or conditions has no nodes', () => {
    expect(
      workflowToWorfText({
        nodes: [start, { id: 's', kind: 'set', values: { a: 1 } }, end],
        edges: chain('start', 's', 'end'),
      }),
    ).toEqual({ nodes: [], edges: [] });
  });

  it('what it writes reads back with the WorfBench parser as a valid DAG, unchanged', () => {
    for (const workflow of [sumToN, everyKind]) {
      const parsed = parseWorkflowText(text(workflow));
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect(parsed.workflow).toEqual(workflowToWorfText(workflow));
    }
  });

  it('handles 10,000 nodes with loops without deep recursion, and a broken workflow without throwing', () => {
    // 2,500 rounds of: a forEach whose body is a tool, a condition that loops back to the round's start, a set.
    const nodes: WorkflowNode[] = [start];
    const edges: WorkflowEdge[] = [];
    let previous = 'start';
    for (let round = 0; round < 2500; round++) {
      nodes.push(
        { id: `f${round}`, kind: 'forEach', items: '{% inputs.xs %}', body: `t${round}` },
        tool(`t${round}`, 'add'),
        { id: `c${round}`, kind: 'condition', expr: 'vars.again' },
        { id: `s${round}`, kind: 'set', values: { n: round } },
      );
      edges.push(
        { from: previous, to: `f${round}` },
        { from: `t${round}`, to: `f${round}` },
        { from: `f${round}`, to: `c${round}` },
        { from: `c${round}`, to: `f${round}`, when: true },
        { from: `c${round}`, to: `s${round}`, when: false },
      );
      previous = `s${round}`;
    }
    nodes.push(end);
    edges.push({ from: previous, to: 'end' });
    const result = workflowToWorfText({ nodes, edges });
    expect(result.nodes).toHaveLength(5000);
    expect(result.edges).toHaveLength(5000 + 1);
    expect(parseWorkflowText(formatWorkflowText(result)).ok).toBe(true);

    const broken = workflowToWorfText({
      nodes: [start, { id: 'f', kind: 'forEach', items: 'x', body: 'missing' }, tool('a'), tool('a')],
      edges: [...chain('start', 'f'), { from: 'a', to: 'nowhere' }, { from: 'f', to: 'f' }],
    });
    expect(broken).toEqual({ nodes: [], edges: [] });
  });
});

describe('workflowToWorfText on any graph', () => {
  // Random nodes of every kind and random edges, valid or not: the text is always a WorfBench DAG in which every
  // node has an edge in (from START or a node) and an edge out (to a node or END).
  const kinds = ['tool', 'condition', 'set', 'forEach', 'end'] as const;
  const graph = fc.integer({ min: 1, max: 12 }).chain((size) =>
    fc.record({
      kinds: fc.array(fc.constantFrom(...kinds), { minLength: size, maxLength: size }),
      bodies: fc.array(fc.integer({ min: 0, max: size - 1 }), { minLength: size, maxLength: size }),
      edges: fc.array(fc.tuple(fc.integer({ min: -1, max: size - 1 }), fc.integer({ min: 0, max: size - 1 })), {
        maxLength: size * 3,
      }),
    }),
  );

  it('always gives a DAG whose nodes all lie between START and END', () => {
    fc.assert(
      fc.property(graph, ({ kinds: nodeKinds, bodies, edges }) => {
        const nodes: WorkflowNode[] = [
          start,
          ...nodeKinds.map((kind, index): WorkflowNode => {
            const id = `n${index}`;
            if (kind === 'tool') return tool(id);
            if (kind === 'condition') return { id, kind, expr: 'vars.x' };
            if (kind === 'set') return { id, kind, values: { x: 1 } };
            if (kind === 'forEach') return { id, kind, items: '{% inputs.xs %}', body: `n${bodies[index]}` };
            return { id, kind };
          }),
        ];
        const result = workflowToWorfText({
          nodes,
          edges: edges.map(([from, to]) => ({ from: from < 0 ? 'start' : `n${from}`, to: `n${to}` })),
        });
        if (result.nodes.length === 0) return;
        const parsed = parseWorkflowText(formatWorkflowText(result));
        expect(parsed.ok).toBe(true);
        result.nodes.forEach((_, index) => {
          expect(result.edges.some(([, to]) => to === index + 1)).toBe(true);
          expect(result.edges.some(([from]) => from === index + 1)).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('compareWorkflows', () => {
  const lexical = createLexicalSimilarity();

  it('scores a workflow against itself 1 and against a changed one less', async () => {
    const self = await compareWorkflows(everyKind, everyKind, lexical);
    expect(self.score).toMatchObject({ f1_chain: 1, f1_graph: 1 });
    // One more step on the way out: 2 of 3 predicted steps match, so precision 2/3 and F1 0.8.
    const changed: ExecutableWorkflow = {
      ...sumToN,
      nodes: [...sumToN.nodes, tool('notify', 'send_email', { to: 'x' })],
      edges: sumToN.edges
        .map((edge) => (edge.when === false ? { ...edge, to: 'notify' } : edge))
        .concat({
          from: 'notify',
          to: 'end',
        }),
    };
    const other = await compareWorkflows(sumToN, changed, lexical);
    expect(other.predicted.nodes).toEqual(['Check whether i < n', 'Call add with a and b', 'Call send_email with to']);
    expect(other.score).toMatchObject({ p_chain: 2 / 3, r_chain: 1, matched: 2 });
    expect(other.score.f1_chain).toBeCloseTo(0.8, 10);
    expect(other.score.f1_graph).toBeLessThan(1);
  });

  it('refuses a workflow larger than WorfEval is made for', async () => {
    const ids = Array.from({ length: MAX_SCORED_STEPS + 1 }, (_, i) => `t${i}`);
    const big = { nodes: [start, ...ids.map((id) => tool(id)), end], edges: chain('start', ...ids, 'end') };
    await expect(compareWorkflows(big, sumToN, lexical)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: `the gold workflow has ${MAX_SCORED_STEPS + 1} tool and condition steps; WorfEval scores at most ${MAX_SCORED_STEPS}`,
    });
  });

  it('refuses a workflow with no step to score, naming the side', async () => {
    const empty = { nodes: [start, end], edges: chain('start', 'end') };
    await expect(compareWorkflows(sumToN, empty, lexical)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      location: { field: 'predicted' },
    });
  });
});
