/**
 * Writing the files agents emit into a run's artifact folder (`<home>/runs/<runId>/artifacts/`), refusing any
 * path that would land outside it. Finding the files in an agent's text is extract-artifacts.ts.
 *
 * A path is refused (and reported, never written) when it is empty, contains a NUL byte, is absolute (`/x`,
 * `\x`, `C:\x`), climbs out with `..` (`../x`, `a/../../x`; `a/../b` is fine and becomes `b`), names the folder
 * itself or an existing folder, or goes through a symlink already in the folder that points outside it (or
 * nowhere). Backslashes count as separators. Folders are walked one at a time from the root and held open while
 * the file is written (see HeldFolder), so a folder swapped for a symlink after the check is not followed; the
 * file is written to a new temporary file and renamed into place, so a symlink or hard link planted at its name
 * is replaced, never written through. A write that fails (permissions, a file where a folder is needed) is
 * reported as refused too, so one bad file never stops the others.
 */
import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, open, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { ExtractedArtifact } from './extract-artifacts.js';
import { replaceFile } from './replace-file.js';

export { extractArtifacts, type ExtractedArtifact } from './extract-artifacts.js';

export interface WrittenArtifact {
  /** Relative to the artifact folder, `/`-separated and normalised (`./a/../b.js` → `b.js`). */
  readonly path: string;
  readonly bytes: number;
}

export interface RefusedArtifact {
  /** As the agent gave it. */
  readonly path: string;
  readonly reason: string;
}

export interface WriteArtifactsResult {
  readonly written: WrittenArtifact[];
  readonly refused: RefusedArtifact[];
}

type Checked = { readonly segments: string[] } | { readonly reason: string };

/** The lexical checks: returns the normalised path segments or why the path is refused. */
export function checkArtifactPath(path: string): Checked {
  if (path.includes('\0')) return { reason: 'the path contains a NUL byte' };
  if (path.trim() === '') return { reason: 'the path is empty' };
  if (/^[\\/]/.test(path) || /^[A-Za-z]:/.test(path)) return { reason: 'the path is absolute' };
  const segments: string[] = [];
  for (const segment of path.split(/[\\/]+/)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return { reason: 'the path escapes the artifact folder with ..' };
      segments.pop();
    } else {
      segments.push(segment);
    }
  }
  if (segments.length === 0) return { reason: 'the path names the artifact folder itself' };
  return { segments };
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

async function lstatOrUndefined(path: string): Promise<Awaited<ReturnType<typeof lstat>> | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Follows a symlink found in the folder; returns its real target or why it cannot be used. */
async function followLink(root: string, link: string): Promise<{ real: string } | { reason: string }> {
  let real: string;
  try {
    real = await realpath(link);
  } catch {
    return { reason: 'the path goes through a symlink whose target does not exist' };
  }
  if (!isInside(root, real)) return { reason: 'the path resolves outside the artifact folder through a symlink' };
  return { real };
}

/**
 * A folder held open while a file is put into it. On Linux its path is `/proc/self/fd/<fd>`: the kernel resolves
 * that to the folder the descriptor holds, whatever its name now points to, so a folder swapped for a symlink
 * after the check changes nothing (Node has no openat; this is the same guarantee). Elsewhere it is the real path,
 * checked again before the rename.
 */
interface HeldFolder {
  readonly path: string;
  readonly close: () => Promise<void>;
}

const PINNED_FOLDERS = process.platform === 'linux' && existsSync('/proc/self/fd');
const FOLDER_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);
/** Symlinks followed (inside the folder) while resolving one path, like the kernel's own limit. */
const MAX_LINKS = 40;

async function holdFolder(realPath: string): Promise<HeldFolder> {
  if (!PINNED_FOLDERS) return { path: realPath, close: async () => {} };
  const handle = await open(realPath, FOLDER_FLAGS);
  return { path: `/proc/self/fd/${handle.fd}`, close: () => handle.close() };
}

/** Opens `name` inside `folder` without following a symlink; `link` when it is one, undefined when absent. */
async function openChild(folder: HeldFolder, name: string): Promise<HeldFolder | 'link' | 'not-folder' | undefined> {
  const path = join(folder.path, name);
  if (!PINNED_FOLDERS) {
    const info = await lstatOrUndefined(path);
    if (info === undefined) return undefined;
    if (info.isSymbolicLink()) return 'link';
    return info.isDirectory() ? { path, close: async () => {} } : 'not-folder';
  }
  try {
    const handle = await open(path, FOLDER_FLAGS);
    return { path: `/proc/self/fd/${handle.fd}`, close: () => handle.close() };
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return undefined;
    // Linux answers ENOTDIR, not ELOOP, for a symlink opened with O_DIRECTORY | O_NOFOLLOW.
    if (code === 'ELOOP' || code === 'ENOTDIR')
      return (await lstatOrUndefined(path))?.isSymbolicLink() ? 'link' : 'not-folder';
    throw error;
  }
}

