/** The layout for plans too large for dagre: columns by longest dependency chain, no overlaps, linear time. */
import { describe, expect, it } from 'vitest';
import { layeredLayout } from '../../src/ui/layered-layout.js';
import { LAYERED_LAYOUT_ABOVE, layoutPlan, NODE_HEIGHT, NODE_WIDTH } from '../../src/ui/layout-plan.js';

const OPTIONS = { nodeWidth: 100, nodeHeight: 20, rankSep: 10, nodeSep: 5, margin: 2 };
const subtask = (id: string, dependsOn: string[] = []) => ({ id, agent: `agent-${id}`, objective: 'o', dependsOn });

describe('layered layout', () => {
  it('puts each subtask one column right of its deepest dependency, edges from right side to left side', () => {
    const layout = layeredLayout(
      { subtasks: [subtask('a'), subtask('b', ['a']), subtask('c', ['a', 'b']), subtask('d'), subtask('e', ['zz'])] },
      OPTIONS,
    );
    const column = Object.fromEntries(layout.nodes.map((node) => [node.id, (node.x - 2 - 50) / 110]));
    expect(column).toEqual({ a: 0, d: 0, e: 0, b: 1, c: 2 });
    expect(layout.edges.map((edge) => `${edge.from}>${edge.to}`).sort()).toEqual(['a>b', 'a>c', 'b>c']);
    const b = layout.nodes.find((node) => node.id === 'b')!;
    const ab = layout.edges.find((edge) => edge.from === 'a' && edge.to === 'b')!;
    expect(ab.points.at(-1)).toEqual({ x: b.x - 50, y: b.y });
    expect(layout.width).toBe(2 * 2 + 3 * 100 + 2 * 10);
    expect(layout.height).toBe(2 * 2 + 3 * 20 + 2 * 5);
  });

  it('never overlaps two boxes, and orders a column by where its dependencies sit', () => {
    const subtasks = [subtask('p'), subtask('q'), subtask('x', ['q']), subtask('y', ['p'])];
    const layout = layeredLayout({ subtasks }, OPTIONS);
    const at = Object.fromEntries(layout.nodes.map((node) => [node.id, node]));
    // y follows p (row 0) and x follows q (row 1), whatever the plan's order.
    expect(at['y']!.y).toBeLessThan(at['x']!.y);
    const seen = new Set(layout.nodes.map((node) => `${node.x},${node.y}`));
    expect(seen.size).toBe(layout.nodes.length);
  });

  it('lays out a 10,000-deep chain without overflowing the stack, and survives a cycle', () => {
    const chain = Array.from({ length: 10_000 }, (_, i) => subtask(`s${i}`, i > 0 ? [`s${i - 1}`] : []));
    const layout = layeredLayout({ subtasks: chain }, OPTIONS);
    expect(layout.nodes.at(-1)!.x).toBe(2 + 9_999 * 110 + 50);
    const cycle = layeredLayout({ subtasks: [subtask('a', ['b']), subtask('b', ['a'])] }, OPTIONS);
    expect(cycle.nodes).toHaveLength(2);
  });

  it('is what layoutPlan uses past its threshold, with the dashboard node size', () => {
    const many = Array.from({ length: LAYERED_LAYOUT_ABOVE + 1 }, (_, i) =>
      subtask(`n${i}`, i > 0 ? [`n${Math.floor(i / 2)}`] : []),
    );
    const layout = layoutPlan({ subtasks: many });
    expect(layout.nodes).toHaveLength(many.length);
    expect(layout.nodes[0]!.width).toBe(NODE_WIDTH);
    expect(layout.nodes[0]!.height).toBe(NODE_HEIGHT);
    expect(layout.edges).toHaveLength(many.length - 1);
  });
});
