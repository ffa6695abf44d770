/**
 * Opening a file in a batch folder for the dashboard: never through a symlink (O_NOFOLLOW), never a pipe or device
 * (O_NONBLOCK so a FIFO does not block the open, then refused as not a regular file), read-only. The dashboard
 * reads what `weft exec` wrote and must not be led anywhere else by a planted link.
 */
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The open file, or undefined when there is none; an Error saying why for a link, a folder or a special file. */
export async function openRegularFile(path: string): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new Error('it is a symbolic link; the dashboard does not follow links');
    throw new Error(`cannot open it: ${code ?? (error as Error).message}`);
  }
  const info = await handle.stat();
  if (!info.isFile()) {
    await handle.close();
    throw new Error('it is not a regular file');
  }
  return handle;
}

/** A small file whole, up to `maxBytes` (more is an Error); undefined when there is none. */
export async function readSmallFile(path: string, maxBytes: number): Promise<string | undefined> {
  const handle = await openRegularFile(path);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw new Error(`it is ${size} bytes; the dashboard reads at most ${maxBytes}`);
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
