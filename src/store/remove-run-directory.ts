import { lstat, readdir, rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { isWeftError, WeftError } from '../errors.js';
import { runPaths } from './run-paths.js';

/**
 * Removes `<home>/runs/<runId>` (or, with `dryRun`, only measures it) and returns its size in bytes; undefined
 * when there is no such folder. Never touches anything outside `<home>/runs`: a run id that is not a plain folder
 * name is refused, and a symbolic link in its place is removed as a link, never followed.
 */
export async function removeRunDirectory(home: string, runId: string, dryRun: boolean): Promise<number | undefined> {
  const root = resolve(home, 'runs');
  let dir: string;
  try {
    dir = resolve(runPaths(home, runId).dir);
  } catch (error) {
    if (isWeftError(error) && error.code === 'BAD_INPUT') return undefined; // Not a folder name: no folder to remove.
    throw error;
  }
  const inside = relative(root, dir);
  if (inside === '' || inside.startsWith('..') || inside.includes(sep) || resolve(root, inside) !== dir) {
    throw new WeftError('INTERNAL', `refusing to remove ${dir}: it is not a folder directly under ${root}`);
  }
  const info = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!info) return undefined;
  const bytes = info.isDirectory() ? await sizeOf(dir) : 0;
  // rm does not follow symbolic links: a link is removed, not what it points to.
  if (!dryRun) await rm(dir, { recursive: true, force: true });
  return bytes;
}

async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await sizeOf(path);
    else if (entry.isFile()) total += (await lstat(path)).size;
  }
  return total;
}
