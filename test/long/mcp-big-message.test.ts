/**
 * An MCP server that sends a message beyond the SDK's 10 MB limit (npm run test:long: producing and reading 11 MB
 * takes about 10 s on a CI machine, too long for every npm test).
 */
import { describe, expect, it } from 'vitest';
import { callTool } from '../../src/tools/call-tool.js';
import { openMcpTools } from '../../src/tools/mcp-tools.js';
import { stdioConfig } from '../fixtures/mcp/helpers.js';

describe('an MCP server that sends too much', () => {
  it('a message beyond the 10 MB line limit stops the server, and the error says why', async () => {
    const set = await openMcpTools(stdioConfig());
    try {
      const outcome = await callTool(set.tools.find((tool) => tool.name === 'big')!, { size: 11_000_000 });
      expect(!outcome.ok && outcome.error.message).toMatch(
        /^big: MCP server files \(stdio\) was stopped: it sent a message larger than the limit \(ReadBuffer exceeded maximum size of 10485760 bytes\) during the call/,
      );
    } finally {
      await set.close();
    }
  });
});
