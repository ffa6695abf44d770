/** `weft prune --older-than <age> [--dry-run]`. */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { parseAge } from '../../src/cli/ops/prune-command.js';
import { batchStoreOf } from '../../src/store/batch-records.js';
import { openRunStore } from '../../src/store/open-store.js';
import { databasePath } from '../../src/store/run-paths.js';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.js';
import { cli, tempHome } from './cli-harness.js';
import { DAY_MS, deadPid, seedRuns } from './seed-home.js';

interface PruneDocument {
  dryRun: boolean;
  olderThan: string;
  cutoff: string;
  removed: { runId: string; status: string; createdAt: string; task: string }[];
  kept: { runId: string; status: string; reason: string }[];
  events: number;
  planVersions: number;
  blobs: number;
  blobBytes: number;
  directories: number;
  directoryBytes: number;
  bytesFreed: number;
  batches: { batchId: string; createdAt: string; records: number }[];
  keptBatches: { batchId: string; reason: string }[];
}

async function prune(home: string, ...args: string[]): Promise<PruneDocument> {
  const result = await cli(['prune', ...args, '--home', home, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as PruneDocument;
}

async function runIds(home: string): Promise<string[]> {
  const store = await openRunStore({ home });
  try {
    return (await store.listRuns()).map((run) => run.runId);
  } finally {
    await store.close();
  }
}

/** A large output, over the 4 KiB blob threshold. */
const bigOutput = `<html>${'<p>generated game</p>\n'.repeat(2000)}</html>`;

describe('parseAge', () => {
  it.each([
    ['45s', 45_000],
    ['90m', 90 * 60_000],
    ['12h', 12 * 3_600_000],
    ['30d', 30 * DAY_MS],
    ['2w', 14 * DAY_MS],
    [' 7d ', 7 * DAY_MS],
  ])('reads %s', (text, ms) => {
    expect(parseAge(text)).toBe(ms);
  });

  it.each(['', '30', 'd', '-1d', '1.5d', '0d', '30x', '1e3d', '30 d', '99999999999999999999d'])(
    'refuses %j naming the flag',
    (text) => {
      let error: unknown;
      try {
        parseAge(text);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(WeftError);
      expect((error as WeftError).code).toBe('BAD_INPUT');
      expect((error as WeftError).message).toContain('--older-than');
      expect((error as WeftError).location?.field).toBe('--older-than');
    },
  );
});

describe('weft prune', () => {
  it('is bad input (exit 2, naming the flag) for a bad or missing age', async () => {
    const home = tempHome();
    for (const args of [['--older-than', '30 days'], ['--older-than', '0h'], []]) {
      const result = await cli(['prune', ...args, '--home', home, '--json']);
      expect(result.code).toBe(2);
      expect(JSON.parse(result.stdout)).toMatchObject({
        error: { code: 'BAD_INPUT', location: { field: '--older-than' } },
      });
      expect(result.stderr).toContain('--older-than');
    }
    expect(existsSync(join(home, 'weft.db'))).toBe(false);
  });

  it('removes finished runs older than the age, with their records and folders, and keeps newer ones', async () => {
    const home = tempHome();
    await seedRuns(home, [
      {
        runId: 'old-done',
        status: 'completed',
        ageMs: 40 * DAY_MS,
        files: { 'report.md': 'report', 'artifacts/index.html': 'x'.repeat(1000) },
      },
      { runId: 'old-failed', status: 'failed', ageMs: 31 * DAY_MS, files: { 'plan-v1.json': '{}' } },
      { runId: 'new-done', status: 'completed', ageMs: 29 * DAY_MS, files: { 'report.md': 'keep me' } },
    ]);
    const document = await prune(home, '--older-than', '30d');
    expect(document).toMatchObject({
      dryRun: false,
      olderThan: '30d',
      events: 2,
      planVersions: 2,
      blobs: 0,
      directories: 2,
      directoryBytes: 'report'.length + 1000 + 2,
    });
    expect(document.bytesFreed).toBe(document.directoryBytes);
    expect(document.removed.map((run) => [run.runId, run.status])).toEqual([
      ['old-done', 'completed'],
      ['old-failed', 'failed'],
    ]);
    expect(Date.parse(document.cutoff)).toBeLessThan(Date.now() - 30 * DAY_MS + 60_000);
    expect(await runIds(home)).toEqual(['new-done']);
    expect(existsSync(join(home, 'runs', 'old-done'))).toBe(false);
    expect(existsSync(join(home, 'runs', 'old-failed'))).toBe(false);
    expect(readFileSync(join(home, 'runs', 'new-done', 'report.md'), 'utf8')).toBe('keep me');
  });

  it('with --dry-run lists what it would remove and removes nothing', async () => {
    const home = tempHome();
    await seedRuns(home, [
      { runId: 'old', status: 'cancelled', ageMs: 3 * DAY_MS, output: bigOutput, files: { 'report.md': 'r' } },
      { runId: 'new', status: 'completed', ageMs: 60_000 },
    ]);
    const dry = await prune(home, '--older-than', '48h', '--dry-run');
    expect(dry).toMatchObject({
      dryRun: true,
      removed: [{ runId: 'old', status: 'cancelled' }],
      blobs: 1,
      blobBytes: bigOutput.length,
      directories: 1,
      directoryBytes: 1,
    });
    expect(await runIds(home)).toEqual(['old', 'new']);
    expect(existsSync(join(home, 'runs', 'old', 'report.md'))).toBe(true);

    const text = await cli(['prune', '--older-than', '48h', '--dry-run', '--home', home]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^would remove 1 run created before .* \(2 events, 1 plan versions\), 1 blob \(43\.0 KiB\), 1 run folder \(1 B\): 43\.0 KiB would be freed$/m,
    );
    expect(text.stdout).toMatch(/^ {2}old {2}cancelled /m);

    const real = await prune(home, '--older-than', '48h');
    expect({ ...real, dryRun: true, cutoff: dry.cutoff }).toEqual(dry);
    expect(await runIds(home)).toEqual(['new']);
  });

  it('never removes a live run, removes an interrupted one, and says why it kept a run', async () => {
    const home = tempHome();
    const here = hostname();
    const dead = { pid: deadPid(), host: here };
    await seedRuns(home, [
      {
        runId: 'live',
        status: 'running',
        ageMs: 10 * DAY_MS,
        owner: { pid: process.pid, host: here },
        files: { 'report.md': 'x' },
      },
      { runId: 'crashed', status: 'running', ageMs: 10 * DAY_MS, owner: dead, files: { 'report.md': 'x' } },
      { runId: 'marked', status: 'interrupted', ageMs: 10 * DAY_MS },
      { runId: 'remote', status: 'running', ageMs: 10 * DAY_MS, owner: { pid: dead.pid, host: `not-${here}` } },
      { runId: 'unowned', status: 'running', ageMs: 10 * DAY_MS },
    ]);
    const document = await prune(home, '--older-than', '1d');
    expect(document.removed.map((run) => [run.runId, run.status])).toEqual([
      ['crashed', 'interrupted'],
      ['marked', 'interrupted'],
    ]);
    expect(document.kept.map((run) => run.runId)).toEqual(['live', 'remote', 'unowned']);
    expect(document.kept[0]?.reason).toContain(`pid ${process.pid} is alive`);
    expect(document.kept[1]?.reason).toContain('another host');
    expect(document.kept[2]?.reason).toContain('no owner');
    expect(await runIds(home)).toEqual(['live', 'remote', 'unowned']);
    expect(existsSync(join(home, 'runs', 'live', 'report.md'))).toBe(true);
    expect(existsSync(join(home, 'runs', 'crashed'))).toBe(false);

    const text = await cli(['prune', '--older-than', '1d', '--home', home]);
    expect(text.stdout).toContain('removed 0 runs');
    expect(text.stdout).toContain('kept 3 running runs:');
  });

  it('keeps a large output another run still uses and collects it with the last one', async () => {
    const home = tempHome();
    await seedRuns(home, [
      { runId: 'first', status: 'completed', ageMs: 20 * DAY_MS, output: bigOutput },
      { runId: 'second', status: 'completed', ageMs: 2 * DAY_MS, output: bigOutput },
    ]);
    const once = await prune(home, '--older-than', '7d');
    expect(once).toMatchObject({ removed: [{ runId: 'first' }], blobs: 0, blobBytes: 0 });
    const shown = await cli(['show', 'second', '--home', home, '--json']);
    expect(shown.code).toBe(0);
    const store = await openRunStore({ home });
    const output = (await store.events('second'))
      .map((stored) => (stored.event as { output?: string }).output)
      .find(Boolean);
    expect(output).toBe(bigOutput);
    expect(await store.stats()).toMatchObject({ runs: 1, blobs: 1, blobBytes: bigOutput.length });
    await store.close();

    const twice = await prune(home, '--older-than', '1d');
    expect(twice).toMatchObject({
      removed: [{ runId: 'second' }],
      blobs: 1,
      blobBytes: bigOutput.length,
      bytesFreed: bigOutput.length,
    });
    const after = await openRunStore({ home });
    expect(await after.stats()).toEqual({ runs: 0, events: 0, planVersions: 0, blobs: 0, blobBytes: 0 });
    await after.close();
  });

  it('removes a symbolic link in place of a run folder without following it', async () => {
    const home = tempHome();
    const outside = join(tempHome(), 'precious');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.txt'), 'do not delete');
    await seedRuns(home, [{ runId: 'linked', status: 'completed', ageMs: 5 * DAY_MS }]);
    mkdirSync(join(home, 'runs'), { recursive: true });
    symlinkSync(outside, join(home, 'runs', 'linked'));
    const document = await prune(home, '--older-than', '1d');
    expect(document).toMatchObject({ removed: [{ runId: 'linked' }], directories: 1, directoryBytes: 0 });
    expect(existsSync(join(home, 'runs', 'linked'))).toBe(false);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('do not delete');
  });

  it('removes nothing from an empty home', async () => {
    const home = tempHome();
    const document = await prune(home, '--older-than', '90m');
    expect(document).toMatchObject({ removed: [], kept: [], events: 0, blobs: 0, directories: 0, bytesFreed: 0 });
  });
});

describe('weft prune and exec batches', () => {
  it('removes batches created before the cutoff with their logs, keeps one a live process owns, and --dry-run removes none', async () => {
    const home = tempHome();
    const old = new Date(Date.now() - 3 * DAY_MS);
    const seeded = openSqliteRunStore(databasePath(home), { now: () => old });
    try {
      for (const batchId of ['b-old', 'b-owned']) {
        await seeded.createBatch({ batchId, manifest: { version: 1 } });
        await seeded.appendBatchRecords(batchId, [
          { type: 'case-start', id: 1, attempt: 1 },
          { type: 'case-end', id: 1, status: 'passed', output: 2 },
        ]);
      }
      // This test's own process owns one: it is alive, so that batch stays.
      expect(await seeded.takeOverBatch('b-owned', { pid: process.pid, host: hostname() }, undefined)).toBe(true);
    } finally {
      await seeded.close();
    }
    const fresh = batchStoreOf(await openRunStore({ home }));
    await fresh.createBatch({ batchId: 'b-new', manifest: { version: 1 } });
    await fresh.close();

    const dry = await prune(home, '--older-than', '1d', '--dry-run');
    expect(dry).toMatchObject({
      batches: [{ batchId: 'b-old', records: 2 }],
      keptBatches: [{ batchId: 'b-owned', reason: expect.stringContaining(`process ${process.pid}`) }],
    });
    const done = await prune(home, '--older-than', '1d');
    expect(done).toMatchObject({ batches: [{ batchId: 'b-old', records: 2 }] });
    const store = batchStoreOf(await openRunStore({ home }));
    try {
      expect((await store.listBatches()).map((batch) => batch.batchId).sort()).toEqual(['b-new', 'b-owned']);
      await expect(store.batchRecords('b-old')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await store.close();
    }
    const text = await cli(['prune', '--older-than', '1d', '--home', home]);
    expect(text.stdout).toContain('kept batch b-owned: process');
  });
});
