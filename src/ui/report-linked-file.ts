/**
 * A file an eval report links (`weft distill eval --out`'s workflows, traces and results), read for the dashboard
 * from inside the report's folder only: the relative path was checked when the report was read
 * (eval-report-file.ts: no `..`, no absolute path), every folder on the way must be a real folder — a symbolic link
 * is refused, not followed, so a planted link cannot lead out — and the file itself is opened without following a
 * link, never a pipe or device (safe-batch-file.ts). At most `maxBytes` are read; a larger file is shown cut.
 */
import { lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { openRegularFile } from './safe-batch-file.js';

export const MAX_LINKED_FILE_BYTES = 5_000_000;

export type LinkedFile =
  | { readonly text: string; readonly size: number; readonly truncated: boolean }
  | { readonly problem: string };

export async function readLinkedFile(
  reportPath: string,
  relative: string,
  maxBytes = MAX_LINKED_FILE_BYTES,
): Promise<LinkedFile> {
  const parts = relative.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('\\')))
    return { problem: 'not a path inside the report folder' };
  let folder = dirname(reportPath);
  for (const part of parts.slice(0, -1)) {
    folder = join(folder, part);
    const info = await lstat(folder).catch(() => undefined);
    if (!info) return { problem: `no folder ${relative.slice(0, relative.indexOf(part) + part.length)}` };
    if (info.isSymbolicLink()) return { problem: `${part} is a symbolic link; the dashboard does not follow links` };
    if (!info.isDirectory()) return { problem: `${part} is not a folder` };
  }
  let handle: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    handle = await openRegularFile(join(folder, parts.at(-1) as string));
  } catch (error) {
    return { problem: `${relative}: ${(error as Error).message}` };
  }
  if (!handle) return { problem: `${relative}: no such file` };
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    if (text.includes('\u0000')) return { problem: `${relative}: binary, not a text file` };
    return { text, size, truncated: size > bytesRead };
  } finally {
    await handle.close();
  }
}
