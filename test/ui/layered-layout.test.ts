/** The layout for plans too large for dagre: every edge points right, no two boxes overlap, bad plans still draw. */
import { describe, expect, it } from 'vitest';
import type { WorkflowJson } from '../../src/graph/workflow.js';
import { layeredLayout } from '../../src/ui/layered-layout.js';
import { LAYERED_LAYOUT_ABOVE, layoutPlan } from '../../src/ui/layout-plan.js';

const OPTIONS = { nodeWidth: 100, nodeHeight: 40, nodesep: 10, ranksep: 30, margin: 5 };

function plan(edges: Record<string, string[]>): Pick<WorkflowJson, 'subtasks'> {
  return {
    subtasks: Object.entries(edges).map(([id, dependsOn]) => ({ id, objective: id, agent: 'a', dependsOn })),
  };
}

function overlaps(layout: ReturnType<typeof layeredLayout>): boolean {
  const boxes = layout.nodes.map((node) => `${node.x},${node.y}`);
  return new Set(boxes).size !== boxes.length;
}

describe('layeredLayout', () => {
  it('ranks by longest path: each subtask right of all it depends on; boxes inside the canvas, none overlapping', () => {
    const layout = layeredLayout(plan({ a: [], b: ['a'], c: ['a', 'b'], d: [], e: ['d', 'c'] }), OPTIONS);
    const at = new Map(layout.nodes.map((node) => [node.id, node]));
    expect([...at.values()].map((node) => node.x)).toEqual([55, 185, 315, 55, 445]);
    for (const edge of layout.edges) {
      expect(at.get(edge.to)!.x).toBeGreaterThan(at.get(edge.from)!.x);
      expect(edge.points[0]).toEqual({ x: at.get(edge.from)!.x + 50, y: at.get(edge.from)!.y });
    }
    expect(layout.edges).toHaveLength(5);
    expect(overlaps(layout)).toBe(false);
    for (const node of layout.nodes) {
      expect(node.x + node.width / 2).toBeLessThanOrEqual(layout.width);
      expect(node.y + node.height / 2).toBeLessThanOrEqual(layout.height);
    }
  });

  it('orders a rank by its parents, so children sit beside them', () => {
    const layout = layeredLayout(plan({ p1: [], p2: [], c2: ['p2'], c1: ['p1'] }), OPTIONS);
    const y = new Map(layout.nodes.map((node) => [node.id, node.y]));
    expect(y.get('c1')).toBe(y.get('p1'));
    expect(y.get('c2')).toBe(y.get('p2'));
  });

  it('an unknown dependency, a duplicate and a cycle still give a drawing of every subtask', () => {
    const layout = layeredLayout(plan({ a: ['ghost', 'c'], b: ['a', 'a'], c: ['b'], d: [] }), OPTIONS);
    expect(layout.nodes.map((node) => node.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(layout.edges).toHaveLength(3);
    expect(overlaps(layout)).toBe(false);
  });

  it('is what layoutPlan uses above LAYERED_LAYOUT_ABOVE subtasks', () => {
    const count = LAYERED_LAYOUT_ABOVE + 1;
    const big = plan(Object.fromEntries(Array.from({ length: count }, (_, i) => [`s${i}`, i ? [`s${i - 1}`] : []])));
    const layout = layoutPlan(big);
    expect(layout.nodes).toHaveLength(count);
    expect(new Set(layout.nodes.map((node) => node.y)).size).toBe(1);
    expect(layout.width).toBeGreaterThan(count * 168);
  });
});
