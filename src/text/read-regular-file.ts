/**
 * A user's input file as text, refusing what is not one before reading: a folder, a named pipe or device (a pipe
 * nobody writes to would block the read for ever), or a file over `maxBytes`. The reason is returned, for the
 * caller's located error (this leaf may not import errors.ts).
 */
import { readFile, stat } from 'node:fs/promises';

export type RegularFileText = { readonly text: string } | { readonly reason: string };

export async function readRegularFile(path: string, maxBytes: number): Promise<RegularFileText> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) return { reason: 'it is a folder' };
    if (!info.isFile()) return { reason: 'it is not a regular file' };
    if (info.size > maxBytes) return { reason: `it is ${info.size} bytes; at most ${maxBytes}` };
    return { text: await readFile(path, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      reason: code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message,
    };
  }
}
