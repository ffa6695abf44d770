/** What a failure of an MCP server or its transport says, for the errors openMcpTools throws. */
import { statSync } from 'node:fs';
import { WeftError } from '../errors.js';
import type { McpServerConfig } from './mcp-config.js';
import { mcpLocation } from './mcp-location.js';

/** Network errors that mean the server was never reached (rather than lost during a call). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** A stdio server's command that could not be started: the user's to fix, at the server's declaration. */
export function spawnFailure(config: McpServerConfig, label: string, error: NodeJS.ErrnoException): WeftError {
  const spec = config.transport as Extract<McpServerConfig['transport'], { type: 'stdio' }>;
  const why =
    error.code === 'ENOENT'
      ? spec.cwd !== undefined && !isDirectory(spec.cwd)
        ? `command "${spec.command}" or working directory "${spec.cwd}" does not exist`
        : `command "${spec.command}" was not found (not a file, nor on PATH)`
      : error.code === 'EACCES'
        ? `command "${spec.command}" is not executable`
        : `command "${spec.command}" could not be started (${error.code ?? error.message})`;
  return new WeftError('BAD_INPUT', `${label}: ${why}`, { cause: error, location: mcpLocation(config, 'command') });
}

/** An SDK or network error in a few words: an HTTP status, the server's JSON-RPC error, or why it was unreachable. */
export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && error.message.startsWith('Streamable HTTP error: ')) {
    return `HTTP ${code}: ${error.message.slice('Streamable HTTP error: '.length)}`;
  }
  if (typeof code === 'number') {
    // An McpError's message is `MCP error CODE: ...`, twice over when the server's own handler threw an McpError.
    return `the server answered error ${code}: ${error.message.replace(/^(MCP error -?\d+: )+/, '')}`;
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  // fetch says only `fetch failed`; the reason (ECONNREFUSED, ENOTFOUND) is in its cause.
  if (error.message === 'fetch failed' && cause) {
    const code = String(cause.code ?? cause.message ?? 'unknown network error');
    return UNREACHABLE.has(code) ? `cannot be reached (${code})` : `the connection failed (${code})`;
  }
  return error.message;
}

/** A server that refuses connections may be restarting: worth another try (idempotent tools only, callTool decides). */
export function isConnectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'ECONNREFUSED';
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
