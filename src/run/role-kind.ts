/**
 * Role kinds besides `llm` plug into a run as engines (a DyLAN team today, src/team/team-role-kind.ts; tool-using
 * agents, procedures and distilled workflows later). The caller hands runTask/resumeRun the engines it wants (the
 * library's defaultRoleKinds(), the CLI's), so run/ knows none of them by name: a new kind is one engine file plus
 * one line where the list is assembled.
 */
import { WeftError } from '../errors.js';
import type { Role, Workflow } from '../graph/workflow.js';
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import type { TeamOffer } from '../plan/team-offer.js';
import type { RunStore } from '../store/run-store.js';
import type { AttemptRunner } from './attempt-runner.js';
import type { EventLog } from './event-log.js';

/** How an engine checks, before a run starts, that the models its roles name can be made. */
export interface ModelCheck {
  /** Makes (without calling) the model of a spec: a missing API key or model file fails here. */
  readonly createModel: (spec: string) => Promise<unknown>;
  /** The run's own model: roles using it need no check. */
  readonly runModel?: string;
}

/** What an engine's checks get: where relative file names resolve, and how to try its models. */
export interface RoleKindSetup {
  /**
   * The folder relative file names in the plan resolve against (the plan file's, or the caller's `base`);
   * undefined when the run has neither, and then only absolute names can be used.
   */
  readonly base: string | undefined;
  readonly models: ModelCheck;
}

/** What an engine's runner gets for one run (or one resumed process of it). */
export interface RoleKindContext {
  readonly runId: string;
  readonly base: string | undefined;
  /** The run's metered model: calls through it count in the run's calls, tokens, cost and budgets. */
  readonly model: ChatModel;
  /** A metered model for another spec (one per spec, shared by the run's attempts). */
  readonly modelFor: (spec: string) => Promise<ChatModel>;
  /** The run's store; an engine that keeps data of its own there checks for its interface (e.g. isTeamScoreStore). */
  readonly store: RunStore;
  /** Replies recorded before a resume, by call key. */
  readonly replay?: ReadonlyMap<string, ChatResult>;
  readonly emit: EventLog['emit'];
}

export interface RoleKindEngine {
  /** `Role.kind` of the roles it runs; not `llm`, which is the run's own. */
  readonly kind: string;
  createRunner(context: RoleKindContext): AttemptRunner;
  /** The plan with its roles' relative file names made absolute, so that its saved versions run from anywhere. */
  preparePlan?<W extends Pick<Workflow, 'roles'>>(workflow: W, base: string | undefined): W;
  /** Throws a BAD_INPUT when a role of this kind cannot work (a missing file, a model that cannot be made). */
  checkPlan?(workflow: Pick<Workflow, 'roles'>, setup: RoleKindSetup): Promise<void>;
  /** Checks again, on resume, the offers made to the planner (`--team`) of a run that has no plan yet. */
  checkOffers?(offers: readonly TeamOffer[], setup: RoleKindSetup): Promise<void>;
}

/** The built-in kind: a role prompt and a model call (run-subtask.ts). */
export const LLM_ROLE_KIND = 'llm';

/** Checks a list of engines: one per kind, and none for `llm`. */
export function checkRoleKinds(engines: readonly RoleKindEngine[]): void {
  const seen = new Set<string>([LLM_ROLE_KIND]);
  for (const engine of engines) {
    if (seen.has(engine.kind)) {
      const why = engine.kind === LLM_ROLE_KIND ? 'is the built-in kind' : 'is registered twice';
      throw new WeftError('BAD_INPUT', `Role kind "${engine.kind}" ${why}`, { location: { field: 'roleKinds' } });
    }
    seen.add(engine.kind);
  }
}

/** The kinds a run with these engines knows, for messages: `llm, team`. */
export function knownRoleKinds(engines: readonly RoleKindEngine[]): string {
  return [LLM_ROLE_KIND, ...engines.map((engine) => engine.kind)].join(', ');
}

/**
 * Every role of a plan has a kind the run knows: an unknown kind is the user's input error, reported before the
 * run starts (not an attempt that fails three times). `file`: the plan file, for the location.
 */
export function checkPlanKinds(
  workflow: Pick<Workflow, 'roles'>,
  engines: readonly RoleKindEngine[],
  file?: string,
): void {
  const known = new Set([LLM_ROLE_KIND, ...engines.map((engine) => engine.kind)]);
  const unknown: Role | undefined = workflow.roles.find((role) => !known.has(role.kind));
  if (unknown) {
    throw new WeftError(
      'BAD_INPUT',
      `Unknown role kind "${unknown.kind}" (role "${unknown.name}"); known: ${knownRoleKinds(engines)}`,
      {
        location: { ...(file !== undefined ? { file } : {}), field: `roles.${unknown.name}.kind` },
      },
    );
  }
}

/** The kind the planner gives the teams offered to it (plan-task.ts): a run with offers needs its engine. */
export const OFFERED_ROLE_KIND = 'team';

/** Offers to the planner need the engine their roles will run on; without it every such subtask would fail. */
export function checkOfferKinds(offers: readonly TeamOffer[] | undefined, engines: readonly RoleKindEngine[]): void {
  if (!offers || offers.length === 0 || engines.some((engine) => engine.kind === OFFERED_ROLE_KIND)) return;
  throw new WeftError(
    'BAD_INPUT',
    `Teams are offered to the planner, and the run has no engine for role kind "${OFFERED_ROLE_KIND}"; known: ${knownRoleKinds(engines)}`,
    {
      location: { field: 'teams' },
    },
  );
}

/** The plan as the engines prepare it (relative file names made absolute). */
export function preparePlan<W extends Pick<Workflow, 'roles'>>(
  workflow: W,
  engines: readonly RoleKindEngine[],
  base: string | undefined,
): W {
  return engines.reduce((plan, engine) => (engine.preparePlan ? engine.preparePlan(plan, base) : plan), workflow);
}

/** Runs every engine's plan check. */
export async function checkPlanRoles(
  workflow: Pick<Workflow, 'roles'>,
  engines: readonly RoleKindEngine[],
  setup: RoleKindSetup,
): Promise<void> {
  for (const engine of engines) await engine.checkPlan?.(workflow, setup);
}

/** The runners of one run, keyed by kind, as execute() takes them. */
export function roleKindRunners(
  engines: readonly RoleKindEngine[],
  context: RoleKindContext,
): Record<string, AttemptRunner> {
  return Object.fromEntries(engines.map((engine) => [engine.kind, engine.createRunner(context)]));
}
