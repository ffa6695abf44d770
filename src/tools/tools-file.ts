/**
 * A tools file (`--tools tools.yaml`, issue 12). NOT BUILT YET: this is the signature runs and the CLI call; the
 * parser (http, module and mcp sources, located errors, the host allow-list, `${env:NAME}` secrets) is being
 * written on its own branch and replaces this file.
 */
import { WeftError } from '../errors.js';
import type { ToolSet } from './tool.js';

export interface LoadToolsFileOptions {
  /** Where `${env:NAME}` references are looked up (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal;
}

/** Loads every source the file lists into one ToolSet (names unique across sources). Throws BAD_INPUT, located. */
export async function loadToolsFile(path: string, _options: LoadToolsFileOptions = {}): Promise<ToolSet> {
  throw new WeftError('INTERNAL', `${path}: tools files are not built yet`);
}
