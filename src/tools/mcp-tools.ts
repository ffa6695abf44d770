/**
 * Tools from a Model Context Protocol server (issue 12). NOT BUILT YET: this is the signature the tools file calls;
 * the MCP client is being written on its own branch and replaces this file.
 */
import { WeftError } from '../errors.js';
import type { McpServerConfig } from './mcp-config.js';
import type { ToolSet } from './tool.js';

export interface OpenMcpToolsOptions {
  /** Aborts connecting and listing. */
  readonly signal?: AbortSignal;
  /** How long the server may take to start and answer `initialize` and `tools/list` (default 20 s). */
  readonly startTimeoutMs?: number;
}

export async function openMcpTools(config: McpServerConfig, _options: OpenMcpToolsOptions = {}): Promise<ToolSet> {
  throw new WeftError('INTERNAL', `MCP server ${config.name}: MCP tools are not built yet`);
}
