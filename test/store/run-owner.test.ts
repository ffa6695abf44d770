import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { currentOwner, effectiveStatus, isProcessAlive, ownerState } from '../../src/store/run-owner.js';

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  expect(child.pid).toBeGreaterThan(0);
  return child.pid as number;
}

describe('run owners', () => {
  it('describes this process', () => {
    expect(currentOwner()).toEqual({ pid: process.pid, host: hostname() });
  });

  it('sees this process alive, an exited one gone, and nonsense pids as not alive', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(deadPid())).toBe(false);
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(isProcessAlive(pid)).toBe(false);
  });

  it('counts a process it may not signal (EPERM) as alive', () => {
    // pid 1 exists everywhere; whether we may signal it depends on the user, and either way it is alive.
    expect(isProcessAlive(1)).toBe(true);
  });

  it('judges only owners on this host, and a missing owner is unknown', () => {
    const probe = { host: 'here', isAlive: (pid: number) => pid === 1 };
    expect(ownerState({ pid: 1, host: 'here' }, probe)).toBe('alive');
    expect(ownerState({ pid: 2, host: 'here' }, probe)).toBe('gone');
    expect(ownerState({ pid: 2, host: 'elsewhere' }, probe)).toBe('unknown');
    expect(ownerState(undefined, probe)).toBe('unknown');
  });

  it('shows a running run whose owner is gone as interrupted, and leaves other statuses alone', () => {
    const gone = { pid: deadPid(), host: hostname() };
    expect(effectiveStatus({ status: 'running', owner: gone })).toBe('interrupted');
    expect(effectiveStatus({ status: 'running', owner: currentOwner() })).toBe('running');
    expect(effectiveStatus({ status: 'running' })).toBe('running');
    expect(effectiveStatus({ status: 'completed', owner: gone })).toBe('completed');
  });
});
