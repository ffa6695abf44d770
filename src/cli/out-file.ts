/**
 * An `--out` file a command writes after expensive work (`weft distill`): checked before the work starts, so a
 * summary that cannot be written is not paid for, and written by an atomic replace, so an existing file is never
 * left half written (a reader sees the old content or the new, never a mix). A symlink at the name is followed and
 * kept (the file it leads to is replaced); a link that loops or leads nowhere is refused up front. A pipe or a
 * device (`--out /dev/stdout`) is written as it is. Writing over one of the command's own input files is refused.
 */
import type { Stats } from 'node:fs';
import { lstat, realpath, stat, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { replaceFile, WeftError } from '../internal.js';

/** An input the out file must not be (`--traces`, `--tools`): what the flag is called and the path given. */
export interface GuardedInput {
  readonly flag: string;
  readonly path: string;
}

function refuse(field: string, message: string): never {
  throw new WeftError('BAD_INPUT', message, { location: { field } });
}

async function statOf(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

/**
 * Where writing `out` will put the content: `out`, or the file its symlink leads to. BAD_INPUT (field `field`)
 * when it cannot be written there: no such folder, a folder at the name, a broken or looping link, or one of
 * `inputs`.
 */
export async function checkOutFile(out: string, field: string, inputs: readonly GuardedInput[] = []): Promise<string> {
  let target = out;
  const followed = await statOf(out);
  // A pipe or a device (`/dev/stdout`, whose link leads to no path) is written as it is.
  if (followed && !followed.isFile() && !followed.isDirectory()) return out;
  const link = await lstat(out).catch(() => undefined);
  if (link?.isSymbolicLink()) {
    try {
      target = await realpath(out);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      refuse(
        field,
        `cannot write ${out}: it is a symbolic link ${code === 'ELOOP' ? 'that loops' : 'to a file in no folder, or to nothing'}`,
      );
    }
  }
  const folder = dirname(target);
  const folderStats = await statOf(folder);
  if (!folderStats?.isDirectory()) refuse(field, `cannot write ${out}: no folder ${folder}`);
  const existing = await statOf(target);
  if (existing?.isDirectory()) refuse(field, `cannot write ${out}: it is a folder`);
  if (existing) {
    for (const input of inputs) {
      const other = await statOf(input.path);
      if (other && other.dev === existing.dev && other.ino === existing.ino) {
        refuse(field, `cannot write ${out}: it is the ${input.flag} file, which the result would overwrite`);
      }
    }
  }
  return target;
}

/**
 * Writes `content` to `out` (checked with checkOutFile): a regular file by a temporary file in the same folder
 * renamed over it (keeping an existing file's permissions), a pipe or device directly.
 */
export async function writeOutFile(out: string, content: string, field: string): Promise<void> {
  const target = await checkOutFile(out, field);
  const existing = await statOf(target);
  if (existing && !existing.isFile()) {
    await writeFile(target, content);
    return;
  }
  try {
    await replaceFile(dirname(target), basename(target), content, {
      sync: true,
      ...(existing ? { mode: existing.mode & 0o7777 } : {}),
    });
  } catch (error) {
    refuse(field, `cannot write ${out}: ${(error as Error).message}`);
  }
}
