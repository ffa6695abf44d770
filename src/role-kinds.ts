/**
 * The role kinds a run knows besides `llm`, assembled at the top (library entry and CLI) so that run/ names none
 * of them: a new kind is its engine's file plus one line here.
 */
import type { RoleKindEngine } from './run/role-kind.js';
import { createTeamRoleKind } from './team/team-role-kind.js';

export function defaultRoleKinds(): RoleKindEngine[] {
  return [createTeamRoleKind()];
}
