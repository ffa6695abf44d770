/**
 * What is checked about team files before any call is made: a plan's team roles (`weft run --plan`, and again
 * on `weft resume`, since files can move in between) and the teams offered to the planner (`--team`). A team
 * that cannot work is the user's input error, exit 2, not a subtask that fails three times.
 */
import { isAbsolute, resolve } from 'node:path';
import { WeftError, isWeftError } from '../errors.js';
import type { Role, Workflow } from '../graph/workflow.js';
import { checkTeamOffers, type TeamOffer } from '../plan/team-offer.js';
import { loadTeamFile } from './parse-team-file.js';
import type { TeamSpec } from './team.js';
import { loadRoleTeam, teamFilePath } from './team-attempt.js';
import { redactModelSpec } from '../llm/model-spec.js';
import type { ModelCheck } from '../run/role-kind.js';

/** How the models a team file names are tried (the run's own model needs no check). */
export type TeamModelCheck = ModelCheck;

/** Every team role of a plan names a usable team file whose models can be made. */
export async function checkTeamFiles(
  workflow: Pick<Workflow, 'roles'>,
  teamBase: string | undefined,
  models?: TeamModelCheck,
): Promise<void> {
  for (const role of workflow.roles) {
    if (role.kind !== 'team') continue;
    const { file, spec } = await loadRoleTeam(teamBase, role);
    if (models) await checkTeamModels(spec, file, models, `Role "${role.name}" names the team file ${file}, `);
  }
}

/** The plan with its team files made absolute, so that its saved versions run from anywhere. */
export function withAbsoluteTeamFiles<W extends Pick<Workflow, 'roles'>>(workflow: W, teamBase: string | undefined): W {
  const roles: Role[] = workflow.roles.map((role) =>
    role.kind === 'team' && role.team !== undefined ? { ...role, team: teamFilePath(teamBase, role) } : role,
  );
  return { ...workflow, roles };
}

/**
 * Reads team files to offer to the planner: each becomes a TeamOffer named after its team, with its file's
 * `description` (or a list of its agents) for the planner to read. A file given twice is offered once. Relative
 * files resolve against `base` (the CLI's working directory; a resumed run's recorded folder).
 */
export async function loadTeamOffers(
  files: readonly string[],
  base: string | undefined,
  models?: TeamModelCheck,
): Promise<TeamOffer[]> {
  const offers: TeamOffer[] = [];
  for (const file of new Set(files.map((given) => offerPath(base, given)))) {
    const spec = await loadTeamFile(file);
    if (models) await checkTeamModels(spec, file, models, `The team file ${file} `);
    const members = spec.agents.map((agent) => agent.name).join(', ');
    offers.push({
      name: spec.name,
      file,
      description:
        spec.description ?? `a team of ${spec.agents.length} agents (${members}) that debate until they agree`,
    });
  }
  checkTeamOffers(offers);
  return offers;
}

function offerPath(base: string | undefined, file: string): string {
  if (isAbsolute(file)) return file;
  if (base === undefined)
    throw new WeftError(
      'BAD_INPUT',
      `The team file ${JSON.stringify(file)} is relative, and there is no folder to resolve it against`,
      { location: { file } },
    );
  return resolve(base, file);
}

/** Every model a team file names (its own and its llm agents') can be made. */
async function checkTeamModels(spec: TeamSpec, file: string, models: TeamModelCheck, subject: string): Promise<void> {
  const named: { spec: string; field: string }[] = [];
  if (spec.model !== undefined) named.push({ spec: spec.model, field: 'model' });
  spec.agents.forEach((agent, index) => {
    if (agent.kind === 'llm' && agent.model !== undefined)
      named.push({ spec: agent.model, field: `agents[${index}].model` });
  });
  const seen = new Set<string>();
  for (const { spec: modelSpec, field } of named) {
    if (modelSpec === models.runModel || seen.has(modelSpec)) continue;
    seen.add(modelSpec);
    try {
      await models.createModel(modelSpec);
    } catch (error) {
      if (isWeftError(error) && error.code === 'INTERNAL') throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new WeftError(
        'BAD_INPUT',
        `${subject}whose model ${JSON.stringify(redactModelSpec(modelSpec))} (${field}) cannot be used: ${reason}`,
        { location: { file, field }, cause: error },
      );
    }
  }
}
