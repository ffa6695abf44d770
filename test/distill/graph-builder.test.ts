/** The graph builder of the summarize stage: operations, their refusals, and `finish`. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyGraphOperation, createGraphBuilder, type GraphDraft } from '../../src/distill/graph-builder.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';

const sumToN = JSON.parse(
  readFileSync(new URL('../fixtures/workflows/sum-to-n.workflow.json', import.meta.url), 'utf8'),
) as ExecutableWorkflow;
const empty: GraphDraft = { name: 'w', nodes: [], edges: [] };
const tools = ['add', 'get_order'];
const refused = (draft: GraphDraft, op: string, args: unknown) => {
  const outcome = applyGraphOperation(draft, op, args, tools);
  expect(outcome.ok).toBe(false);
  return outcome.message;
};
const applied = (draft: GraphDraft, op: string, args: unknown): GraphDraft => {
  const outcome = applyGraphOperation(draft, op, args, tools);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.draft;
};

describe('graph builder operations', () => {
  it('builds the sum-to-n workflow node by node and finishes it exactly', async () => {
    const builder = createGraphBuilder({ name: 'sum_to_n', toolNames: ['add'] });
    const first = await builder.apply('add_start', { inputs: { n: { type: 'integer', minimum: 0 } } });
    expect(first.ok).toBe(true);
    expect(first.missing).toContain('an end node (add_end)');
    for (const node of sumToN.nodes.slice(1)) {
      const { kind, ...fields } = node as unknown as Record<string, unknown>;
      const op = { end: 'add_end', tool: 'add_tool_node', condition: 'add_condition', set: 'add_set' }[kind as string];
      expect((await builder.apply(op as string, fields)).ok).toBe(true);
    }
    const beforeEdges = await builder.apply('finish', {});
    expect(beforeEdges.ok).toBe(false);
    expect(beforeEdges.missing).toContain('an edge out of "start"');
    expect(beforeEdges.missing).toContain('the true branch of condition "more" (add_edge with when: true)');
    for (const edge of sumToN.edges) expect((await builder.apply('add_edge', edge)).ok).toBe(true);
    const done = await builder.apply('finish', {});
    expect(done).toMatchObject({ ok: true, finished: true, missing: [], problems: [] });
    expect(done.graph).toContain('more -[true]-> add');
    expect(builder.finished).toBe(true);
    expect(builder.workflow).toEqual(sumToN);
    // Nothing changes after finish.
    expect((await builder.apply('remove_node', { id: 'add' })).ok).toBe(false);
  });

  it('refuses unknown tools with a did-you-mean, duplicate ids, and a second start', () => {
    expect(refused(empty, 'add_tool_node', { id: 'a', tool: 'ad' })).toContain(
      'unknown tool "ad"; did you mean "add"?',
    );
    const one = applied(empty, 'add_start', {});
    expect(refused(one, 'add_start', { id: 's2' })).toContain('there is a start node already');
    const two = applied(one, 'add_set', { id: 'x', values: { a: 1 } });
    expect(refused(two, 'add_condition', { id: 'x', expr: 'true' })).toContain('a node "x" exists already (set)');
    expect(refused(two, 'add_set', { id: 'y', values: { 'not a name': 1 } })).toContain('is not a variable name');
    expect(refused(two, 'add_set', { id: 'bad id!', values: { a: 1 } })).toContain('"id" must be an id');
    expect(refused(two, 'add_tool_node', { id: 't', tool: 'add', output_key: 'x' })).toContain(
      'no argument "output_key"',
    );
    expect(refused(two, 'add_edges', {})).toContain('did you mean add_edge?');
  });

  it('allows edges to nodes not yet added, reporting them as missing, and checks edge labels', async () => {
    const builder = createGraphBuilder({ name: 'w', toolNames: tools });
    await builder.apply('add_start', {});
    const report = await builder.apply('add_edge', { from: 'start', to: 'later' });
    expect(report.ok).toBe(true);
    expect(report.message).toContain('no node "later" yet');
    expect(report.missing.some((line) => line.startsWith('node "later"'))).toBe(true);
    expect(report.problems.some((line) => line.includes('edge to unknown node "later"'))).toBe(true);
    const again = await builder.apply('add_edge', { from: 'start', to: 'other' });
    expect(again.ok).toBe(false);
    expect(again.message).toContain('start node "start" has its edge already');
    await builder.apply('add_condition', { id: 'c', expr: '{% inputs.n > 1 %}' });
    expect((await builder.apply('add_edge', { from: 'c', to: 'x' })).message).toContain('needs "when"');
    const labelled = await builder.apply('add_edge', { from: 'c', to: 'x', when: 'true' });
    expect(labelled.message).toContain('"when": "true" was read as true');
    expect((await builder.apply('add_edge', { from: 'c', to: 'y', when: true })).message).toContain(
      'has that branch already',
    );
  });

  it('removes nodes with their edges and edges one by one, and says what is not there', () => {
    let draft = applied(empty, 'add_start', {});
    draft = applied(draft, 'add_end', { output: 1 });
    draft = applied(draft, 'add_edge', { from: 'start', to: 'end' });
    expect(refused(draft, 'remove_node', { id: 'ednd' })).toContain('did you mean "end"?');
    expect(refused(draft, 'remove_edge', { from: 'start', to: 'nowhere' })).toContain(
      'edges from "start": start -> end',
    );
    const noEdge = applied(draft, 'remove_edge', { from: 'start', to: 'end' });
    expect(noEdge.edges).toEqual([]);
    const noEnd = applied(draft, 'remove_node', { id: 'end' });
    expect(noEnd.nodes.map((node) => node.id)).toEqual(['start']);
    expect(noEnd.edges).toEqual([]);
  });

  it('notes strings that look like expressions without {% %}', () => {
    const outcome = applyGraphOperation(empty, 'add_tool_node', { id: 't', tool: 'add', args: { a: 'vars.x' } }, tools);
    expect(outcome.ok && outcome.message).toContain('write "{% vars.x %}" for its value');
  });

  it('refuses finish on a graph with errors and keeps going', async () => {
    const builder = createGraphBuilder({ name: 'w', toolNames: tools });
    await builder.apply('add_start', {});
    await builder.apply('add_tool_node', { id: 't', tool: 'add', args: { a: '{% vars.nope %}', b: 1 } });
    await builder.apply('add_end', {});
    await builder.apply('add_edge', { from: 'start', to: 't' });
    await builder.apply('add_edge', { from: 't', to: 'end' });
    const report = await builder.apply('finish', {});
    expect(report.ok).toBe(false);
    expect(report.message).toContain('finish refused: the graph has 1 error');
    expect(report.problems).toContain('error [t] nodes[1].args.a: vars.nope is never assigned');
    expect(builder.finished).toBe(false);
    await builder.apply('remove_node', { id: 't' });
    await builder.apply('add_tool_node', { id: 't', tool: 'add', args: { a: 1, b: 2 }, out: 'sum' });
    await builder.apply('add_edge', { from: 'start', to: 't' });
    await builder.apply('add_edge', { from: 't', to: 'end' });
    expect((await builder.apply('finish', {})).ok).toBe(true);
  });

  it('stays bounded on junk: huge ids, deep values, thousands of nodes', async () => {
    expect(refused(empty, 'add_set', { id: 'x'.repeat(100_000), values: { a: 1 } }).length).toBeLessThan(300);
    expect(refused(empty, 'add_start', null)).toContain('must be a JSON object');
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const nested = createGraphBuilder({ name: 'w', toolNames: tools });
    expect((await nested.apply('add_set', { id: 's', values: { v: deep } })).message).toContain(
      'nested deeper than 32 levels',
    );
    expect((await nested.apply('add_set', { id: 's', values: { v: 'x'.repeat(70_000) } })).message).toContain(
      'more than 64,000',
    );
    expect(nested.workflow.nodes).toEqual([]);
    const builder = createGraphBuilder({ name: 'w', toolNames: tools });
    for (let i = 0; i < 205; i++) await builder.apply('add_set', { id: `n${i}`, values: { v: 'x'.repeat(1000) } });
    const report = await builder.apply('add_start', {});
    expect(report.graph.length).toBeLessThanOrEqual(201);
    expect(report.graph.at(-1)).toMatch(/^… \d+ more$/);
    expect(JSON.stringify(report).length).toBeLessThan(100_000);
  });
});
