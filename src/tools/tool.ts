/**
 * The tool contract: one shape for every source (http, module, mcp) and every user (agents in runs,
 * conversational procedures, distilled workflows). A tool's arguments are validated against `inputSchema` before
 * `call` runs (validate-args.ts); `callTool` (call-tool.ts) adds the timeout, the concurrency cap, the retries of
 * idempotent tools and the size cap on results.
 */

/** What models accept as a tool's name (OpenAI's rule, the strictest of the providers). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A JSON value, as tools take and return them. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema object (draft 2020-12 or 07, as ajv reads it). */
export type ToolSchema = Readonly<Record<string, unknown>>;

export interface ToolCallContext {
  /** Aborts the call: the timeout, a cancelled run, or the caller. */
  readonly signal: AbortSignal;
  /**
   * The Weft run or chat session the call is made for (`run:<runId>`, `session:<sessionId>`); absent for a call of
   * its own (`weft tools call`). http tools send it as the `Weft-Scope` header (http-tool.ts).
   */
  readonly scope?: string;
}

export interface Tool {
  /** Unique within a tool set; what a model names when it calls the tool. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolSchema;
  readonly outputSchema?: ToolSchema;
  /** Whether calling it twice with the same arguments does no more than calling it once (may be retried). */
  readonly idempotent?: boolean;
  /**
   * Top-level arguments whose values are secret: the run's log, `weft show` and reports print `[redacted]` in
   * their place. The tool itself gets the real values.
   */
  readonly secretArgs?: readonly string[];
  /** Calls of this tool at once (default: no cap). */
  readonly concurrency?: number;
  /** Results whose JSON is larger are cut to this many bytes, with a note (default: callTool's, 20,000). */
  readonly maxResultBytes?: number;
  /** Milliseconds one call may take (default: callTool's). */
  readonly timeoutMs?: number;
  /**
   * Declared (a name, a description, schemas) with no endpoint behind it, as a FlowAgent tools spec declares its APIs:
   * calling it fails. `--simulate-apis` replaces it with a simulated one.
   */
  readonly declaredOnly?: boolean;
  /** Its answers come from a model, not from the API (simulated-api.ts): recorded and shown as simulated. */
  readonly simulated?: boolean;
  /** Where it comes from, for `weft tools list` and errors: e.g. `http tools.yaml:12`, `mcp orders (stdio)`. */
  readonly source: string;
  /** Set for a workflow tool (a `workflow` entry): what `weft tools list` shows of it. */
  readonly workflow?: WorkflowToolInfo;
  call(args: JsonValue, context: ToolCallContext): Promise<JsonValue>;
}

/** What a workflow tool runs: a distilled workflow, with no model, calling other tools. */
export interface WorkflowToolInfo {
  /** The workflow file, as the entry names it. */
  readonly file: string;
  /** The workflow's own name. */
  readonly name: string;
  /** The tools its nodes call, each once, in node order. */
  readonly calls: readonly string[];
  /** The tools file those come from, as the entry names it; absent: the other tools of its own section. */
  readonly toolsFile?: string;
  /** The deadline of one whole run. */
  readonly timeoutMs: number;
  /** Node visits one run may make. */
  readonly maxVisits: number;
}

/** The tools one file, plan or procedure provides, with what must be released when Weft ends (MCP servers). */
export interface ToolSet {
  readonly tools: readonly Tool[];
  /** Stops servers and closes connections; safe to call twice. */
  close(): Promise<void>;
}
