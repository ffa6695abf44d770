import { describe, expect, it } from 'vitest';
import { isWeftError } from '../../src/errors.js';
import { mergeToolSets } from '../../src/tools/merge-tool-sets.js';
import type { Tool, ToolSet } from '../../src/tools/tool.js';

function tool(name: string, source: string): Tool {
  return { name, description: name, inputSchema: { type: 'object' }, source, call: async () => null };
}

function set(tools: Tool[]): ToolSet & { closed: number } {
  const result = {
    tools,
    closed: 0,
    async close() {
      result.closed += 1;
    },
  };
  return result;
}

describe('mergeToolSets', () => {
  it('joins the sets in order and closes every one', async () => {
    const first = set([tool('a', 'file'), tool('b', 'file')]);
    const second = set([tool('c', 'plan')]);
    const merged = await mergeToolSets([first, second]);
    expect(merged.tools.map((each) => each.name)).toEqual(['a', 'b', 'c']);
    await merged.close();
    expect([first.closed, second.closed]).toEqual([1, 1]);
  });

  it('refuses a name two sets give, naming both sources, and closes what was opened', async () => {
    const first = set([tool('a', 'http GET /a (tools.yaml:4)')]);
    const second = set([tool('a', 'http GET /b (plan.yaml:9)')]);
    const error = await mergeToolSets([first, second]).catch((caught: unknown) => caught);
    expect(isWeftError(error) && error.code).toBe('BAD_INPUT');
    expect((error as Error).message).toBe(
      'tool "a" is defined twice: http GET /a (tools.yaml:4) and http GET /b (plan.yaml:9)',
    );
    expect([first.closed, second.closed]).toEqual([1, 1]);
  });
});
