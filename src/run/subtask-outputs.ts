/**
 * Each subtask's accepted output as a file, `<runDir>/outputs/<subtask>.md` (run-paths.ts names it), written with
 * replaceFile: a reader never sees half an output, and a link planted at the name is replaced, not followed. The
 * folder itself must be a real folder.
 *
 * A run writes each output when it is accepted and settles the folder from its folded log at the end; the
 * writer remembers what it wrote, so the end rewrites only what differs (a 10,000-subtask run would otherwise
 * pay for every file twice).
 */
import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { outputFileName } from '../store/run-paths.js';
import { isTemporaryName, replaceFile } from './replace-file.js';

/** Files written at once when settling; enough to keep the file system busy, few enough to bound open files. */
const PARALLEL_WRITES = 16;

export class SubtaskOutputs {
  private folder: Promise<void> | undefined;
  /** File name → the text this writer last put there. */
  private readonly written = new Map<string, string>();
  /** File name → its latest write: writes to one file run in order, so the last accepted output wins. */
  private readonly queue = new Map<string, Promise<void>>();

  constructor(private readonly dir: string) {}

  /** Writes one subtask's accepted output. */
  write(taskId: string, output: string): Promise<void> {
    const name = outputFileName(taskId);
    const previous = this.queue.get(name) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        await this.ensureFolder();
        await replaceFile(this.dir, name, output);
        this.written.set(name, output);
      });
    this.queue.set(name, next);
    return next;
  }

  /**
   * Makes the folder hold exactly these outputs: writes the ones this writer has not already written as they are,
   * and removes the `.md` files of outputs that no longer stand (a subtask a plan update removed or sent back),
   * so the folder matches report.md, and temporary files a killed process left.
   */
  async settle(outputs: readonly { readonly id: string; readonly output: string }[]): Promise<void> {
    await this.ensureFolder();
    await Promise.allSettled([...this.queue.values()]);
    const keep = new Set(outputs.map((entry) => outputFileName(entry.id)));
    const pending = outputs.filter((entry) => this.written.get(outputFileName(entry.id)) !== entry.output);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < pending.length) {
        const entry = pending[next++]!;
        await this.write(entry.id, entry.output);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, pending.length) }, worker));
    for (const entry of await readdir(this.dir, { withFileTypes: true })) {
      // Every write of this run has finished: a temporary file left is from a process killed mid-write.
      const leftover = isTemporaryName(entry.name);
      if (
        (leftover || (entry.name.endsWith('.md') && !keep.has(entry.name))) &&
        (entry.isFile() || entry.isSymbolicLink())
      ) {
        await rm(join(this.dir, entry.name), { force: true });
        this.written.delete(entry.name);
      }
    }
  }

  /** Creates the folder once and refuses one that is a symlink or a file (it would send outputs elsewhere). */
  private ensureFolder(): Promise<void> {
    this.folder ??= (async () => {
      await mkdir(this.dir, { recursive: true });
      const info = await lstat(this.dir);
      if (!info.isDirectory())
        throw new Error(
          `${this.dir} is not a folder (a symlink or a file is in its place); outputs are not written there`,
        );
    })();
    return this.folder;
  }
}
