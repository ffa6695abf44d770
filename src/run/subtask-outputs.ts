/**
 * Each subtask's accepted output as a file, `<runDir>/outputs/<subtask>.md` (run-paths.ts names it). A file is
 * written to a fresh temporary name and renamed over the old one, so a reader never sees half an output and a
 * symlink planted at the final name is replaced, not followed. The folder itself must be a real folder.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { outputFileName } from '../store/run-paths.js';

/** Creates `dir` if needed and refuses one that is a symlink or a file (it would send outputs elsewhere). */
async function outputFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const info = await lstat(dir);
  if (!info.isDirectory()) throw new Error(`${dir} is not a folder (a symlink or a file is in its place); outputs are not written there`);
}

async function writeAtomically(dir: string, name: string, text: string): Promise<void> {
  const temporary = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  // `wx`: the temporary name is new; if something is already there, fail rather than write through it.
  await writeFile(temporary, text, { encoding: 'utf8', flag: 'wx', mode: 0o644 });
  try {
    await rename(temporary, join(dir, name));
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Writes one subtask's accepted output into `dir` (the run's `outputs/`). */
export async function writeSubtaskOutput(dir: string, taskId: string, output: string): Promise<void> {
  await outputFolder(dir);
  await writeAtomically(dir, outputFileName(taskId), output);
}

/**
 * Makes `dir` hold exactly the given outputs: writes each, and removes the `.md` files of outputs that no longer
 * stand (a subtask a plan update removed, or rerun without success), so the folder matches report.md.
 */
export async function writeSubtaskOutputs(dir: string, outputs: readonly { readonly id: string; readonly output: string }[]): Promise<void> {
  await outputFolder(dir);
  const keep = new Set<string>();
  for (const { id, output } of outputs) {
    const name = outputFileName(id);
    keep.add(name);
    await writeAtomically(dir, name, output);
  }
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.endsWith('.md') && !keep.has(entry.name) && (entry.isFile() || entry.isSymbolicLink())) await rm(join(dir, entry.name), { force: true });
  }
}
