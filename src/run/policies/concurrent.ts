import type { UpdatePolicy } from '../update-policy.js';

/**
 * Reviews after every settled attempt while other work goes on. Routine reviews are bounded by the completions
 * that trigger them, so only repairs count against the limit.
 */
export const concurrent: UpdatePolicy = {
  name: 'concurrent',
  updates: true,
  reviewAfterAttempt: () => true,
  barrier: false,
  countsAgainstLimit: ({ repair }) => repair,
};
