/** Listing an MCP server's tools (every page) and turning them into Weft's, `include` honoured. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WeftError } from '../errors.js';
import type { McpServerConfig } from './mcp-config.js';
import { mcpLocation } from './mcp-location.js';
import { TOOL_NAME_PATTERN, type Tool, type ToolSchema } from './tool.js';

/** A server that keeps answering with new cursors is looping: this many pages is far beyond any real one. */
const MAX_LIST_PAGES = 1000;
/**
 * Tools taken from one server without `include`. Each one's schema is compiled when the server starts: a server
 * listing 100,000 took 16 s and 750 MB before anything ran, and no model is offered that many.
 */
export const MAX_MCP_TOOLS = 1000;

export interface ListedTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: ToolSchema;
  readonly outputSchema?: ToolSchema;
  readonly annotations?: {
    readonly title?: string;
    readonly readOnlyHint?: boolean;
    readonly idempotentHint?: boolean;
  };
}

export async function listAllTools(
  client: Client,
  request: { signal: AbortSignal; timeout: number },
  label: string,
): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, request);
    tools.push(...(result.tools as unknown as ListedTool[]));
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
    if (seenCursors.has(cursor)) {
      throw new WeftError('TOOL', `${label} answered tools/list with cursor "${cursor.slice(0, 80)}" twice (a loop)`);
    }
    seenCursors.add(cursor);
  }
  throw new WeftError('TOOL', `${label} listed more than ${MAX_LIST_PAGES} pages of tools`);
}

/** The listed tools as Weft's, `include` honoured; names checked as models need them. `call` is set by the caller. */
export function toolsOf(listed: readonly ListedTool[], config: McpServerConfig, label: string): Tool[] {
  const byName = new Map<string, ListedTool>();
  for (const tool of listed) {
    if (byName.has(tool.name)) throw new WeftError('TOOL', `${label} lists tool "${tool.name}" twice`);
    byName.set(tool.name, tool);
  }
  if (config.include === undefined && byName.size > MAX_MCP_TOOLS) {
    throw new WeftError(
      'BAD_INPUT',
      `${label} lists ${byName.size} tools; at most ${MAX_MCP_TOOLS} are taken without include: list the ones its agents need in include`,
      { location: mcpLocation(config, 'include') },
    );
  }
  const names = config.include ?? [...byName.keys()];
  const missing = names.filter((name) => !byName.has(name));
  if (missing.length > 0) {
    const present = [...byName.keys()];
    throw new WeftError(
      'BAD_INPUT',
      `${label} has no tool ${missing.map((name) => `"${name}"`).join(', ')} (its tools: ${present.length > 0 ? present.join(', ') : 'none'})`,
      { location: mcpLocation(config, 'include') },
    );
  }
  return names.map((name) => {
    const tool = byName.get(name)!;
    if (!TOOL_NAME_PATTERN.test(name)) {
      throw new WeftError(
        'BAD_INPUT',
        `${label}: tool name "${name.slice(0, 80)}" is not one models accept (1-64 letters, digits, _ or -); list the others in include`,
        { location: mcpLocation(config, 'include') },
      );
    }
    const hints = tool.annotations ?? {};
    return {
      name,
      description: tool.description ?? tool.title ?? hints.title ?? '',
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      // A read-only tool changes nothing, so calling it twice is calling it once; `idempotentHint` says so outright.
      idempotent: hints.readOnlyHint === true || hints.idempotentHint === true,
      source: '',
      call: () => Promise.reject(new WeftError('INTERNAL', 'not bound')),
    };
  });
}
