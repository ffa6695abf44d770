/**
 * The sizes Weft accepts, in one place: in user files (plan files, team files) and in model answers alike. A model
 * answer that breaks one is a bad answer and is re-prompted with the exact error, like invalid JSON; a user file
 * that breaks one is refused with the file, line and field. Nothing here is a hard technical limit: each is far
 * above what a sensible plan or team needs and far below what makes a run silently slow or its output unreadable
 * (a model once answered a subtask id of 2,688 characters; a team file of 8,698 agents ran for minutes).
 */
import { z } from 'zod';

/** A subtask id. Ids are shown in every event, report line and Mermaid node. */
export const MAX_ID_LENGTH = 64;

/** A role (agent) name, a team's name, and the name of a team's agent. */
export const MAX_NAME_LENGTH = 64;

/** Tools one role may list (a tool-using agent is offered each of them on every step). */
export const MAX_ROLE_TOOLS = 64;

/** A role prompt, a team agent's prompt, a team's description. */
export const MAX_PROMPT_LENGTH = 10_000;

/** A subtask's objective. */
export const MAX_OBJECTIVE_LENGTH = 10_000;

/** A subtask's output format ("Python code", "Markdown", …). */
export const MAX_OUTPUT_FORMAT_LENGTH = 500;

/** The agents of one team (DyLAN's own teams have 4 to 7; every agent answers at every step). */
export const MAX_TEAM_AGENTS = 32;

/**
 * Subtasks (and declared roles) in a plan or revision a model answers. Plan files may be larger: the scheduler
 * runs plans of 10,000 subtasks that a person or a program wrote on purpose.
 */
export const MAX_PLANNED_SUBTASKS = 200;

/** `must be at most 64 characters (got 2688)`: the error for a string over `max`, with its length. */
export function tooLongMessage(max: number, input: unknown): string {
  const length = typeof input === 'string' ? ` (got ${input.length})` : '';
  return `must be at most ${max} characters${length}`;
}

/** A string of at most `max` characters; the error gives its length. */
export const boundedString = (max: number) =>
  z.string().max(max, { error: (issue) => tooLongMessage(max, issue.input) });

/** Text that is not only whitespace (as useless to an agent as none), of at most `max` characters when given. */
export const nonEmptyText = (max?: number) =>
  (max === undefined ? z.string() : boundedString(max)).refine((value) => value.trim().length > 0, {
    error: 'must not be empty',
  });

/** `must list at most 32 agents (got 8698)`. */
export function tooManyMessage(max: number, what: string, input: unknown): string {
  const count = Array.isArray(input) ? ` (got ${input.length})` : '';
  return `must list at most ${max} ${what}${count}`;
}
