/**
 * Tools from an ES module: its exports defined with `defineTool` (or the AI SDK's `tool()`) become tools named by
 * their export (or their `name`). The module is imported on first use only. A `.ts` module needs a TypeScript
 * loader: the running one (node --import tsx, vitest), else tsx's API when tsx is installed.
 */
import { existsSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WeftError } from '../errors.js';
import { isToolDefinition, toolFromDefinition } from './define-tool.js';
import { TOOL_NAME_PATTERN, type Tool, type ToolSet } from './tool.js';

export interface ModuleToolsOptions {
  /** The exports to use (a tools file names them); default every tool-like export. */
  readonly exports?: readonly string[];
  /** Relative module paths resolve against it (the tools file's folder); default the working directory. */
  readonly baseDir?: string;
  /** How errors and `source` name the module (default: the path as given). */
  readonly displayPath?: string;
}

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

export async function loadModuleTools(path: string, options: ModuleToolsOptions = {}): Promise<ToolSet> {
  const file = isAbsolute(path) ? path : resolve(options.baseDir ?? process.cwd(), path);
  const shown = options.displayPath ?? path;
  const module = await importModule(file, shown);
  const tools = toolsOfModule(module, shown, options.exports);
  return {
    tools,
    async close() {
      // An imported module cannot be unloaded, and holds nothing Weft opened.
    },
  };
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
