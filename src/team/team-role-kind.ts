/**
 * The team engine as a role kind (run/role-kind.ts): roles of kind `team` run their subtask through the DyLAN
 * team their file describes (team-attempt.ts), their files are made absolute and checked before a run starts
 * (team-checks.ts), and importance scores go to the run's store when it keeps them (TeamScoreStore).
 */
import type { RoleKindEngine } from '../run/role-kind.js';
import { createTeamAttemptRunner } from './team-attempt.js';
import { checkTeamFiles, loadTeamOffers, withAbsoluteTeamFiles } from './team-checks.js';
import { isTeamScoreStore } from './team-score-store.js';

export const TEAM_ROLE_KIND = 'team';

export function createTeamRoleKind(): RoleKindEngine {
  return {
    kind: TEAM_ROLE_KIND,
    createRunner: (context) => {
      const scores = isTeamScoreStore(context.store) ? context.store : undefined;
      return createTeamAttemptRunner({
        teamBase: context.base,
        model: context.model,
        modelFor: context.modelFor,
        ...(scores ? { store: scores } : { noStoreReason: 'the run store keeps no team scores' }),
        ...(context.replay ? { replay: context.replay } : {}),
        emit: context.emit,
      });
    },
    preparePlan: (workflow, base) => withAbsoluteTeamFiles(workflow, base),
    checkPlan: (workflow, setup) => checkTeamFiles(workflow, setup.base, setup.models),
    checkOffers: async (offers, setup) => {
      await loadTeamOffers(
        offers.map((offer) => offer.file),
        setup.base,
        setup.models,
      );
    },
  };
}
