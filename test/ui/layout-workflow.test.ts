/** The executable workflow's graph as the dashboard lays it out: every node placed, edges typed and labelled. */
import { describe, expect, it } from 'vitest';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import { FAST_LAYOUT_ABOVE } from '../../src/ui/layout-plan.js';
import { layoutWorkflow } from '../../src/ui/layout-workflow.js';

describe('layoutWorkflow', () => {
  it('places every node with its kind, draws a forEach body as `each` and a condition branch with its label', () => {
    const workflow = {
      name: 'loop',
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'each', kind: 'forEach', items: '{% inputs.items %}', body: 'double', out: 'doubled' },
        { id: 'double', kind: 'tool', tool: 'mul', args: { a: '{% item %}', b: 2 } },
        { id: 'big', kind: 'condition', expr: '{% $count(vars.doubled) > 3 %}' },
        { id: 'note', kind: 'set', values: { many: true } },
        { id: 'end', kind: 'end', output: '{% vars.doubled %}' },
      ],
      edges: [
        { from: 'start', to: 'each' },
        { from: 'each', to: 'big' },
        { from: 'big', to: 'note', when: true },
        { from: 'big', to: 'end', default: true },
        { from: 'note', to: 'end' },
      ],
    } as unknown as ExecutableWorkflow;
    const layout = layoutWorkflow(workflow);
    expect(layout.nodes.map((node) => [node.id, node.kind])).toEqual(
      workflow.nodes.map((node) => [node.id, node.kind]),
    );
    expect(layout.nodes.find((node) => node.id === 'double')?.detail).toBe('mul(a: item, b: 2)');
    expect(layout.edges.map((edge) => [edge.from, edge.to, edge.kind, edge.label])).toEqual([
      ['start', 'each', 'next', undefined],
      ['each', 'big', 'next', undefined],
      ['big', 'note', 'branch', 'true'],
      ['big', 'end', 'branch', 'default'],
      ['note', 'end', 'next', undefined],
      ['each', 'double', 'each', 'each'],
    ]);
    for (const edge of layout.edges) expect(edge.points.length).toBeGreaterThan(1);
    // Top to bottom: start above the loop above the end.
    const y = (id: string) => layout.nodes.find((node) => node.id === id)!.y;
    expect(y('start')).toBeLessThan(y('each'));
    expect(y('each')).toBeLessThan(y('end'));
  });

  it('lays out a workflow larger than the fast-layout threshold, every position a number inside the drawing', () => {
    const count = FAST_LAYOUT_ABOVE + 1;
    const nodes = [
      { id: 'start', kind: 'start' },
      ...Array.from({ length: count }, (_, index) => ({ id: `n${index}`, kind: 'set', values: { i: index } })),
      { id: 'end', kind: 'end' },
    ];
    const ids = nodes.map((node) => node.id);
    const edges = ids.slice(1).map((id, index) => ({ from: ids[index]!, to: id }));
    const layout = layoutWorkflow({ nodes, edges } as unknown as ExecutableWorkflow);
    expect(layout.nodes).toHaveLength(count + 2);
    for (const node of layout.nodes) {
      expect(node.x).toBeGreaterThanOrEqual(0);
      expect(node.y).toBeGreaterThanOrEqual(0);
      expect(node.x).toBeLessThanOrEqual(layout.width);
      expect(node.y).toBeLessThanOrEqual(layout.height);
    }
  });
});
