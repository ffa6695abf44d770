/**
 * Graph layouts given ids that name Object.prototype's own keys: dagre stores nodes in plain objects keyed by
 * name, so a subtask called `__proto__` once wrote its neighbours' names onto Object.prototype of the whole
 * dashboard server (every later answer was a 500). The ids come back as given, and nothing leaks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import { layoutPlan } from '../../src/ui/layout-plan.js';
import { layoutWorkflow } from '../../src/ui/layout-workflow.js';

const HOSTILE = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'a/b?c#d%2F', '../x'];

/** Keys anything inherits: empty unless something polluted the prototype. */
function inherited(): string[] {
  const keys: string[] = [];
  for (const key in {}) keys.push(key);
  return keys;
}

afterEach(() => {
  // A failing run must not poison the tests after it.
  for (const key of inherited()) delete (Object.prototype as Record<string, unknown>)[key];
});

describe('layouts of plans and workflows whose ids are Object.prototype keys', () => {
  it.each([
    ['dagre', 1],
    ['dagre, longest path', 450],
  ])('a plan (%s) keeps its ids and edges and pollutes nothing', (_label, extra) => {
    const subtasks = HOSTILE.map((id, at) => ({
      id,
      objective: id,
      agent: `role ${id}`,
      dependsOn: at === 0 ? [] : [HOSTILE[at - 1]!],
    }));
    for (let at = 0; at < extra; at++) subtasks.push({ id: `x${at}`, objective: '', agent: '', dependsOn: [] });
    const layout = layoutPlan({ subtasks });
    expect(inherited()).toEqual([]);
    expect(layout.nodes.slice(0, HOSTILE.length).map((node) => [node.id, node.agent])).toEqual(
      HOSTILE.map((id) => [id, `role ${id}`]),
    );
    expect(layout.edges.map((edge) => [edge.from, edge.to])).toEqual(
      HOSTILE.slice(1).map((id, at) => [HOSTILE[at], id]),
    );
    // Each dependency is drawn left of what depends on it.
    const x = new Map(layout.nodes.map((node) => [node.id, node.x]));
    for (const edge of layout.edges) expect(x.get(edge.from)!).toBeLessThan(x.get(edge.to)!);
  });

  it('a workflow keeps its ids and edges and pollutes nothing', () => {
    const workflow = {
      name: 'w',
      nodes: [
        { id: '__proto__', kind: 'start' },
        { id: 'constructor', kind: 'set', values: { a: 1 } },
        { id: 'toString', kind: 'end', output: '{% vars.a %}' },
      ],
      edges: [
        { from: '__proto__', to: 'constructor' },
        { from: 'constructor', to: 'toString' },
      ],
    } as unknown as ExecutableWorkflow;
    const layout = layoutWorkflow(workflow);
    expect(inherited()).toEqual([]);
    expect(layout.nodes.map((node) => node.id)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(layout.edges.map((edge) => [edge.from, edge.to])).toEqual([
      ['__proto__', 'constructor'],
      ['constructor', 'toString'],
    ]);
    for (const edge of layout.edges) expect(edge.points.length).toBeGreaterThan(1);
  });
});
