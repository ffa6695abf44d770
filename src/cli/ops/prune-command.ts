/**
 * `weft prune --older-than <age> [--dry-run]`: removes runs created before now − age, with their events, plan
 * versions, the blobs no other run uses and their folders under `<home>/runs`, and `weft exec` batches created
 * before it with their logs (the library's `pruneRuns`; this
 * file turns flags into its options and prints its result).
 */
import { pruneRuns, WeftError, type LivenessProbe, type PruneRunsResult } from '../../internal.js';
import { loadContext, openStore, requireValue } from '../context.js';
import type { Output } from '../output.js';

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

export async function pruneCommand(
  flags: PruneFlags,
  output: Output,
  options: { now?: () => Date; probe?: LivenessProbe } = {},
): Promise<number> {
  const olderThan = requireValue(flags.olderThan, '--older-than');
  const ageMs = parseAge(olderThan);
  const cutoff = new Date((options.now?.() ?? new Date()).getTime() - ageMs);
  if (Number.isNaN(cutoff.getTime())) {
    throw new WeftError('BAD_INPUT', `--older-than ${olderThan} reaches before any date`, {
      location: { field: '--older-than' },
    });
  }
  const dryRun = flags.dryRun === true;
  const context = await loadContext(flags);
  const store = await openStore(context);
  let result: PruneRunsResult;
  try {
    result = await pruneRuns(store, {
      home: context.home,
      before: cutoff,
      dryRun,
      ...(options.probe ? { probe: options.probe } : {}),
    });
  } finally {
    await store.close();
  }
  const { removed, kept, directories, directoryBytes, bytesFreed } = result;
  const failures = result.failures.map((failure) => `${failure.runId}: ${failure.message}`);
  for (const failure of failures) output.log(`weft: could not remove the run folder of ${failure}`);
  if (output.json) {
    // The library's result as it is, with the flag it answered and the failures as one line each.
    const { failures: _structured, ...counts } = result;
    output.document({
      olderThan,
      cutoff: cutoff.toISOString(),
      ...counts,
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
  for (const run of removed)
    output.text(`  ${run.runId}  ${run.status.padEnd(11)} ${run.createdAt}  ${run.task.split('\n')[0]!.slice(0, 60)}`);
  if (kept.length > 0) {
    output.text(`kept ${kept.length} running run${kept.length === 1 ? '' : 's'}:`);
    for (const run of kept) output.text(`  ${run.runId}  ${run.reason}`);
  }
  const batches = result.batches;
  if (batches.length > 0 || result.keptBatches.length > 0) {
    const records = batches.reduce((sum, batch) => sum + batch.records, 0);
    output.text(
      `${dryRun ? 'would remove' : 'removed'} ${batches.length} batch${batches.length === 1 ? '' : 'es'} (${records} records)`,
    );
    for (const batch of batches) output.text(`  ${batch.batchId}  ${batch.createdAt}  ${batch.records} records`);
    for (const batch of result.keptBatches) output.text(`kept batch ${batch.batchId}: ${batch.reason}`);
  }
  return failures.length > 0 ? 1 : 0;
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
