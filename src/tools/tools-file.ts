/**
 * A tools file (`--tools tools.yaml`): YAML or JSON holding `allowHosts` and a `tools:` list of http,
 * module, mcp and workflow entries (parse-tools-section.ts), loaded into one ToolSet. Every problem of the file is reported
 * at once, as one BAD_INPUT whose issues name file, line, column and field. Relative paths resolve against the
 * file's folder.
 */
import { dirname, resolve } from 'node:path';
import { readStructuredSource } from '../text/read-structured-source.js';
import { type FieldPath, formatFieldPath, type PositionOf } from '../text/source-locator.js';
import { type McpOpener, openToolSources, problemsError } from './open-tool-sources.js';
import { isFlowAgentToolsSpec, parseFlowAgentToolsSpec } from './flowagent-tools-spec.js';
import { parseToolsSection, unknownKeyIssues } from './parse-tools-section.js';
import { readInputFile } from './read-input-file.js';
import type { ToolSet } from './tool.js';
import type { WorkflowToolsOpener } from './workflow-tools-opener.js';

/** A tools file is a few KB; a larger one is a mistake (or hostile), refused before it is read. */
export const MAX_TOOLS_FILE_BYTES = 5_000_000;
export const TOOLS_FILE_FIELDS = ['allowHosts', 'tools'] as const;

export interface LoadToolsFileOptions {
  /** Where `${env:NAME}` references are looked up (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal;
  /** Starts MCP servers (default `openMcpTools`). */
  readonly openMcp?: McpOpener;
  /** How long an MCP server may take to start and list its tools. */
  readonly mcpStartTimeoutMs?: number;
  /**
   * The file is another document holding a tools section (a plan's `tools:` and `allowHosts:`): its other keys
   * are not ours to check, and a document without `tools` gives an empty set.
   */
  readonly embedded?: boolean;
  /**
   * Opens `workflow` entries: the workflow interpreter's opener. The library's own `loadToolsFile` (the package's
   * entry point) gives it; this layer's alone cannot run workflows, and reports such entries as problems.
   */
  readonly openWorkflows?: WorkflowToolsOpener;
  /** The tools files whose workflow entries led to this one, outermost first (absolute): set by nested loads. */
  readonly within?: readonly string[];
}

/** Loads every source the file lists into one ToolSet (names unique across sources). Throws BAD_INPUT, located. */
export async function loadToolsFile(path: string, options: LoadToolsFileOptions = {}): Promise<ToolSet> {
  const text = await readInputFile(path, 'tools file', MAX_TOOLS_FILE_BYTES);
  const read = readStructuredSource(text, path);
  if ('issues' in read) throw problemsError(read.issues, 'invalid tools file', { file: path });
  const root = read.value;
  const locate = (at: FieldPath, message: string) => located(path, read.positionOf, at, message);
  if (!options.embedded && isFlowAgentToolsSpec(root)) {
    const spec = parseFlowAgentToolsSpec(root, path, read.positionOf);
    if (spec.issues.length > 0)
      throw problemsError(
        spec.issues.map((issue) => locate(issue.path, issue.message)),
        'invalid tools spec',
        { file: path },
      );
    return { tools: spec.tools, close: async () => {} };
  }
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    throw problemsError(
      [
        locate(
          [],
          'a tools file is an object with "tools" (a list) and "allowHosts", or a FlowAgent tools spec (a list of entries with "API")',
        ),
      ],
      'invalid tools file',
      { file: path },
    );
  }
  const record = root as Record<string, unknown>;
  if (options.embedded && record.tools === undefined && record.allowHosts === undefined) {
    return { tools: [], close: async () => {} };
  }
  const keyIssues = options.embedded
    ? []
    : unknownKeyIssues(record, TOOLS_FILE_FIELDS, []).map((issue) => locate(issue.path, issue.message));
  const parsed = parseToolsSection({
    tools: record.tools,
    allowHosts: record.allowHosts,
    positionOf: read.positionOf,
    file: path,
    baseDir: dirname(resolve(path)),
    ...(options.env ? { env: options.env } : {}),
  });
  const within = [...(options.within ?? []), resolve(path)];
  // Modules are imported and MCP commands looked for even when the file has other problems: all are reported at once.
  return openToolSources(parsed.sources, {
    within,
    openToolsFile: (nested) => loadToolsFile(nested, { ...options, embedded: false, within }),
    ...(options.openWorkflows ? { openWorkflows: options.openWorkflows } : {}),
    what: 'invalid tools file',
    file: path,
    earlierIssues: [...keyIssues, ...parsed.issues],
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.openMcp ? { openMcp: options.openMcp } : {}),
    ...(options.mcpStartTimeoutMs !== undefined ? { mcpStartTimeoutMs: options.mcpStartTimeoutMs } : {}),
  });
}

function located(file: string, positionOf: PositionOf, path: FieldPath, message: string) {
  const field = formatFieldPath(path);
  return { file, ...(positionOf(path) ?? {}), ...(field === undefined ? {} : { field }), message };
}
