/** The pure half of pruning: which runs created before the cutoff go, and why a live one stays. */
import { describe, expect, it } from 'vitest';
import { selectRunsToPrune } from '../../src/store/select-runs-to-prune.js';
import type { RunRecord } from '../../src/store/run-store.js';

const HOST = 'here';
const CUTOFF = new Date('2026-01-10T00:00:00.000Z');

function run(runId: string, createdAt: string, status: RunRecord['status'], owner?: RunRecord['owner']): RunRecord {
  return {
    runId,
    task: `task of ${runId}`,
    model: 'sim',
    options: {},
    status,
    createdAt,
    updatedAt: createdAt,
    ...(owner ? { owner } : {}),
  } as RunRecord;
}

describe('selectRunsToPrune', () => {
  const probe = { host: HOST, isAlive: (pid: number) => pid === 1 };

  it('deletes finished runs created before the cutoff and ignores newer or exactly-at-cutoff ones', () => {
    const runs = [
      run('old-done', '2026-01-01T00:00:00.000Z', 'completed'),
      run('old-failed', '2026-01-09T23:59:59.999Z', 'failed'),
      run('at-cutoff', CUTOFF.toISOString(), 'completed'),
      run('new', '2026-01-11T00:00:00.000Z', 'cancelled'),
    ];
    expect(selectRunsToPrune(runs, CUTOFF, probe)).toEqual({
      deletions: [{ runId: 'old-done' }, { runId: 'old-failed' }],
      kept: [],
    });
  });

  it('deletes a running run only when its owner on this host is gone, naming that owner for the store', () => {
    const gone = { pid: 2, host: HOST };
    const runs = [
      run('interrupted', '2026-01-01T00:00:00.000Z', 'running', gone),
      run('alive', '2026-01-01T00:00:00.000Z', 'running', { pid: 1, host: HOST }),
      run('elsewhere', '2026-01-01T00:00:00.000Z', 'running', { pid: 2, host: 'other' }),
      run('ownerless', '2026-01-01T00:00:00.000Z', 'running'),
    ];
    const { deletions, kept } = selectRunsToPrune(runs, CUTOFF, probe);
    expect(deletions).toEqual([{ runId: 'interrupted', deadOwner: gone }]);
    expect(kept).toEqual([
      { runId: 'alive', status: 'running', reason: 'running (pid 1 is alive)' },
      { runId: 'elsewhere', status: 'running', reason: 'running on another host (other, pid 2)' },
      { runId: 'ownerless', status: 'running', reason: 'running, and no owner process was recorded to check' },
    ]);
  });
});