/** `real` (inside `root`) as segments from it. */
function segmentsFrom(root: string, real: string): string[] {
  return relative(root, real)
    .split(sep)
    .filter((segment) => segment !== '');
}

/**
 * Walks the segments from the root, one held folder at a time, creating missing folders and following symlinks
 * only while they stay inside (by restarting from the root at their real target). Returns the held folder to
 * write into and the file's name there, or why not.
 */
async function resolveTarget(
  root: string,
  segments: readonly string[],
): Promise<{ folder: HeldFolder; name: string } | { reason: string }> {
  let pending = [...segments];
  let links = 0;
  let folder = await holdFolder(root);
  try {
    for (;;) {
      const segment = pending[0] as string;
      if (pending.length === 1) {
        const leafPath = join(folder.path, segment);
        const info = await lstatOrUndefined(leafPath);
        if (info?.isSymbolicLink()) {
          const followed = await followLink(root, leafPath);
          if ('reason' in followed) return followed;
          if (++links > MAX_LINKS) return { reason: 'the path goes through too many symlinks' };
          pending = segmentsFrom(root, followed.real);
          if (pending.length === 0) return { reason: 'the path names a folder' };
          await folder.close();
          folder = await holdFolder(root);
          continue;
        }
        if (info?.isDirectory()) return { reason: 'the path names a folder' };
        const held = folder;
        folder = { path: root, close: async () => {} }; // handed over to the caller
        return { folder: held, name: segment };
      }
      let child = await openChild(folder, segment);
      if (child === undefined) {
        await mkdir(join(folder.path, segment)).catch((error: unknown) => {
          if (errorCode(error) !== 'EEXIST') throw error;
        });
        // Re-check: something may have appeared between the look and the mkdir.
        child = await openChild(folder, segment);
        if (child === undefined) return { reason: `${segment} is not a folder` };
      }
      if (child === 'not-folder') return { reason: `${segment} is a file, not a folder` };
      if (child === 'link') {
        const followed = await followLink(root, join(folder.path, segment));
        if ('reason' in followed) return followed;
        if (!(await stat(followed.real)).isDirectory()) return { reason: `${segment} is not a folder` };
        if (++links > MAX_LINKS) return { reason: 'the path goes through too many symlinks' };
        pending = [...segmentsFrom(root, followed.real), ...pending.slice(1)];
        await folder.close();
        folder = await holdFolder(root);
        continue;
      }
      await folder.close();
      folder = child;
      pending = pending.slice(1);
    }
  } finally {
    await folder.close();
  }
}

/**
 * Writes the file into the held folder with replaceFile (a link planted at the name is replaced, not written
 * through). Without pinned folders the folder's real path is checked once more just before the rename.
 */
async function writeInto(root: string, folder: HeldFolder, name: string, content: string): Promise<void> {
  await replaceFile(folder.path, name, content, {
    beforeRename: async () => {
      if (!PINNED_FOLDERS && !isInside(root, await realpath(folder.path))) {
        throw Object.assign(new Error('the folder moved outside the artifact folder'), { code: 'ESCAPED' });
      }
    },
  });
}

/**
 * Writes each artifact under `dir` (created if absent), in order, so a later artifact with the same path
 * replaces an earlier one. Never throws for a bad path or a failed write: those are listed in `refused`.
 */
export async function writeArtifacts(
  dir: string,
  artifacts: readonly Pick<ExtractedArtifact, 'path' | 'content'>[],
): Promise<WriteArtifactsResult> {
  await mkdir(dir, { recursive: true });
  const root = await realpath(dir);
  const written: WrittenArtifact[] = [];
  const refused: RefusedArtifact[] = [];
  for (const artifact of artifacts) {
    const checked = checkArtifactPath(artifact.path);
    if ('reason' in checked) {
      refused.push({ path: artifact.path, reason: checked.reason });
      continue;
    }
    try {
      const resolved = await resolveTarget(root, checked.segments);
      if ('reason' in resolved) {
        refused.push({ path: artifact.path, reason: resolved.reason });
        continue;
      }
      try {
        await writeInto(root, resolved.folder, resolved.name, artifact.content);
      } finally {
        await resolved.folder.close();
      }
      written.push({ path: checked.segments.join('/'), bytes: Buffer.byteLength(artifact.content, 'utf8') });
    } catch (error) {
      const code = errorCode(error);
      const reason =
        code === 'ELOOP'
          ? 'the path is a symlink'
          : code === 'ESCAPED'
            ? 'the path resolves outside the artifact folder through a symlink'
            : code === 'EISDIR' || code === 'ENOTEMPTY'
              ? 'the path names a folder'
              : `the file could not be written (${code ?? String(error)})`;
      refused.push({ path: artifact.path, reason });
    }
  }
  return { written, refused };
}
