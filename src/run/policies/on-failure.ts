import type { UpdatePolicy } from '../update-policy.js';

/** The default: the inspector is asked only to repair failures; work goes on while it thinks. */
export const onFailure: UpdatePolicy = {
  name: 'on-failure',
  updates: true,
  reviewAfterAttempt: () => false,
  barrier: false,
  countsAgainstLimit: ({ repair }) => repair,
};
