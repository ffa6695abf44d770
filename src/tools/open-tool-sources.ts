/**
 * Opening the sources of a checked `tools:` section (parse-tools-section.ts) into one ToolSet: http tools are
 * built, modules imported, MCP servers started, and then workflow entries opened by the workflow interpreter's
 * opener (they call the others). Every problem is reported at once, located at the entry that has it (a module
 * without the export it names, an MCP command that does not exist, a tool name two sources give, a workflow that
 * does not check); whatever was opened before a problem is closed again.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, isAbsolute, resolve } from 'node:path';
import { isWeftError, type LocatedIssue, type SourceLocation, WeftError } from '../errors.js';
import { type FieldPath, formatFieldPath } from '../text/source-locator.js';
import { createHttpTool } from './http-tool.js';
import type { McpServerConfig } from './mcp-config.js';
import type { OpenMcpToolsOptions } from './mcp-tools.js';
import type { ToolSourceSpec } from './tool-entry-fields.js';
import type { Tool, ToolSet } from './tool.js';
import type { WorkflowToolSource, WorkflowToolsContext, WorkflowToolsOpener } from './workflow-tools-opener.js';

export type McpOpener = (config: McpServerConfig, options: OpenMcpToolsOptions) => Promise<ToolSet>;

export interface OpenToolSourcesOptions {
  readonly signal?: AbortSignal;
  /** Starts an MCP server (default `openMcpTools`); tests and embedders may supply their own. */
  readonly openMcp?: McpOpener;
  /** How long an MCP server may take to start and list its tools. */
  readonly mcpStartTimeoutMs?: number;
  /** The message of the error when there are problems (default `invalid tools: N problems`). */
  readonly what?: string;
  /**
   * Problems found before (the section's own): reported with these, in one error. MCP servers are then not started
   * (their commands are still looked for), since the tools will not be used.
   */
  readonly earlierIssues?: readonly LocatedIssue[];
  /** The document the sources come from, named by the error. */
  readonly file?: string;
  /**
   * Opens `workflow` entries (the library's loadToolsFile gives the workflow interpreter's opener); without it,
   * each such entry is a problem.
   */
  readonly openWorkflows?: WorkflowToolsOpener;
  /** The tools files being loaded, outermost first (absolute), for workflow entries' cycle check. */
  readonly within?: readonly string[];
  /** Loads a tools file a workflow entry names in `tools:` (loadToolsFile gives it). */
  readonly openToolsFile?: WorkflowToolsContext['openToolsFile'];
}

interface Opened {
  readonly source: ToolSourceSpec;
  readonly set: ToolSet;
}

export async function openToolSources(
  sources: readonly ToolSourceSpec[],
  options: OpenToolSourcesOptions = {},
): Promise<ToolSet> {
  const issues: LocatedIssue[] = [...(options.earlierIssues ?? [])];
  const at = (source: ToolSourceSpec, path: FieldPath, message: string): void => {
    issues.push({ ...source.locate(path), message });
  };
  const workflowSources = sources.filter((source): source is WorkflowToolSource => source.kind === 'workflow');
  const plainSources = sources.filter((source) => source.kind !== 'workflow');
  const outcomes = await Promise.allSettled(plainSources.map((source) => openSource(source, options)));
  // The caller gave up (Ctrl-C, SIGTERM): that is no problem of the file, and not exit 2.
  const aborted = outcomes.find(
    (outcome) => outcome.status === 'rejected' && isWeftError(outcome.reason) && outcome.reason.code === 'ABORTED',
  );
  if (aborted && options.signal?.aborted) {
    await closeAll(outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : [])))();
    throw (aborted as PromiseRejectedResult).reason;
  }
  const opened: Opened[] = [];
  outcomes.forEach((outcome, index) => {
    const source = plainSources[index]!;
    if (outcome.status === 'fulfilled') opened.push({ source, set: outcome.value });
    else reportFailure(source, outcome.reason, at);
  });
  if (workflowSources.length > 0) {
    try {
      opened.push(...(await openWorkflowSources(workflowSources, opened, issues, options)));
    } catch (error) {
      await closeAll(opened.map((entry) => entry.set))();
      throw error;
    }
  }

  // Names unique across sources: a model calls a tool by name only.
  const origins = new Map<string, { tool: Tool; source: ToolSourceSpec }>();
  const tools: Tool[] = [];
  for (const { source, set } of opened) {
    for (const tool of set.tools) {
      const earlier = origins.get(tool.name);
      if (earlier) {
        at(
          source,
          source.kind === 'http' ||
            source.kind === 'simulated' ||
            (source.kind === 'workflow' && source.spec.name !== undefined)
            ? [...source.path, 'name']
            : source.path,
          `duplicate tool name "${tool.name}": ${tool.source} and ${earlier.tool.source} (${formatFieldPath(earlier.source.path)}) both give it`,
        );
        continue;
      }
      origins.set(tool.name, { tool, source });
      tools.push(tool);
    }
  }
  const close = closeAll(opened.map((entry) => entry.set));
  if (issues.length > 0) {
    await close();
    throw problemsError(issues, options.what ?? 'invalid tools', options.file ? { file: options.file } : undefined);
  }
  return { tools, close };
}

/**
 * The workflow entries, opened once the other sources are (a workflow calls them): each as a one-tool set, the
 * first also closing what the workflows' own tools files opened. Their problems join `issues`.
 */
