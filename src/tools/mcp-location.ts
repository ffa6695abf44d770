/** Where a tools file declares an MCP server (`tools.yaml:12:3`), as the location of an error about it. Pure. */
import type { SourceLocation } from '../errors.js';
import type { McpServerConfig } from './mcp-config.js';

/** `tools.yaml:12:3` (the server's declaration in its tools file) as a location. */
export function mcpLocation(config: McpServerConfig, field?: string): SourceLocation | undefined {
  const at = config.declaredAt;
  const withField = field ? { field: `mcp.${config.name}.${field}` } : {};
  if (at === undefined) return field ? withField : undefined;
  const match = /^(.*?):(\d+)(?::(\d+))?$/.exec(at);
  if (!match) return { file: at, ...withField };
  return {
    file: match[1]!,
    line: Number(match[2]),
    ...(match[3] !== undefined ? { column: Number(match[3]) } : {}),
    ...withField,
  };
}
