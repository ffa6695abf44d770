/**
 * Tools from an ES module: its exports defined with `defineTool` (or the AI SDK's `tool()`) become tools named by
 * their export (or their `name`). A `.ts` module needs a TypeScript loader: the running one (node --import tsx,
 * vitest), else tsx's API when tsx is installed.
 *
 * The module is imported, and its tools run, in worker threads (module-tool-worker.ts), never in this one: a call
 * past its timeout (the tool's `timeoutMs`, else callTool's 30 s) has its worker terminated, even a synchronous busy
 * loop, and the process goes on. So each worker holds its own copy of the module: state a module keeps in memory
 * between calls is not shared between workers, and is lost when one is stopped.
 */
import { existsSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WeftError } from '../errors.js';
import {
  DEFAULT_WORKER_MEMORY_MB,
  type IsolatePool,
  createIsolatePool,
  workerScript,
} from '../runtime/isolate-pool.js';
import { DEFAULT_TOOL_TIMEOUT_MS } from './call-tool.js';
import { isToolDefinition, toolFromDefinition } from './define-tool.js';
import {
  type JsonValue,
  type ModuleToolOrigin,
  TOOL_NAME_PATTERN,
  type Tool,
  type ToolSchema,
  type ToolSet,
} from './tool.js';

/** How long importing a tools module (its top-level code) may take. */
export const MODULE_LOAD_TIME_LIMIT_MS = 30_000;

export interface ModuleToolsOptions {
  /** The exports to use (a tools file names them); default every tool-like export. */
  readonly exports?: readonly string[];
  /** Relative module paths resolve against it (the tools file's folder); default the working directory. */
  readonly baseDir?: string;
  /** How errors and `source` name the module (default: the path as given). */
  readonly displayPath?: string;
  /** Each worker's heap limit in MB (default DEFAULT_WORKER_MEMORY_MB): a call past it fails alone. */
  readonly memoryMb?: number;
}

/** A task of a module tools worker (module-tool-worker.ts). */
export type ModuleToolTask =
  | { readonly op: 'describe'; readonly file: string; readonly shown: string; readonly exports?: readonly string[] }
  | {
      readonly op: 'call';
      readonly file: string;
      readonly shown: string;
      readonly exports?: readonly string[];
      readonly tool: string;
      readonly args: JsonValue;
    };

/** What a worker tells of one tool of the module: the Tool without its `call`. */
export type ModuleToolInfo = Omit<Tool, 'call'>;

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

const pools = new Map<number, IsolatePool>();

function poolFor(memoryMb: number): IsolatePool {
  let pool = pools.get(memoryMb);
  if (!pool) {
    pool = createIsolatePool({ script: workerScript('module-tool-worker', import.meta.url), memoryMb });
    pools.set(memoryMb, pool);
  }
  return pool;
}

/** Stops every worker of module tools (tests; a long-lived host that wants its threads back). */
export async function closeModuleToolWorkers(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.close()));
}

export async function loadModuleTools(path: string, options: ModuleToolsOptions = {}): Promise<ToolSet> {
  const file = isAbsolute(path) ? path : resolve(options.baseDir ?? process.cwd(), path);
  const shown = options.displayPath ?? path;
  const memoryMb = options.memoryMb ?? DEFAULT_WORKER_MEMORY_MB;
  const pool = poolFor(memoryMb);
  const module = { file, shown, ...(options.exports ? { exports: options.exports } : {}) };
  const infos = (await pool.run({
    timeLimitMs: MODULE_LOAD_TIME_LIMIT_MS,
    body: () => ({ op: 'describe', ...module }) satisfies ModuleToolTask,
    overTime: () =>
      new WeftError('BAD_INPUT', `Tools module ${shown} did not load within ${MODULE_LOAD_TIME_LIMIT_MS} ms`, {
        location: { file: shown },
      }),
    crashed: (_where, reason) =>
      new WeftError('BAD_INPUT', `Tools module ${shown} failed to load: ${reason}`, { location: { file: shown } }),
  })) as ModuleToolInfo[];
  const tools = infos.map((info): Tool => {
    const limit = info.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    return {
      ...info,
      module,
      // callTool's deadline aborts the signal, which stops the worker; the limit here stops a direct call too.
      call: async (args, { signal }) =>
        (await pool.run({
          timeLimitMs: limit,
          signal,
          body: () => ({ op: 'call', ...module, tool: info.name, args }) satisfies ModuleToolTask,
          overTime: () =>
            new WeftError('TIMEOUT', `${info.name}: no result after ${limit} ms; its worker thread was stopped`, {
              retryable: false,
            }),
          crashed: (_where, reason) => new WeftError('TOOL', `${info.name}: stopped: ${reason}`),
        })) as JsonValue,
    };
  });
  return {
    tools,
    async close() {
      // The workers are shared by every module's tools, and hold nothing Weft opened: they end with the process.
    },
  };
}

const imported = new Map<string, Promise<readonly Tool[]>>();

/**
 * A module's tools as a worker thread sees them, imported once per thread (by file, the name errors and `source`
 * show it by, and picked exports: one file loaded by two tools files under two names keeps both names). A module
 * that failed to load is not kept: it may load next time (it was fixed).
 */
