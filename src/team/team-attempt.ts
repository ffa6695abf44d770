/**
 * One attempt at a subtask whose agent is a team role (`kind: team`): the subtask runs through DyLAN
 * (docs/algorithms.md#dylan-teams) instead of one model call, then is verified like any other result.
 *
 * Decisions:
 * - The team file is resolved against `teamBase`: the plan file's folder for `weft run --plan`, else the folder
 *   the caller gives (the CLI: its working directory). It is read when a team subtask starts (a plan update may
 *   introduce a team role), and a plan given up front has its team files checked before the run starts (team-checks.ts).
 * - The query is the prompt an ordinary agent gets (task, objective, parents' outputs), answered as `text` unless
 *   the team file sets `answerKind`; importance scores are kept under the role's `taskType`, else `general` (TeamQuery's
 *   default, the one `weft team` uses when none is given).
 * - Every call goes through the run's metered model (or, for an agent with its own model spec, a metered model of
 *   that spec), so calls, tokens, cost and budgets count them. Calls are re-keyed `<subtaskId>/team/<agent key>`
 *   with the subtask's attempt, so a retry is a different call and a resume replays a team's calls like any other.
 * - When the store holds scores for (team, task type), the top agents by mean importance run (team-selection.ts):
 *   as many as the latest `weft team optimize --k` recorded for them, else 4.
 *   Afterwards this query's importance is added to the store, unless every call was replayed from the log (an
 *   earlier process already got that far, and may have saved them: counting twice would be worse than once less).
 */
import { isAbsolute, resolve } from 'node:path';
import { WeftError, isWeftError } from '../errors.js';
import type { Role } from '../graph/workflow.js';
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import { wrapModel } from '../llm/wrap-model.js';
import { executePrompt } from '../plan/prompts.js';
import { buildTeam } from './build-team.js';
import { loadTeamFile } from './parse-team-file.js';
import { runTeam } from './run-team.js';
import type { TeamQuery, TeamResult, TeamSpec } from './team.js';
import type { TeamSummary, WeftEvent } from '../run/events.js';
import { verifyOutput, type AttemptOutcome, type SubtaskAttempt } from '../run/run-subtask.js';
import type { TeamScoreStore } from './team-score-store.js';
import { selectStoredTeamMembers, type TeamChoice } from './team-selection.js';
import { redactModelSpec } from '../llm/model-spec.js';

/** The task type workflow team subtasks keep their importance scores under when their role names none. */
export const WORKFLOW_TEAM_TASK_TYPE = 'general';

/** Answers longer than this are clipped in the `team` event (the whole output is in `task-end`). */
const LAYER_ANSWER_CHARS = 200;

type TeamEvent = Omit<Extract<WeftEvent, { type: 'team' }>, 'at'>;

export interface TeamAttemptContext {
  /** The folder relative team files resolve against; without one only absolute team files can be used. */
  readonly teamBase: string | undefined;
  /** The model of agents (and ranker) without a model spec of their own: the run's metered model. */
  readonly model: ChatModel;
  /** A metered model for a spec named in a team file; without it such a spec is a BAD_INPUT. */
  readonly modelFor?: (spec: string) => Promise<ChatModel>;
  /** Where importance scores are read and saved; without it every team runs whole and nothing is saved. */
  readonly store?: TeamScoreStore;
  /** Why there is no `store`, for the report (default: no run store). */
  readonly noStoreReason?: string;
  /** Replies recorded before a resume: a result found among them was replayed, not made. */
  readonly replay?: ReadonlyMap<string, ChatResult>;
  readonly emit: (event: TeamEvent) => void;
}

export type TeamAttemptRunner = (attempt: SubtaskAttempt) => Promise<AttemptOutcome>;

/** The absolute path of a team role's file. */
export function teamFilePath(teamBase: string | undefined, role: Pick<Role, 'name' | 'team'>): string {
  if (role.team === undefined || role.team.trim() === '') {
    throw new WeftError('BAD_INPUT', `Role "${role.name}" is a team but names no team file`, {
      location: { field: `roles.${role.name}.team` },
    });
  }
  if (isAbsolute(role.team)) return role.team;
  if (teamBase === undefined) {
    // Resolving against the process's working directory here would make a library run depend on where it started.
    throw new WeftError(
      'BAD_INPUT',
      `Role "${role.name}" names the relative team file ${JSON.stringify(role.team)}, and the run has no folder to resolve it against: give the plan's file (planFile) or a base folder`,
      {
        location: { field: `roles.${role.name}.team` },
      },
    );
  }
  return resolve(teamBase, role.team);
}

