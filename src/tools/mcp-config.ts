/**
 * What a tools file says about one MCP server, after parsing: the contract between the tools file
 * (tools-file.ts, which parses and locates errors) and the MCP client (mcp-tools.ts, which connects).
 * `${env:NAME}` references are already resolved here; the resolved values are secrets and are never printed.
 */

export type McpTransportConfig =
  | {
      readonly type: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Added to the SDK's default (safe) environment of the child process. */
      readonly env: Readonly<Record<string, string>>;
      /** Working directory of the server process (default: the tools file's folder). */
      readonly cwd?: string;
    }
  | {
      /** Streamable HTTP. */
      readonly type: 'http';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
    };

export interface McpServerConfig {
  /** The server's name in the tools file: named in every error and in its tools' `source` (`mcp orders (stdio)`). */
  readonly name: string;
  readonly transport: McpTransportConfig;
  /** Only these of the server's tools (default: all it lists). */
  readonly include?: readonly string[];
  /**
   * Tools that may be retried and re-issued on resume. A tool whose MCP annotations say `readOnlyHint: true` or
   * `idempotentHint: true` counts too (the server's own word; list here the ones it does not mark).
   */
  readonly idempotent?: readonly string[];
  /** Per call (default callTool's). */
  readonly timeoutMs?: number;
  /** The result cap of each of its tools (default callTool's). */
  readonly maxResultBytes?: number;
  /** Where the tools file declares it, for errors: `tools.yaml:12:3`. */
  readonly declaredAt?: string;
}
