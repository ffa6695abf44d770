/** The graph tools against a model that sends prototype keys, self-loops, removals of the start and two finishes. */
import { describe, expect, it } from 'vitest';
import { createGraphBuilder } from '../../src/distill/graph-builder.js';

/** Arguments as a provider hands them over: parsed JSON, where `__proto__` is an own key. */
const json = (text: string): unknown => JSON.parse(text);

describe('graph builder, hostile arguments', () => {
  it('refuses __proto__ as an input or a variable name (the workflow file would drop it unnoticed)', async () => {
    const builder = createGraphBuilder({ name: 'w', toolNames: ['add'] });
    const input = await builder.apply('add_start', json('{"inputs": {"__proto__": {"type": "integer"}}}'));
    expect(input.ok).toBe(false);
    expect(input.message).toContain('input name "__proto__" is not an identifier');
    const set = await builder.apply('add_set', json('{"id": "s", "values": {"__proto__": 1}}'));
    expect(set.ok).toBe(false);
    const out = await builder.apply('add_tool_node', json('{"id": "t", "tool": "add", "out": "__proto__"}'));
    expect(out.ok).toBe(false);
    expect(builder.workflow.nodes).toEqual([]);
  });

  it('takes __proto__ and constructor as node ids, and finishes a graph built on them exactly once', async () => {
    const builder = createGraphBuilder({ name: 'w', toolNames: [] });
    const steps: [string, string][] = [
      ['add_start', '{"id": "__proto__", "inputs": {"constructor": "string"}}'],
      ['add_set', '{"id": "constructor", "values": {"constructor": "{% inputs.constructor %}"}}'],
      ['add_edge', '{"from": "__proto__", "to": "constructor"}'],
      ['add_edge', '{"from": "constructor", "to": "end"}'],
      ['add_end', '{"output": "{% vars.constructor %}"}'],
    ];
    for (const [operation, args] of steps) expect((await builder.apply(operation, json(args))).ok).toBe(true);
    const first = await builder.apply('finish', {});
    expect(first.ok, first.message).toBe(true);
    expect(builder.workflow.inputs).toEqual({ constructor: { type: 'string' } });
    const second = await builder.apply('finish', {});
    expect(second.ok).toBe(false);
    expect(second.message).toContain('the workflow is finished');
  });

  it('names a missing node once for a self-loop, and lets the start be removed and added again', async () => {
    const builder = createGraphBuilder({ name: 'w', toolNames: [] });
    const loop = await builder.apply('add_edge', { from: 'x', to: 'x' });
    expect(loop.message).toBe('added edge x -> x; no node "x" yet');
    await builder.apply('add_start', {});
    const removed = await builder.apply('remove_node', { id: 'start' });
    expect(removed.ok).toBe(true);
    expect(removed.missing).toContain('a start node (add_start)');
    expect((await builder.apply('add_start', {})).ok).toBe(true);
  });
});
