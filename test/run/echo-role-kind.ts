/**
 * A toy role kind for tests: a role of kind `echo` answers its subtask with the subtask's objective, accepted
 * without a model call. It shows what a new kind takes: this file, and one entry in the list a run is given.
 */
import type { RoleKindEngine } from '../../src/run/role-kind.js';

export function createEchoRoleKind(): RoleKindEngine & { readonly runs: string[] } {
  const runs: string[] = [];
  return {
    kind: 'echo',
    runs,
    createRunner: () => async (attempt) => {
      runs.push(`${attempt.id}#${attempt.attempt}`);
      return { kind: 'verified', output: attempt.objective, masked: false, verdict: 'accept', reason: 'echoed' };
    },
  };
}
