import type { UpdatePolicy } from '../update-policy.js';

/** Reviews after every settled attempt behind a barrier: nothing new starts until the revised plan is in. */
export const afterCompletion: UpdatePolicy = {
  name: 'after-completion',
  updates: true,
  reviewAfterAttempt: () => true,
  barrier: true,
  countsAgainstLimit: ({ repair }) => repair,
};
