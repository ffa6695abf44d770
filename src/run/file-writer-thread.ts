/**
 * A thread that writes batches of small files into one folder, each atomically as replace-file.ts does (a new
 * temporary file created exclusively, never through a link, then renamed over the name). Synchronous calls on
 * their own thread: one message per batch instead of four thread-pool round trips per file on the event loop.
 *
 * The thread's code is given as text, not as a module path, so it starts the same from the sources (tests) and
 * from the built package.
 */
import { Worker } from 'node:worker_threads';

const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, writeFileSync, closeSync, renameSync, unlinkSync, constants } = require('node:fs');
const { join } = require('node:path');
const { randomUUID } = require('node:crypto');
const FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW || 0);
parentPort.on('message', ({ id, files }) => {
  const failures = [];
  for (const { name, text } of files) {
    const temporary = join(workerData.dir, '.weft-' + randomUUID() + '.tmp');
    try {
      const fd = openSync(temporary, FLAGS, 0o644);
      try { writeFileSync(fd, text, 'utf8'); } finally { closeSync(fd); }
      renameSync(temporary, join(workerData.dir, name));
    } catch (error) {
      try { unlinkSync(temporary); } catch {}
      failures.push({ name, message: error && error.message ? error.message : String(error) });
    }
  }
  parentPort.postMessage({ id, failures });
});
`;

export interface WriteFailure {
  readonly name: string;
  readonly message: string;
}

export class FileWriterThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<
    number,
    { resolve: (failures: WriteFailure[]) => void; reject: (error: unknown) => void }
  >();
  private nextId = 0;
  private broken: unknown;

  constructor(dir: string) {
    this.worker = new Worker(THREAD_CODE, { eval: true, workerData: { dir } });
    // Idle, the thread must not keep the process alive; busy, it must (an awaited promise does not).
    this.worker.unref();
    this.worker.on('message', (message: { id: number; failures: WriteFailure[] }) => {
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (this.waiting.size === 0) this.worker.unref();
      waiter?.resolve(message.failures);
    });
    const fail = (error: unknown) => {
      this.broken ??= error;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the file-writing thread stopped (exit code ${code})`)));
  }

  /** Writes the files (names inside the folder); resolves with the ones that could not be written. */
  write(files: readonly { readonly name: string; readonly text: string }[]): Promise<WriteFailure[]> {
    if (this.broken !== undefined) return Promise.reject(this.broken);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, files });
    });
  }

  async close(): Promise<void> {
    this.broken ??= new Error('the file-writing thread was closed');
    await this.worker.terminate();
  }
}
