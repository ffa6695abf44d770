/**
 * The hard limits of a workflow case (`--time-limit`, `--worker-memory`, or `caseTimeLimitMs` and `workerMemoryMb`
 * in the config file) and the worker threads cases run on (`--jobs`, `jobs`): what `runWorkflowIsolated` takes. A
 * flag wins over the config; neither: the defaults (jobs: one a core).
 */
import { type IsolatedRunOptions, MIN_WORKER_MEMORY_MB } from '../../internal.js';
import type { WeftConfig } from '../config.js';
import { integerFlag } from '../flags.js';

export interface IsolationFlags {
  readonly timeLimit?: string;
  readonly workerMemory?: string;
  readonly jobs?: string;
}

export type IsolationLimits = Pick<IsolatedRunOptions, 'timeLimitMs' | 'memoryMb' | 'jobs'>;

/** More worker threads than this is a typo, not a machine. */
const MAX_JOBS = 256;

export function isolationLimits(flags: IsolationFlags, config: WeftConfig): IsolationLimits {
  const timeLimitMs = integerFlag('time-limit', flags.timeLimit, { min: 1 }) ?? config.caseTimeLimitMs;
  const memoryMb =
    integerFlag('worker-memory', flags.workerMemory, { min: MIN_WORKER_MEMORY_MB }) ?? config.workerMemoryMb;
  const jobs = integerFlag('jobs', flags.jobs, { min: 1, max: MAX_JOBS }) ?? config.jobs;
  return {
    ...(timeLimitMs !== undefined ? { timeLimitMs } : {}),
    ...(memoryMb !== undefined ? { memoryMb } : {}),
    ...(jobs !== undefined ? { jobs } : {}),
  };
}
