#!/usr/bin/env node
/**
 * A small MCP server over stdio for the tools example: the shop's written policies, looked up by topic. It uses the
 * SDK's high-level McpServer; Weft starts it from tools.yaml and stops it when the run ends.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const POLICIES = {
  returns:
    'Items may be returned within 30 days of delivery, unused and in their packaging. Refunds go to the original payment or to store credit, as the customer chooses.',
  electronics:
    'Electronics (laptops, webcams, speakers) follow the returns policy; a webcam or speaker that was opened is still accepted when it is faulty.',
  shipping: 'An address can be changed, or an order cancelled, until the order ships.',
};

const server = new McpServer({ name: 'shop-policies', version: '1.0.0' });

server.registerTool(
  'get_policy',
  {
    description: `The shop's policy on a topic: ${Object.keys(POLICIES).join(', ')}.`,
    inputSchema: { topic: z.enum(Object.keys(POLICIES)) },
    outputSchema: { topic: z.string(), policy: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ topic }) => {
    const result = { topic, policy: POLICIES[topic] };
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  },
);

await server.connect(new StdioServerTransport());
