/**
 * Each subtask's accepted output as a file, `<runDir>/outputs/<subtask>.md` (run-paths.ts names it), written
 * atomically (a new temporary file renamed over the name): a reader never sees half an output, and a link planted
 * at the name is replaced, not followed. The folder itself must be a real folder.
 *
 * A run writes each output when it is accepted and settles the folder from its folded log at the end; the
 * writer remembers what it wrote, so the end rewrites only what differs.
 *
 * Writes are batched: what is accepted while a batch is being written goes into the next one. A small batch is
 * written here; a large one (a wide run accepting hundreds of outputs at once) by a file-writing thread, so the
 * run's own work and the disk overlap instead of queueing four file-system round trips per output behind the
 * event loop (10,000 outputs cost seconds that way).
 */
import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { boundedMap } from '../runtime/bounded-map.js';
import { outputFileName } from '../store/run-paths.js';
import { FileWriterThread } from './file-writer-thread.js';
import { isTemporaryName, replaceFile } from './replace-file.js';

/** Below this many files a batch is written on the event loop: starting a thread would cost more. */
const THREAD_BATCH = 64;
/** Files written at once on the event loop; enough to keep the file system busy, few enough to bound open files. */
const PARALLEL_WRITES = 16;

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class SubtaskOutputs {
  private folder: Promise<void> | undefined;
  /** File name → the text this writer last put there. */
  private readonly written = new Map<string, string>();
  /** File name → the latest text not yet handed to a batch, and who waits for it. */
  private pending = new Map<string, { text: string; waiters: Waiter[] }>();
  /** The batch being written; batches run one after another, so the last accepted output of a name wins. */
  private writing: Promise<void> = Promise.resolve();
  private scheduled = false;
  private thread: FileWriterThread | undefined;

  constructor(private readonly dir: string) {}

  /** Writes one subtask's accepted output; resolves once it is on disk. */
  write(taskId: string, output: string): Promise<void> {
    const name = outputFileName(taskId);
    return new Promise<void>((resolve, reject) => {
      const entry = this.pending.get(name);
      if (entry) {
        entry.text = output;
        entry.waiters.push({ resolve, reject });
      } else this.pending.set(name, { text: output, waiters: [{ resolve, reject }] });
      if (!this.scheduled) {
        this.scheduled = true;
        this.writing = this.writing.then(() => this.writeBatch());
      }
    });
  }

  /**
   * Makes the folder hold exactly these outputs: writes the ones this writer has not already written as they are,
   * and removes the `.md` files of outputs that no longer stand (a subtask a plan update removed or sent back),
   * so the folder matches report.md, and temporary files a killed process left. Stops the writing thread.
   */
  async settle(outputs: readonly { readonly id: string; readonly output: string }[]): Promise<void> {
    await this.ensureFolder();
    await this.writing;
    const keep = new Set(outputs.map((entry) => outputFileName(entry.id)));
    const stale = outputs.filter((entry) => this.written.get(outputFileName(entry.id)) !== entry.output);
    await Promise.allSettled(stale.map((entry) => this.write(entry.id, entry.output)));
    await this.writing;
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
    await this.close();
  }

  /** Stops the writing thread, if one was started; a later write starts another. */
  async close(): Promise<void> {
    await this.writing;
    const thread = this.thread;
    this.thread = undefined;
    await thread?.close();
  }

  private async writeBatch(): Promise<void> {
    // Runs on a later turn than the write that scheduled it, so everything accepted in between joins the batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.scheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    const files = [...batch].map(([name, entry]) => ({ name, text: entry.text }));
    let failures: ReadonlyMap<string, unknown>;
    try {
      await this.ensureFolder();
      failures = files.length >= THREAD_BATCH ? await this.writeOnThread(files) : await this.writeHere(files);
    } catch (error) {
      failures = new Map(files.map((file) => [file.name, error]));
    }
    for (const [name, entry] of batch) {
      const failure = failures.get(name);
      if (failure === undefined) this.written.set(name, entry.text);
      for (const waiter of entry.waiters) failure === undefined ? waiter.resolve() : waiter.reject(failure);
    }
  }

  private async writeHere(files: readonly { name: string; text: string }[]): Promise<Map<string, unknown>> {
    const failures = new Map<string, unknown>();
    // A file that cannot be written fails its own write only: caught here, so the map goes on.
    await boundedMap(files, { concurrency: PARALLEL_WRITES }, (file) =>
      replaceFile(this.dir, file.name, file.text).catch((error: unknown) => void failures.set(file.name, error)),
    );
    return failures;
  }

  private async writeOnThread(files: readonly { name: string; text: string }[]): Promise<Map<string, unknown>> {
    this.thread ??= new FileWriterThread(this.dir);
    const failures = await this.thread.write(files);
    return new Map(failures.map((failure) => [failure.name, new Error(failure.message)]));
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
