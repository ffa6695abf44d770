/**
 * The hard limits of a workflow case (`--time-limit`, `--worker-memory`, or `caseTimeLimitMs` and `workerMemoryMb`
 * in the config file): what `runWorkflowIsolated` takes. A flag wins over the config; neither: the defaults.
 */
import type { IsolatedRunOptions } from '../../internal.js';
import type { WeftConfig } from '../config.js';
import { integerFlag } from '../flags.js';

export interface IsolationFlags {
  readonly timeLimit?: string;
  readonly workerMemory?: string;
}

export type IsolationLimits = Pick<IsolatedRunOptions, 'timeLimitMs' | 'memoryMb'>;

export function isolationLimits(flags: IsolationFlags, config: WeftConfig): IsolationLimits {
  const timeLimitMs = integerFlag('time-limit', flags.timeLimit, { min: 1 }) ?? config.caseTimeLimitMs;
  const memoryMb = integerFlag('worker-memory', flags.workerMemory, { min: 16 }) ?? config.workerMemoryMb;
  return {
    ...(timeLimitMs !== undefined ? { timeLimitMs } : {}),
    ...(memoryMb !== undefined ? { memoryMb } : {}),
  };
}