async function openWorkflowSources(
  sources: readonly WorkflowToolSource[],
  opened: readonly Opened[],
  issues: LocatedIssue[],
  options: OpenToolSourcesOptions,
): Promise<Opened[]> {
  if (!options.openWorkflows) {
    for (const source of sources) {
      issues.push({
        ...source.locate([...source.path, 'kind']),
        message: "workflow tools need the workflow interpreter: open this file with the weft package's loadToolsFile",
      });
    }
    return [];
  }
  const result = await options.openWorkflows(sources, {
    siblings: opened.flatMap((entry) => entry.set.tools),
    sectionHasProblems: issues.length > 0,
    within: options.within ?? [],
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.openToolsFile ? { openToolsFile: options.openToolsFile } : {}),
  });
  issues.push(...result.issues);
  const noClose = async (): Promise<void> => {};
  const built: Opened[] = [];
  result.tools.forEach((tool, index) => {
    if (tool) built.push({ source: sources[index]!, set: { tools: [tool], close: noClose } });
  });
  // The nested tools files are closed with the section, whether or not any workflow tool came out of them.
  built.push({ source: sources[0]!, set: { tools: [], close: () => result.close() } });
  return built;
}

/**
 * One BAD_INPUT listing located problems in source order: by file (in the order files first appear: a workflow
 * entry's own file after the tools file naming it), then by line and column.
 */
export function problemsError(issues: readonly LocatedIssue[], what: string, location?: SourceLocation): WeftError {
  const fileRank = new Map<string | undefined, number>();
  for (const issue of issues) if (!fileRank.has(issue.file)) fileRank.set(issue.file, fileRank.size);
  const sorted = [...issues].sort(
    (a, b) =>
      fileRank.get(a.file)! - fileRank.get(b.file)! ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
  const n = sorted.length;
  return new WeftError('BAD_INPUT', `${what}: ${n} ${n === 1 ? 'problem' : 'problems'}`, {
    issues: sorted,
    ...(location ? { location } : {}),
  });
}

function closeAll(sets: readonly ToolSet[]): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= Promise.allSettled(sets.map((set) => set.close())).then(() => undefined);
    return closing;
  };
}

async function openSource(source: ToolSourceSpec, options: OpenToolSourcesOptions): Promise<ToolSet> {
  if (source.kind === 'http') return { tools: [createHttpTool(source.spec)], close: async () => {} };
  if (source.kind === 'module') {
    const { loadModuleTools } = await import('./module-tools.js');
    return loadModuleTools(source.modulePath, {
      displayPath: source.shownPath,
      ...(source.exports ? { exports: source.exports } : {}),
    });
  }
  if (source.kind === 'workflow') throw new WeftError('INTERNAL', 'workflow entries are opened by openWorkflows');
  if (source.kind === 'simulated') return { tools: [unboundSimulatedTool(source)], close: async () => {} };
  const { transport } = source.config;
  if (transport.type === 'stdio' && !(await commandExists(transport.command, transport.cwd))) {
    throw new CommandMissing(transport.command);
  }
  if ((options.earlierIssues ?? []).length > 0) return { tools: [], close: async () => {} };
  const open: McpOpener = options.openMcp ?? (await import('./mcp-tools.js')).openMcpTools;
  return open(source.config, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.mcpStartTimeoutMs !== undefined ? { startTimeoutMs: options.mcpStartTimeoutMs } : {}),
  });
}

class CommandMissing extends Error {}

function reportFailure(
  source: ToolSourceSpec,
  reason: unknown,
  at: (source: ToolSourceSpec, path: FieldPath, message: string) => void,
): void {
  const message = reason instanceof Error ? reason.message : String(reason);
  if (reason instanceof CommandMissing) {
    at(
      source,
      [...source.path, 'command'],
      `MCP server ${source.kind === 'mcp' ? source.config.name : ''}: command "${message}" not found${isAbsolute(message) || message.includes('/') ? '' : ' on PATH'}`,
    );
    return;
  }
  if (source.kind === 'module') {
    // loadModuleTools names the export it could not use in `field`: point at it in `exports`.
    const field = isWeftError(reason) ? reason.location?.field : undefined;
    const index = field === undefined ? -1 : (source.exports ?? []).indexOf(field);
    at(source, index >= 0 ? [...source.path, 'exports', index] : [...source.path, 'path'], message);
    return;
  }
  at(source, source.path, message);
}

/** Whether `command` names an executable: a path (against `cwd`), or a name found on PATH. */
export async function commandExists(command: string, cwd: string | undefined): Promise<boolean> {
  const executable = async (path: string): Promise<boolean> =>
    access(path, constants.X_OK).then(
      () => true,
      () => false,
    );
  if (command.includes('/') || command.includes('\\')) return executable(resolve(cwd ?? process.cwd(), command));
  const folders = (process.env.PATH ?? '').split(delimiter).filter((folder) => folder !== '');
  for (const folder of folders) if (await executable(resolve(folder, command))) return true;
  return false;
}

/**
 * A `simulated` entry before its model is bound (bindSimulatedTools in runs, bindTools in conversations): declared,
 * marked simulated, and refusing to be called.
 */
function unboundSimulatedTool(source: Extract<ToolSourceSpec, { kind: 'simulated' }>): Tool {
  const where = `simulated ${source.location.file ?? 'tools'}${source.location.line ? `:${source.location.line}` : ''}`;
  return {
    ...source.spec,
    idempotent: false,
    simulated: true,
    source: where,
    async call() {
      throw new WeftError(
        'TOOL',
        `${source.spec.name} is simulated (${where}) but no model was given to answer it; run it through weft run, chat or simulate, which answer it with their model`,
      );
    },
  };
}
