/** The update policies by name: a new one is a file in policies/ and a line here. */
import { WeftError } from '../errors.js';
import { afterCompletion } from './policies/after-completion.js';
import { concurrent } from './policies/concurrent.js';
import { none } from './policies/none.js';
import { onFailure } from './policies/on-failure.js';
import type { UpdatePolicy } from './update-policy.js';

const policies = new Map<string, UpdatePolicy>([
  [onFailure.name, onFailure],
  [concurrent.name, concurrent],
  [afterCompletion.name, afterCompletion],
  [none.name, none],
]);

/** Makes `policy` available by its name (e.g. to `execute({ strategy })` and `--strategy`). */
export function registerUpdatePolicy(policy: UpdatePolicy): void {
  policies.set(policy.name, policy);
}

/** The registered names, built-ins first. */
export function updatePolicyNames(): string[] {
  return [...policies.keys()];
}

export function updatePolicy(name: string): UpdatePolicy {
  const policy = policies.get(name);
  if (!policy) {
    throw new WeftError('BAD_INPUT', `Unknown update strategy "${name}" (known: ${updatePolicyNames().join(', ')})`, {
      location: { field: 'strategy' },
    });
  }
  return policy;
}
