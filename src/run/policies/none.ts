import type { UpdatePolicy } from '../update-policy.js';

/** No plan updates at all: the baseline of the fault-injection experiment. */
export const none: UpdatePolicy = {
  name: 'none',
  updates: false,
  reviewAfterAttempt: () => false,
  barrier: false,
  countsAgainstLimit: () => false,
};