/** Loads a team role's file; any failure is a BAD_INPUT naming the role and the file, located in it. */
export async function loadRoleTeam(
  teamBase: string | undefined,
  role: Pick<Role, 'name' | 'team'>,
): Promise<{ file: string; spec: TeamSpec }> {
  const file = teamFilePath(teamBase, role);
  try {
    return { file, spec: await loadTeamFile(file) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const issues = isWeftError(error) ? error.issues : [];
    // The issues (located in the team file) travel as `issues`; the CLI lists them under the message.
    throw new WeftError(
      'BAD_INPUT',
      `Role "${role.name}" names the team file ${file} (team: ${JSON.stringify(role.team)}), which cannot be used: ${reason}`,
      {
        location:
          isWeftError(error) && error.location
            ? { ...error.location, file }
            : { file, field: `roles.${role.name}.team` },
        issues,
        cause: error,
      },
    );
  }
}

/** A model that files a team's calls under the subtask and attempt they belong to. */
export function teamScopedModel(
  model: ChatModel,
  subtaskId: string,
  attempt: number,
  onResult?: (result: ChatResult) => void,
): ChatModel {
  return wrapModel(model, {
    async wrapGenerate({ call, signal, next }) {
      const tag = call.tag ?? { purpose: 'other' as const };
      const result = await next(
        { ...call, tag: { ...tag, key: `${subtaskId}/team/${tag.key ?? tag.purpose}`, attempt } },
        signal,
      );
      onResult?.(result);
      return result;
    },
  });
}

export function createTeamAttemptRunner(context: TeamAttemptContext): TeamAttemptRunner {
  const replayed = new Set(context.replay?.values() ?? []);
  return async (attempt) => {
    const { file, spec } = await loadRoleTeam(context.teamBase, attempt.role);
    // Trimmed like `--task-type`, so "math " in a plan and `--task-type math` share their scores.
    const taskType = attempt.role.taskType?.trim() ?? WORKFLOW_TEAM_TASK_TYPE;
    const query: TeamQuery = {
      question: executePrompt(attempt.task, attempt.objective, attempt.parents, attempt.context),
      kind: spec.answerKind ?? 'text',
      taskType,
    };
    const choice = await selectStoredTeamMembers(context.store, spec, taskType);
    const members = new Set(choice.members);

    let live = 0;
    let replays = 0;
    const count = (result: ChatResult): void => {
      if (replayed.has(result)) replays += 1;
      else live += 1;
    };
    const scoped = (model: ChatModel): ChatModel => teamScopedModel(model, attempt.id, attempt.attempt, count);
    // buildTeam asks once per distinct spec; the run's own spec is the run's metered model itself.
    const createModel = async (modelSpec: string): Promise<ChatModel> => {
      if (modelSpec === context.model.id) return scoped(context.model);
      if (!context.modelFor) {
        throw new WeftError(
          'BAD_INPUT',
          `Team file ${file} names the model ${JSON.stringify(redactModelSpec(modelSpec))}, but this run cannot create other models`,
          { location: { file } },
        );
      }
      return scoped(await context.modelFor(modelSpec));
    };
    const team = await buildTeam(
      { ...spec, agents: spec.agents.filter((agent) => members.has(agent.name)) },
      { createModel, defaultModel: context.model.id, file, seed: attempt.id },
    );

    const result = await runTeam({
      agents: team.agents,
      query,
      ranker: team.ranker,
      ...(spec.maxSteps !== undefined ? { maxSteps: spec.maxSteps } : {}),
      ...(spec.reformAt !== undefined ? { reformAt: spec.reformAt } : {}),
      ...(spec.keep !== undefined ? { keep: spec.keep } : {}),
      ...(spec.stopCheck !== undefined ? { stopCheck: spec.stopCheck } : {}),
      seed: attempt.id,
      signal: attempt.signal,
    });

    const scores = await saveScores(context, spec.name, taskType, result, live === 0 && replays > 0);
    context.emit({ type: 'team', ...teamSummary(attempt, file, spec, query, choice, result, scores) });

    if (result.answer.trim() === '') {
      return {
        kind: 'blocked',
        output: '',
        reason: `the team "${spec.name}" gave no answer (${result.stopReason} at step ${result.stoppedAt})`,
      };
    }
    return verifyOutput(attempt, result.answer);
  };
}

/** Adds this query's importance to the store; a store failure is reported in the summary, not fatal. */
async function saveScores(
  context: TeamAttemptContext,
  team: string,
  taskType: string,
  result: TeamResult,
  allReplayed: boolean,
): Promise<TeamSummary['scores']> {
  if (!context.store) return { saved: false, reason: context.noStoreReason ?? 'no run store' };
  if (allReplayed)
    return { saved: false, reason: 'every call was replayed from the log: an earlier process ran this team' };
  const entries = Object.entries(result.importance)
    .filter(([, importance]) => Number.isFinite(importance) && importance >= 0)
    .map(([agent, importance]) => ({ agent, importance, queries: 1 }));
  try {
    await context.store.saveTeamScores({ team, taskType, scores: entries });
    return { saved: true };
  } catch (error) {
    // The subtask's answer stands without the bookkeeping; the report says the scores were not kept.
    return { saved: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

function teamSummary(
  attempt: SubtaskAttempt,
  file: string,
  spec: TeamSpec,
  query: TeamQuery,
  choice: TeamChoice,
  result: TeamResult,
  scores: TeamSummary['scores'],
): TeamSummary {
  return {
    taskId: attempt.id,
    attempt: attempt.attempt,
    role: attempt.role.name,
    file,
    team: spec.name,
    taskType: query.taskType ?? WORKFLOW_TEAM_TASK_TYPE,
    kind: query.kind,
    pool: spec.agents.map((agent) => agent.name),
    members: choice.members,
    selection: choice.selection,
    layers: result.layers.map((layer) =>
      layer.map((node) => ({ agent: node.agent, answer: clip(node.answer), ratingsParsed: node.ratingsParsed })),
    ),
    answer: clip(result.answer),
    stoppedAt: result.stoppedAt,
    stopReason: result.stopReason,
    ...(result.reformation
      ? {
          reformation: {
            afterStep: result.reformation.afterStep,
            kept: [...result.reformation.kept],
            dropped: [...result.reformation.dropped],
            reason: result.reformation.reason,
            fallback: result.reformation.fallback,
          },
        }
      : {}),
    importance: { ...result.importance },
    calls: result.calls,
    ratingFallbacks: result.ratingFallbacks,
    rankerFallbacks: result.rankerFallbacks,
    scores,
  };
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= LAYER_ANSWER_CHARS ? flat : `${flat.slice(0, LAYER_ANSWER_CHARS - 1)}…`;
}
