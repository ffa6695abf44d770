/**
 * Which process runs a run, and whether it is still there. A run whose status is still `running` but whose owner
 * (on this host) has exited was interrupted: `weft runs` shows it so, `weft prune` may remove it and `weft resume`
 * may take it over. A process on another host cannot be checked, so its runs stay `running`; a run recorded
 * without an owner (older versions of Weft) is never judged interrupted this way.
 *
 * A pid that was reused by an unrelated process reads as alive: the mistake errs on the side of keeping a run.
 */
import { hostname } from 'node:os';
import type { RunOwner, RunRecord, StoredRunStatus } from './run-store.js';

/** This process, as an owner for `createRun` / `setOwner`. */
export function currentOwner(): RunOwner {
  return { pid: process.pid, host: hostname() };
}

/** True when a process with this pid exists (signal 0 checks without sending; EPERM means it exists). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type OwnerState = 'alive' | 'gone' | 'unknown';

export interface LivenessProbe {
  /** The host this process runs on. Default `os.hostname()`. */
  readonly host?: string;
  /** Default isProcessAlive. */
  readonly isAlive?: (pid: number) => boolean;
}

/** `gone` only for an owner on this host whose pid no longer exists; `unknown` without an owner or on another host. */
export function ownerState(owner: RunOwner | undefined, probe: LivenessProbe = {}): OwnerState {
  if (owner === undefined || owner.host !== (probe.host ?? hostname())) return 'unknown';
  return (probe.isAlive ?? isProcessAlive)(owner.pid) ? 'alive' : 'gone';
}

/** The status to show for a run: a `running` run whose owner is gone is `interrupted`. */
export function effectiveStatus(run: Pick<RunRecord, 'status' | 'owner'>, probe: LivenessProbe = {}): StoredRunStatus {
  return run.status === 'running' && ownerState(run.owner, probe) === 'gone' ? 'interrupted' : run.status;
}
