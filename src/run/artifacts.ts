/**
 * Writing the files agents emit into a run's artifact folder (`<home>/runs/<runId>/artifacts/`), refusing any
 * path that would land outside it. Finding the files in an agent's text is extract-artifacts.ts.
 *
 * A path is refused (and reported, never written) when it is empty, contains a NUL byte, is absolute (`/x`,
 * `\x`, `C:\x`), climbs out with `..` (`../x`, `a/../../x`; `a/../b` is fine and becomes `b`), names the folder
 * itself or an existing folder, or goes through a symlink already in the folder that points outside it (or
 * nowhere). Backslashes count as separators. The final file is opened with O_NOFOLLOW, so a symlink swapped in
 * after the check is not followed either. A write that fails (permissions, a file where a folder is needed) is
 * reported as refused too, so one bad file never stops the others.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { ExtractedArtifact } from './extract-artifacts.js';

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
 * Walks the segments from the (real) root, creating missing folders and following symlinks only while they stay
 * inside. Returns the real path to write or why not.
 */
async function resolveTarget(root: string, segments: readonly string[]): Promise<{ target: string } | { reason: string }> {
  let current = root;
  for (const segment of segments.slice(0, -1)) {
    const next = join(current, segment);
    const info = await lstatOrUndefined(next);
    if (info === undefined) {
      await mkdir(next).catch((error: unknown) => {
        if (errorCode(error) !== 'EEXIST') throw error;
      });
      // Re-check: something may have appeared between the look and the mkdir.
      const created = await lstat(next);
      if (!created.isDirectory()) return { reason: `${segment} is not a folder` };
      current = next;
    } else if (info.isSymbolicLink()) {
      const followed = await followLink(root, next);
      if ('reason' in followed) return followed;
      if (!(await stat(followed.real)).isDirectory()) return { reason: `${segment} is not a folder` };
      current = followed.real;
    } else if (info.isDirectory()) {
      current = next;
    } else {
      return { reason: `${segment} is a file, not a folder` };
    }
  }
  const leaf = join(current, segments[segments.length - 1] as string);
  const info = await lstatOrUndefined(leaf);
  if (info === undefined) return { target: leaf };
  if (info.isSymbolicLink()) {
    const followed = await followLink(root, leaf);
    if ('reason' in followed) return followed;
    if ((await stat(followed.real)).isDirectory()) return { reason: 'the path names a folder' };
    return { target: followed.real };
  }
  if (info.isDirectory()) return { reason: 'the path names a folder' };
  return { target: leaf };
}

async function writeNoFollow(target: string, content: string): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
  const handle = await open(target, flags, 0o644);
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
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
      await writeNoFollow(resolved.target, artifact.content);
      written.push({ path: checked.segments.join('/'), bytes: Buffer.byteLength(artifact.content, 'utf8') });
    } catch (error) {
      const code = errorCode(error);
      const reason = code === 'ELOOP' ? 'the path is a symlink' : `the file could not be written (${code ?? String(error)})`;
      refused.push({ path: artifact.path, reason });
    }
  }
  return { written, refused };
}
