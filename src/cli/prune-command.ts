/**
 * `weft prune --older-than <age> [--dry-run]`: removes runs created before now − age, with their events, plan
 * versions, the blobs no other run uses and their folders under `<home>/runs`. A live run is never removed: a run
 * still `running` goes only when its process (on this host) is gone, i.e. it was interrupted.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { isWeftError, WeftError } from '../errors.js';
import { effectiveStatus, ownerState, type LivenessProbe } from '../store/run-owner.js';
import { runPaths } from '../store/run-paths.js';
import type { DeletedRuns, RunDeletion, RunRecord } from '../store/run-store.js';
import { loadContext, openStore, requireValue } from './context.js';
import type { Output } from './output.js';

export interface PruneFlags {
  readonly home?: string;
  readonly olderThan?: string;
  readonly dryRun?: boolean;
  readonly json?: boolean;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** `30d`, `12h`, `90m`, `45s`, `2w` → milliseconds. A BAD_INPUT naming `flag` for anything else (or zero). */
export function parseAge(value: string, flag = '--older-than'): number {
  const match = /^(\d+)([smhdw])$/.exec(value.trim());
  const amount = match ? Number(match[1]) : Number.NaN;
  const ms = match ? amount * UNIT_MS[match[2] as keyof typeof UNIT_MS] : Number.NaN;
  if (!match || !Number.isSafeInteger(ms) || ms <= 0) {
    throw new WeftError(
      'BAD_INPUT',
      `${flag} expects a positive age like 30d, 12h or 90m (units s, m, h, d, w), got "${value}"`,
      { location: { field: flag } },
    );
  }
  return ms;
}

interface Kept {
  readonly runId: string;
  readonly status: string;
  readonly reason: string;
}

export async function pruneCommand(flags: PruneFlags, output: Output, options: { now?: () => Date; probe?: LivenessProbe } = {}): Promise<number> {
  const olderThan = requireValue(flags.olderThan, '--older-than');
  const ageMs = parseAge(olderThan);
  const cutoff = new Date((options.now?.() ?? new Date()).getTime() - ageMs);
  if (Number.isNaN(cutoff.getTime())) {
    throw new WeftError('BAD_INPUT', `--older-than ${olderThan} reaches before any date`, { location: { field: '--older-than' } });
  }
  const dryRun = flags.dryRun === true;
  const context = await loadContext(flags);
  const { home } = context;
  const store = await openStore(context);
  let runs: RunRecord[];
  let result: DeletedRuns;
  const kept: Kept[] = [];
  try {
    runs = (await store.listRuns()).filter((run) => Date.parse(run.createdAt) < cutoff.getTime());
    const deletions: RunDeletion[] = [];
    for (const run of runs) {
      if (run.status !== 'running') {
        deletions.push({ runId: run.runId });
        continue;
      }
      const state = ownerState(run.owner, options.probe);
      if (state === 'gone' && run.owner) deletions.push({ runId: run.runId, deadOwner: run.owner });
      else kept.push({ runId: run.runId, status: 'running', reason: keptReason(run, state) });
    }
    result = await store.deleteRuns(deletions, { dryRun });
  } finally {
    await store.close();
  }
  const byId = new Map(runs.map((run) => [run.runId, run]));
  // Runs that changed between the listing and the deletion (resumed, say) are kept by the store.
  for (const runId of result.skipped) {
    kept.push({ runId, status: byId.get(runId)?.status ?? 'unknown', reason: 'it changed while pruning (resumed, or already removed)' });
  }

  let directories = 0;
  let directoryBytes = 0;
  const failures: string[] = [];
  for (const runId of result.removed) {
    try {
      const removed = await removeRunDirectory(home, runId, dryRun);
      if (removed !== undefined) {
        directories += 1;
        directoryBytes += removed;
      }
    } catch (error) {
      failures.push(`${runId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const removed = result.removed.map((runId) => {
    const run = byId.get(runId) as RunRecord;
    return { runId, status: effectiveStatus(run, options.probe), createdAt: run.createdAt, task: run.task };
  });
  const bytesFreed = result.blobBytes + directoryBytes;
  for (const failure of failures) output.log(`weft: could not remove the run folder of ${failure}`);
  if (output.json) {
    output.document({
      dryRun,
      olderThan,
      cutoff: cutoff.toISOString(),
      removed,
      kept,
      events: result.events,
      planVersions: result.planVersions,
      blobs: result.blobs,
      blobBytes: result.blobBytes,
      directories,
      directoryBytes,
      bytesFreed,
      ...(failures.length > 0 ? { failures } : {}),
    });
    return failures.length > 0 ? 1 : 0;
  }
  const count = removed.length;
  output.text(
    `${dryRun ? 'would remove' : 'removed'} ${count} run${count === 1 ? '' : 's'} created before ${cutoff.toISOString()} ` +
      `(${result.events} events, ${result.planVersions} plan versions), ${result.blobs} blob${result.blobs === 1 ? '' : 's'} ` +
      `(${formatBytes(result.blobBytes)}), ${directories} run folder${directories === 1 ? '' : 's'} (${formatBytes(directoryBytes)}): ` +
      `${formatBytes(bytesFreed)} ${dryRun ? 'would be ' : ''}freed`,
  );
  for (const run of removed) output.text(`  ${run.runId}  ${run.status.padEnd(11)} ${run.createdAt}  ${run.task.split('\n')[0]!.slice(0, 60)}`);
  if (kept.length > 0) {
    output.text(`kept ${kept.length} running run${kept.length === 1 ? '' : 's'}:`);
    for (const run of kept) output.text(`  ${run.runId}  ${run.reason}`);
  }
  return failures.length > 0 ? 1 : 0;
}

function keptReason(run: RunRecord, state: ReturnType<typeof ownerState>): string {
  if (!run.owner) return 'running, and no owner process was recorded to check';
  if (state === 'alive') return `running (pid ${run.owner.pid} is alive)`;
  return `running on another host (${run.owner.host}, pid ${run.owner.pid})`;
}

/**
 * Removes `<home>/runs/<runId>` (or, with `dryRun`, only measures it) and returns its size in bytes; undefined
 * when there is no such folder. Never touches anything outside `<home>/runs`: a run id that is not a plain folder
 * name is refused, and a symbolic link in its place is removed as a link, never followed.
 */
async function removeRunDirectory(home: string, runId: string, dryRun: boolean): Promise<number | undefined> {
  const root = resolve(home, 'runs');
  let dir: string;
  try {
    dir = resolve(runPaths(home, runId).dir);
  } catch (error) {
    if (isWeftError(error) && error.code === 'BAD_INPUT') return undefined; // Not a folder name: no folder to remove.
    throw error;
  }
  const inside = relative(root, dir);
  if (inside === '' || inside.startsWith('..') || inside.includes(sep) || resolve(root, inside) !== dir) {
    throw new WeftError('INTERNAL', `refusing to remove ${dir}: it is not a folder directly under ${root}`);
  }
  const info = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!info) return undefined;
  const bytes = info.isDirectory() ? await sizeOf(dir) : 0;
  // rm does not follow symbolic links: a link is removed, not what it points to.
  if (!dryRun) await rm(dir, { recursive: true, force: true });
  return bytes;
}

async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await sizeOf(path);
    else if (entry.isFile()) total += (await lstat(path)).size;
  }
  return total;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