export function moduleToolsOfThread(origin: ModuleToolOrigin): Promise<readonly Tool[]> {
  const key = [origin.file, origin.shown, ...(origin.exports ?? [])].join('\u0000');
  let tools = imported.get(key);
  if (!tools) {
    tools = moduleToolsInThisThread(origin.file, origin.shown, origin.exports);
    tools.catch(() => imported.delete(key));
    imported.set(key, tools);
  }
  return tools;
}

/** A module's tools as its worker sees them: imported there, with their `execute`. */
async function moduleToolsInThisThread(
  file: string,
  shown: string,
  exports?: readonly string[],
): Promise<readonly Tool[]> {
  return toolsOfModule(await importModule(file, shown), shown, exports);
}

/** What crosses back to the loading thread: everything but the function. */
export function infoOfTool(tool: Tool): ModuleToolInfo {
  const { call: _call, ...info } = tool;
  return info as ModuleToolInfo & { inputSchema: ToolSchema };
}

async function importModule(file: string, shown: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION' && TS_EXTENSIONS.has(extname(file))) return importTypeScript(url, shown);
    // Not the module's own missing import ("Cannot find package 'zod' imported from <file>" names the file too).
    if (code === 'ERR_MODULE_NOT_FOUND' && !existsSync(file)) {
      throw new WeftError('BAD_INPUT', `Tools module ${shown} does not exist (${file})`, {
        cause: error,
        location: { file: shown },
      });
    }
    throw new WeftError('BAD_INPUT', `Tools module ${shown} failed to load: ${(error as Error).message ?? error}`, {
      cause: error,
      location: { file: shown },
    });
  }
}

/** Node without a loader cannot import `.ts`; tsx's API can, when tsx is installed. */
async function importTypeScript(url: string, shown: string): Promise<Record<string, unknown>> {
  let tsImport: (specifier: string, parent: string) => Promise<unknown>;
  try {
    ({ tsImport } = (await import('tsx/esm/api')) as { tsImport: typeof tsImport });
  } catch (error) {
    throw new WeftError(
      'BAD_INPUT',
      `Tools module ${shown} is TypeScript and no TypeScript loader is present: install tsx (npm install tsx), run node with --import tsx, or compile it to .mjs`,
      { cause: error, location: { file: shown } },
    );
  }
  try {
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  } catch (error) {
    throw new WeftError('BAD_INPUT', `Tools module ${shown} failed to load: ${(error as Error).message ?? error}`, {
      cause: error,
      location: { file: shown },
    });
  }
}

/** The tools among a module's exports; the named ones only when `names` is given. */
export function toolsOfModule(
  module: Record<string, unknown>,
  shown: string,
  names?: readonly string[],
): readonly Tool[] {
  const picked = names ?? Object.keys(module).filter((name) => isToolDefinition(module[name]));
  if (names) {
    for (const name of names) {
      if (!(name in module)) {
        const present = Object.keys(module).filter((key) => isToolDefinition(module[key]));
        throw new WeftError(
          'BAD_INPUT',
          `Tools module ${shown} has no export "${name}"${present.length > 0 ? ` (its tools: ${present.join(', ')})` : ''}`,
          { location: { file: shown, field: name } },
        );
      }
      if (!isToolDefinition(module[name])) {
        throw new WeftError(
          'BAD_INPUT',
          `Tools module ${shown}: export "${name}" is not a tool (define it with defineTool({ description, inputSchema, execute }))`,
          { location: { file: shown, field: name } },
        );
      }
    }
  }
  if (picked.length === 0) {
    throw new WeftError(
      'BAD_INPUT',
      `Tools module ${shown} exports no tools (objects made with defineTool({ description, inputSchema, execute }))`,
      { location: { file: shown } },
    );
  }
  const seen = new Map<string, string>();
  return picked.map((exportName) => {
    const definition = module[exportName];
    if (!isToolDefinition(definition)) throw new WeftError('INTERNAL', `export "${exportName}" is not a tool`);
    const name = typeof definition.name === 'string' ? definition.name : exportName;
    const where = `${shown}#${exportName}`;
    if (name === 'default') {
      throw new WeftError('BAD_INPUT', `Tools module ${shown}: the default export's tool needs a \`name\``, {
        location: { file: shown, field: exportName },
      });
    }
    if (!TOOL_NAME_PATTERN.test(name)) {
      throw new WeftError(
        'BAD_INPUT',
        `Tools module ${shown}: tool name "${name}" (export "${exportName}") must be 1-64 letters, digits, _ or -`,
        { location: { file: shown, field: exportName } },
      );
    }
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      throw new WeftError(
        'BAD_INPUT',
        `Tools module ${shown}: exports "${earlier}" and "${exportName}" are both named tool "${name}"`,
        { location: { file: shown, field: exportName } },
      );
    }
    seen.set(name, exportName);
    try {
      return toolFromDefinition(definition, { name, source: `module ${where}`, where });
    } catch (error) {
      if (error instanceof WeftError) {
        throw new WeftError(error.code, error.message, { cause: error, location: { file: shown, field: exportName } });
      }
      throw error;
    }
  });
}
