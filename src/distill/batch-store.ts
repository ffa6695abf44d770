/**
 * A batch's folder, `<home>/batches/<batchId>/` (docs/contracts.md): `batch.json` (what it was started with),
 * `log.jsonl` (append-only: a `case-start` record per case written before it runs, a `case-end` record after) and
 * `owner.json` (the process running it, while it runs). Logs of earlier versions name them `start` and `result`;
 * readers take both (`batchRecordType`).
 *
 * Decisions:
 * - A `case-start` record is written with a synchronous write (no buffer in this process) before the case can call a
 *   tool, so a killed process leaves its running cases visibly started. `case-end` records may wait for the next
 *   start (one write for both) or a short timer: one lost to a kill leaves its case started without a result,
 *   reported interrupted on the resume, never run twice.
 * - The owner file is created exclusively; one whose process is gone (on this host) is taken over, one on another
 *   host is never judged gone (as for runs: run-owner.ts).
 * - A torn last line (the process died mid-write) is ignored when the log is read, and ended with a line break
 *   before anything is appended to it: else the next record would be glued to it and lost too.
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { WeftError } from '../errors.js';
import { currentOwner, ownerState } from '../store/run-owner.js';

export interface BatchManifest {
  readonly version: 1;
  readonly batchId: string;
  readonly createdAt: string;
  readonly workflow: { readonly path: string; readonly sha256: string };
  readonly tools?: { readonly path: string };
  readonly inputs: { readonly path: string; readonly sha256: string; readonly cases: number };
  readonly options: {
    readonly concurrency: number;
    readonly maxVisits?: number;
    readonly out?: string;
    /** The redis URL of `--workers`, credentials redacted (a resume asks for the URL again). */
    readonly workers?: string;
  };
}

export interface BatchError {
  readonly code: string;
  readonly message: string;
  /** Where in the workflow: e.g. `nodes.add`, `node add (args).a`. */
  readonly field?: string;
}

export type CaseStatus = 'passed' | 'failed' | 'error';

export type BatchLogRecord =
  | { readonly type: 'case-start'; readonly id: string | number; readonly attempt: number; readonly worker?: string }
  | {
      readonly type: 'case-end';
      readonly id: string | number;
      readonly status: CaseStatus;
      readonly output?: unknown;
      readonly error?: BatchError;
      /** Written for a case found started without a result: reported, not run again. */
      readonly interrupted?: true;
      readonly steps?: number;
      readonly toolCalls?: number;
    };

/** Each record name a batch log may hold, earlier versions' (`start`, `result`) included, and its name now. */
const RECORD_TYPES: Readonly<Record<string, BatchLogRecord['type']>> = {
  'case-start': 'case-start',
  'case-end': 'case-end',
  start: 'case-start',
  result: 'case-end',
};

/** A batch log record's type under today's name, or undefined when it is not one. */
export function batchRecordType(type: unknown): BatchLogRecord['type'] | undefined {
  return typeof type === 'string' && Object.hasOwn(RECORD_TYPES, type) ? RECORD_TYPES[type] : undefined;
}

const SAFE_BATCH_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

export interface BatchPaths {
  readonly dir: string;
  readonly manifest: string;
  readonly log: string;
  readonly owner: string;
}

export function batchPaths(home: string, batchId: string): BatchPaths {
  if (!SAFE_BATCH_ID.test(batchId))
    throw new WeftError(
      'BAD_INPUT',
      `Invalid batch id ${JSON.stringify(batchId)}: expected letters, digits, '.', '_' or '-'`,
      {
        location: { field: '--resume' },
      },
    );
  const dir = join(home, 'batches', batchId);
  return { dir, manifest: join(dir, 'batch.json'), log: join(dir, 'log.jsonl'), owner: join(dir, 'owner.json') };
}

/** `b-20261125-060830-3fa9c2`: sortable by time, unique enough for one home. */
export function newBatchId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `b-${stamp}-${Math.random().toString(16).slice(2, 8)}`;
}

