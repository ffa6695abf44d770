/** `pruneRuns`, the library function behind `weft prune`: records, blobs and run folders, against a real home. */
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunStore, pruneRuns } from '../../src/index.js';
import { DAY_MS, deadPid, seedRuns } from '../cli/seed-home.js';

function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'weft-prune-runs-'));
}

async function withStore<T>(
  home: string,
  use: (store: Awaited<ReturnType<typeof openRunStore>>) => Promise<T>,
): Promise<T> {
  const store = await openRunStore({ home });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

describe('pruneRuns', () => {
  it('removes old finished and interrupted runs with their folders and blobs, keeps live and new ones', async () => {
    const home = tempHome();
    const big = 'x'.repeat(10_000);
    await seedRuns(home, [
      { runId: 'old', status: 'completed', ageMs: 40 * DAY_MS, output: big, files: { 'output.md': 'hello' } },
      { runId: 'stale', status: 'running', ageMs: 40 * DAY_MS, owner: { pid: deadPid(), host: hostname() } },
      { runId: 'live', status: 'running', ageMs: 40 * DAY_MS, owner: { pid: process.pid, host: hostname() } },
      { runId: 'fresh', status: 'completed', ageMs: DAY_MS },
    ]);
    const before = new Date(Date.now() - 30 * DAY_MS);

    const dry = await withStore(home, (store) => pruneRuns(store, { home, before, dryRun: true }));
    expect(dry.removed.map((run) => run.runId)).toEqual(expect.arrayContaining(['old', 'stale']));
    expect(dry.removed).toHaveLength(2);
    expect(existsSync(join(home, 'runs', 'old'))).toBe(true);
    expect(await withStore(home, async (store) => (await store.listRuns()).length)).toBe(4);

    const result = await withStore(home, (store) => pruneRuns(store, { home, before }));
    expect(result.dryRun).toBe(false);
    expect(Object.fromEntries(result.removed.map((run) => [run.runId, run.status]))).toEqual({
      old: 'completed',
      stale: 'interrupted',
    });
    expect(result.kept).toEqual([
      { runId: 'live', status: 'running', reason: `running (pid ${process.pid} is alive)` },
    ]);
    expect(result.blobs).toBe(1);
    expect(result.blobBytes).toBeGreaterThan(0);
    expect(result.directories).toBe(1);
    expect(result.directoryBytes).toBe(5);
    expect(result.bytesFreed).toBe(result.blobBytes + 5);
    expect(result.failures).toEqual([]);
    // The dry run counted exactly what the real one removed.
    expect({ ...dry, dryRun: false }).toEqual(result);
    expect(existsSync(join(home, 'runs', 'old'))).toBe(false);
    const left = await withStore(home, async (store) => (await store.listRuns()).map((run) => run.runId).sort());
    expect(left).toEqual(['fresh', 'live']);
  });

  it('removes a symbolic link in place of a run folder, never what it points to', async () => {
    const home = tempHome();
    const outside = join(tempHome(), 'keep.txt');
    writeFileSync(outside, 'precious');
    await seedRuns(home, [{ runId: 'linked', status: 'failed', ageMs: 2 * DAY_MS, files: {} }]);
    mkdirSync(join(home, 'runs'), { recursive: true });
    symlinkSync(join(outside, '..'), join(home, 'runs', 'linked'));
    const result = await withStore(home, (store) => pruneRuns(store, { home, before: new Date() }));
    expect(result.removed.map((run) => run.runId)).toEqual(['linked']);
    expect(result.directories).toBe(1);
    expect(existsSync(join(home, 'runs', 'linked'))).toBe(false);
    expect(existsSync(outside)).toBe(true);
  });
});
