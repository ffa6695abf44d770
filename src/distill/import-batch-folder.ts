/**
 * Batches started by older versions of Weft live in folders, `<home>/batches/<batchId>/` (`batch.json`,
 * `log.jsonl`, `owner.json`). The first `weft exec --resume ID` that finds no batch ID in the store but such a
 * folder imports it: the manifest and every readable log record, in order, into the store, then the resume goes on
 * from there as for any stored batch. The folder is left as it was (nothing reads it any more; remove it at will).
 *
 * Decisions:
 * - The store's batch is marked importing until the last record is in, and owned by the importing process: an
 *   import cut off half-way is seen as such and done again from the start by the next resume, never taken for a
 *   batch with fewer starts (which would run cases twice). A live importer elsewhere is refused, as a live owner is.
 * - A folder whose owner file names a live process (on this host, or any on another host) is not imported: that
 *   older Weft may still be writing its log.
 * - Torn or hand-damaged log lines are skipped, as the older reader skipped them.
 */
import { createReadStream } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { WeftError } from '../errors.js';
import { BATCH_CASE_STATUSES, type BatchRecord, type BatchStore } from '../store/batch-records.js';
import { currentOwner, ownerState } from '../store/run-owner.js';
import { type BatchManifest, parseBatchManifest } from './batch-store.js';

/** Records per append while importing. */
const IMPORT_CHUNK = 1000;

/** The folder an older version kept batch `batchId` in. */
export function batchFolderOf(home: string, batchId: string): string {
  return join(home, 'batches', batchId);
}

/**
 * Imports the batch's folder into the store and returns its manifest; undefined when there is no such folder.
 * Throws BAD_INPUT naming the folder when it cannot be imported.
 */
export async function importBatchFolder(
  store: BatchStore,
  home: string,
  batchId: string,
): Promise<BatchManifest | undefined> {
  const dir = batchFolderOf(home, batchId);
  const info = await lstat(dir).catch(() => undefined);
  if (!info) return undefined;
  const refuse = (why: string): never => {
    throw new WeftError('BAD_INPUT', `batch ${batchId} of an older Weft in ${dir} cannot be imported: ${why}`, {
      location: { file: dir, field: '--resume' },
    });
  };
  if (!info.isDirectory()) refuse('it is not a folder (a symbolic link is not followed)');
  // A live older process may still be writing the folder: asked before anything in it is read.
  const owner = await readFile(join(dir, 'owner.json'), 'utf8')
    .then((text) => JSON.parse(text) as { pid?: unknown; host?: unknown })
    .catch(() => undefined);
  if (owner && typeof owner.pid === 'number' && typeof owner.host === 'string') {
    const state = ownerState({ pid: owner.pid, host: owner.host });
    if (state !== 'gone')
      refuse(
        `process ${owner.pid} on ${owner.host} may still be running it (its owner.json); wait for it to end, or remove owner.json if it has`,
      );
  }
  const manifestFile = join(dir, 'batch.json');
  let value: unknown;
  try {
    value = JSON.parse(await readFile(manifestFile, 'utf8'));
  } catch (error) {
    refuse(`its batch.json cannot be read: ${(error as Error).message}`);
  }
  const manifest = parseBatchManifest(batchId, value, manifestFile);

  const me = currentOwner();
  const existing = await store.getBatch(batchId);
  if (existing) {
    if (!existing.importing) return parseBatchManifest(batchId, existing.manifest, 'the store');
    // An import cut off half-way: done again, unless its importer is still at it.
    if (existing.owner && ownerState(existing.owner) !== 'gone')
      refuse(`process ${existing.owner.pid} on ${existing.owner.host} is importing it now`);
    await store.deleteBatch(batchId);
  }
  await store.createBatch({ batchId, manifest: { ...manifest }, importing: true });
  if (!(await store.takeOverBatch(batchId, me, undefined))) refuse('another process is importing it now');
  let chunk: BatchRecord[] = [];
  const stream = createReadStream(join(dir, 'log.jsonl'), { encoding: 'utf8' });
  const opened = await new Promise<boolean>((resolve, reject) => {
    stream.once('open', () => resolve(true));
    stream.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? resolve(false) : reject(error)));
  });
  if (opened) {
    for await (const line of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
      const record = legacyRecord(line);
      if (!record) continue;
      chunk.push(record);
      if (chunk.length >= IMPORT_CHUNK) {
        await store.appendBatchRecords(batchId, chunk);
        chunk = [];
      }
    }
  }
  if (chunk.length > 0) await store.appendBatchRecords(batchId, chunk);
  await store.finishBatchImport(batchId);
  await store.releaseBatch(batchId, me);
  return manifest;
}

/** A log line as a record, or undefined for a torn or damaged one. */
function legacyRecord(line: string): BatchRecord | undefined {
  if (line.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const id = record['id'];
  if (!(typeof id === 'string' && id !== '') && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
  const type = LEGACY_TYPES[String(record['type'])];
  if (type === 'case-start') {
    const attempt = record['attempt'];
    return Number.isSafeInteger(attempt) && (attempt as number) >= 1 ? ({ ...record, type } as BatchRecord) : undefined;
  }
  if (type === 'case-end')
    return BATCH_CASE_STATUSES.includes(record['status'] as never) ? ({ ...record, type } as BatchRecord) : undefined;
  return undefined;
}

/** Record names a folder's log may hold (the oldest versions wrote `start` and `result`) under today's names. */
const LEGACY_TYPES: Readonly<Record<string, BatchRecord['type'] | undefined>> = Object.assign(Object.create(null), {
  'case-start': 'case-start',
  'case-end': 'case-end',
  start: 'case-start',
  result: 'case-end',
});