export async function createBatchFolder(home: string, manifest: BatchManifest): Promise<BatchPaths> {
  const paths = batchPaths(home, manifest.batchId);
  await mkdir(join(home, 'batches'), { recursive: true });
  try {
    await mkdir(paths.dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new WeftError('BAD_INPUT', `batch ${manifest.batchId} already exists`, { location: { field: '--inputs' } });
    throw error;
  }
  // The folder was just made by this process (mkdir fails on an existing one): nothing can be planted in it.
  await writeFile(paths.manifest, `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
  return paths;
}

export async function readBatchManifest(home: string, batchId: string): Promise<BatchManifest> {
  const paths = batchPaths(home, batchId);
  let text: string;
  try {
    text = await readFile(paths.manifest, 'utf8');
  } catch {
    throw new WeftError('BAD_INPUT', `no batch ${batchId} in ${join(home, 'batches')}`, {
      location: { field: '--resume' },
    });
  }
  // A damaged or hand-edited manifest is the user's input: a located refusal, not a TypeError deep in the resume.
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    value = { damaged: (error as Error).message };
  }
  const parsed = batchManifestSchema.safeParse(value);
  if (!parsed.success || parsed.data.batchId !== batchId) {
    const issue = parsed.success ? undefined : parsed.error.issues[0];
    const why = issue ? `: ${issue.path.join('.') || 'the document'}: ${issue.message}` : `: it names another batch`;
    throw new WeftError(
      'BAD_INPUT',
      `${paths.manifest} is not a batch manifest of this version of Weft, or it is damaged${why}`,
      { location: { file: paths.manifest } },
    );
  }
  return parsed.data as BatchManifest;
}

/** The manifest's shape; the dashboard reads manifests with it too. */
export const batchManifestSchema = z.object({
  version: z.literal(1),
  batchId: z.string(),
  createdAt: z.string(),
  workflow: z.object({ path: z.string().min(1), sha256: z.string() }),
  tools: z.object({ path: z.string().min(1) }).optional(),
  inputs: z.object({ path: z.string().min(1), sha256: z.string(), cases: z.number().int().min(0) }),
  options: z.object({
    concurrency: z.number().int().min(1),
    maxVisits: z.number().int().min(1).optional(),
    out: z.string().min(1).optional(),
    workers: z.string().optional(),
  }),
});

/**
 * Takes the batch for this process; BAD_INPUT when another live process has it. Returns the release function
 * (removes the owner file).
 */
export async function acquireBatch(paths: BatchPaths, batchId: string): Promise<() => Promise<void>> {
  const me = currentOwner();
  for (let tries = 0; tries < 3; tries++) {
    try {
      await writeFile(paths.owner, `${JSON.stringify(me)}\n`, { flag: 'wx' });
      return async () => {
        await unlink(paths.owner).catch(() => {});
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let owner: { pid: number; host: string } | undefined;
    try {
      owner = JSON.parse(await readFile(paths.owner, 'utf8')) as { pid: number; host: string };
    } catch {
      owner = undefined; // torn or vanished: try again
    }
    if (owner && ownerState(owner) !== 'gone')
      throw new WeftError(
        'BAD_INPUT',
        `batch ${batchId} is being run by process ${owner.pid} on ${owner.host}; wait for it to end (or stop it)`,
        { location: { field: '--resume' } },
      );
    // Its owner is gone: take the batch over.
    await unlink(paths.owner).catch(() => {});
  }
  throw new WeftError('BAD_INPUT', `batch ${batchId}: could not take its owner file ${paths.owner}`, {
    location: { field: '--resume' },
  });
}

/**
 * An append-only JSONL file. `append` writes at once (with whatever is pending before it, in one write);
 * `appendLater` keeps the record until the next `append`, `flush` or `close`, or until enough are pending.
 */
export interface AppendLog {
  append(record: unknown): void;
  appendLater(record: unknown): void;
  flush(): void;
  close(): void;
}

/** Records kept by `appendLater` before they are written anyway. */
const MAX_PENDING = 64;

export function openAppendLog(path: string, { truncate = false }: { truncate?: boolean } = {}): AppendLog {
  const fd = openSync(
    path,
    (truncate ? constants.O_WRONLY | constants.O_TRUNC : constants.O_RDWR | constants.O_APPEND) |
      constants.O_CREAT |
      (constants.O_NOFOLLOW ?? 0),
    0o644,
  );
  let open = true;
  // A torn last line is ended here, so the first record appended starts a line of its own.
  let pending = truncate || endsLine(fd) ? '' : '\n';
  let count = 0;
  const write = (text: string) => {
    if (text !== '') writeSync(fd, text);
  };
  const flush = () => {
    const text = pending;
    pending = '';
    count = 0;
    write(text);
  };
  return {
    append(record) {
      const text = `${pending}${JSON.stringify(record)}\n`;
      pending = '';
      count = 0;
      write(text);
    },
    appendLater(record) {
      pending += `${JSON.stringify(record)}\n`;
      if (++count >= MAX_PENDING) flush();
    },
    flush,
    close() {
      if (!open) return;
      flush();
      closeSync(fd);
      open = false;
    },
  };
}

/** Whether an open file is empty or ends with a line break. */
function endsLine(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 10;
}

/** What the log says so far: the last result of each case and how many times each was started. */
export interface BatchLogState {
  /** Case key → final status; `interrupted` results are listed in `interrupted` too. */
  readonly results: Map<string, CaseStatus>;
  readonly interrupted: Set<string>;
  /** Case key → starts recorded. */
  readonly starts: Map<string, number>;
}

/** Reads the log record by record; `onResult` sees each case's result records in order. */
export async function readBatchLog(
  path: string,
  onResult?: (record: Extract<BatchLogRecord, { type: 'case-end' }>) => void,
): Promise<BatchLogState> {
  const state: BatchLogState = { results: new Map(), interrupted: new Set(), starts: new Map() };
  let stream: ReturnType<typeof createReadStream>;
  try {
    stream = createReadStream(path, { encoding: 'utf8' });
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return state;
    throw error;
  }
  for await (const line of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue; // a torn line (the process died mid-write)
    }
    if (typeof parsed !== 'object' || parsed === null) continue;
    const type = batchRecordType((parsed as { type?: unknown }).type);
    if (type === undefined) continue;
    const record = { ...parsed, type } as BatchLogRecord;
    const key = String(record.id);
    if (record.type === 'case-start') state.starts.set(key, (state.starts.get(key) ?? 0) + 1);
    else {
      state.results.set(key, record.status);
      if (record.interrupted) state.interrupted.add(key);
      else state.interrupted.delete(key);
      onResult?.(record);
    }
  }
  return state;
}
