import { describe, expect, it } from 'vitest';
import { formatError, type WeftError } from '../../src/errors.js';
import type { McpServerConfig } from '../../src/tools/mcp-config.js';
import { MAX_MCP_TOOLS, toolsOf } from '../../src/tools/mcp-list-tools.js';

const listed = Array.from({ length: MAX_MCP_TOOLS + 1 }, (_, index) => ({
  name: `t${index}`,
  inputSchema: { type: 'object' },
}));
const config: McpServerConfig = {
  name: 'many',
  transport: { type: 'stdio', command: 'node', args: [], env: {} },
  declaredAt: 'tools.yaml:3:5',
};

describe('toolsOf', () => {
  it('refuses a server that lists more tools than any agent is offered, unless include picks some', () => {
    let error: WeftError | undefined;
    try {
      toolsOf(listed, config, 'MCP server many');
    } catch (caught) {
      error = caught as WeftError;
    }
    expect(error?.code).toBe('BAD_INPUT');
    expect(formatError(error!)).toContain(
      `MCP server many lists ${MAX_MCP_TOOLS + 1} tools; at most ${MAX_MCP_TOOLS} are taken without include`,
    );
    const picked = toolsOf(listed, { ...config, include: ['t7', `t${MAX_MCP_TOOLS}`] }, 'MCP server many');
    expect(picked.map((tool) => tool.name)).toEqual(['t7', `t${MAX_MCP_TOOLS}`]);
    expect(toolsOf(listed.slice(0, MAX_MCP_TOOLS), config, 'MCP server many')).toHaveLength(MAX_MCP_TOOLS);
  });
});
