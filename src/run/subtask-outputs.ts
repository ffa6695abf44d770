/**
 * Each subtask's accepted output as a file, `<runDir>/outputs/<subtask>.md` (run-paths.ts names it), written
 * atomically (a new temporary file renamed over the name): a reader never sees half an output, and a link planted
 * at the name is replaced, not followed. The folder itself must be a real folder.
 *
 * A run writes each output when it is accepted and settles the folder from its folded log at the end; the
 * writer remembers what it wrote, so the end rewrites only what differs. A run of more than OUTPUT_FILES_LIMIT
 * outputs keeps them in one file instead (`@all.md`, all-outputs.ts), written when it settles: past the limit no
 * output is written on its own, and settling removes the ones that were. Until then the outputs are in the run's
 * log, which `weft show` and the dashboard read, and a resume settles the folder again.
 *
 * Writes are batched: what is accepted while a batch is being written goes into the next one. A small batch is
 * written here; a large one (a wide run accepting hundreds of outputs at once) by a file-writing thread, so the
 * run's own work and the disk overlap instead of queueing four file-system round trips per output behind the
 * event loop (10,000 outputs cost seconds that way).
 */
import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { boundedMap } from '../runtime/bounded-map.js';
import { ALL_OUTPUTS_FILE, OUTPUT_FILES_LIMIT, outputFileName } from '../store/run-paths.js';
import { renderAllOutputs } from './all-outputs.js';
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
  /** The names written or being written one by one: past OUTPUT_FILES_LIMIT of them, outputs wait for settle. */
  private readonly names = new Set<string>();
  /** Set once the plan has more subtasks than OUTPUT_FILES_LIMIT: its outputs will share one file. */
  private oneFile = false;

  constructor(private readonly dir: string) {}

  /** The plan's size: a plan of more than OUTPUT_FILES_LIMIT subtasks writes no output on its own. */
  planned(subtasks: number): void {
    if (subtasks > OUTPUT_FILES_LIMIT) this.oneFile = true;
  }

  /**
   * Writes one subtask's accepted output; resolves once it is on disk, or at once when the plan is larger than
   * OUTPUT_FILES_LIMIT or the run already has that many outputs (it will likely keep them in one file, written
   * when it settles).
   */
  write(taskId: string, output: string): Promise<void> {
    const name = outputFileName(taskId);
    if (this.oneFile || (!this.names.has(name) && this.names.size >= OUTPUT_FILES_LIMIT)) return Promise.resolve();
    return this.enqueue(name, output);
  }

  private enqueue(name: string, output: string): Promise<void> {
    this.names.add(name);
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
   * Makes the folder hold exactly these outputs (in plan order): writes the ones this writer has not already
   * written as they are, or all of them as one file past OUTPUT_FILES_LIMIT, and removes the other `.md` files
   * (outputs that no longer stand, such as a subtask a plan update removed or sent back, or the other layout's
   * files), so the folder matches report.md, and temporary files a killed process left. Stops the writing thread.
   */
  async settle(outputs: readonly { readonly id: string; readonly output: string }[]): Promise<void> {
    await this.ensureFolder();
    await this.writing;
    // Files as they should be; one that cannot be written fails no run (the outputs are in its log).
    const files =
      outputs.length > OUTPUT_FILES_LIMIT
        ? [{ name: ALL_OUTPUTS_FILE, text: renderAllOutputs(outputs) }]
        : outputs.map((entry) => ({ name: outputFileName(entry.id), text: entry.output }));
    const keep = new Set(files.map((file) => file.name));
    const stale = files.filter((file) => this.written.get(file.name) !== file.text);
    await Promise.allSettled(stale.map((file) => this.enqueue(file.name, file.text)));
    await this.writing;
    const remove: string[] = [];
    for (const entry of await readdir(this.dir, { withFileTypes: true })) {
      // Every write of this run has finished: a temporary file left is from a process killed mid-write.
      const leftover = isTemporaryName(entry.name);
      if (
        (leftover || (entry.name.endsWith('.md') && !keep.has(entry.name))) &&
        (entry.isFile() || entry.isSymbolicLink())
      )
        remove.push(entry.name);
    }
    await boundedMap(remove, { concurrency: PARALLEL_WRITES }, async (name) => {
      await rm(join(this.dir, name), { force: true });
      this.written.delete(name);
      this.names.delete(name);
    });
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
