/**
 * Writing a file so that nothing planted at its name is written through: the content goes to a new temporary file
 * created exclusively in the same folder, which is then renamed over the name. A reader never sees half a file,
 * and a symlink or hard link at the name is replaced, not followed. Used for artifacts and for subtask outputs.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Whether `name` looks like a temporary file of a write that never finished (a killed process): a dot file ending
 * in `.tmp`, which no file this module is asked to write is named like.
 */
export function isTemporaryName(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

export interface ReplaceFileOptions {
  /** Runs after the write and may refuse by throwing. */
  readonly beforeRename?: () => Promise<void>;
  /** The new file's permissions (default 0o644; e.g. those of the file it replaces). */
  readonly mode?: number;
  /** Flush the content to the disk before the rename (a user's file: a crash must not leave it empty). */
  readonly sync?: boolean;
}

/**
 * Writes `content` as `<folder>/<name>`. On any failure the temporary file is removed and the error rethrown.
 */
export async function replaceFile(
  folder: string,
  name: string,
  content: string,
  options: ReplaceFileOptions = {},
): Promise<void> {
  const temporary = join(folder, `.weft-${randomUUID()}.tmp`);
  // O_EXCL: the temporary name is new; if anything is already there (a link included), fail rather than write through it.
  const handle = await open(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    0o644,
  );
  try {
    try {
      await handle.writeFile(content, 'utf8');
      if (options.mode !== undefined) await handle.chmod(options.mode);
      if (options.sync) await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeRename?.();
    await rename(temporary, join(folder, name));
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
