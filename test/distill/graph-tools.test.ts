/** The graph tools: the builder's operations as Tools, with schemas and names models accept. */
import { describe, expect, it } from 'vitest';
import { createGraphBuilder, GRAPH_OPERATIONS } from '../../src/distill/graph-builder.js';
import { graphTools } from '../../src/distill/graph-tools.js';
import { callTool } from '../../src/tools/call-tool.js';
import { TOOL_NAME_PATTERN } from '../../src/tools/tool.js';

describe('graphTools', () => {
  it('offers every operation under a valid tool name, with an object schema', () => {
    const tools = graphTools(createGraphBuilder({ name: 'w', toolNames: [] }));
    expect(tools.map((tool) => tool.name)).toEqual([...GRAPH_OPERATIONS]);
    for (const tool of tools) {
      expect(tool.name).toMatch(TOOL_NAME_PATTERN);
      expect(tool.inputSchema['type']).toBe('object');
      expect(tool.description.length).toBeGreaterThan(20);
    }
  });

  it('returns the report of an accepted call, and an error naming what is missing for a refused one', async () => {
    const builder = createGraphBuilder({ name: 'w', toolNames: ['add'] });
    const byName = new Map(graphTools(builder).map((tool) => [tool.name, tool]));
    const ok = await callTool(byName.get('add_start')!, { inputs: { n: 'integer' } });
    expect(ok.ok && ok.result).toMatchObject({
      message: 'added start node "start"',
      missing: ['an end node (add_end)', 'an edge out of "start"'],
    });
    const bad = await callTool(byName.get('add_tool_node')!, { id: 't', tool: 'sub' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error.message).toContain('add_tool_node: unknown tool "sub"');
    expect(!bad.ok && bad.error.message).toContain('missing: an end node (add_end)');
    const finish = await callTool(byName.get('finish')!, {});
    expect(!finish.ok && finish.error.message).toContain('errors: error nodes: a workflow needs at least one end node');
  });
});
