import { z } from 'zod';
import {
  MAX_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_ROLE_TOOLS,
  MAX_OBJECTIVE_LENGTH,
  MAX_OUTPUT_FORMAT_LENGTH,
  MAX_PROMPT_LENGTH,
  nonEmptyText,
} from './limits.js';
import { SUBTASK_STATUSES } from './workflow.js';

/**
 * The shape of a plan file (docs/contracts.md: `{ task, subtasks: [{ id, objective, agent, dependsOn }] }`
 * plus optional fields). Only the shape lives here; the graph rules (ids, dependencies, cycles, roles)
 * are in check-workflow-graph.ts so that both kinds of problem are reported together.
 */

// Sizes: limits.ts.
const text = nonEmptyText;

export const roleSchema = z.strictObject({
  name: text(MAX_NAME_LENGTH),
  prompt: text(MAX_PROMPT_LENGTH),
  // Any name: which kinds exist is up to the engines a run is given, so a run checks them when it starts.
  kind: text(MAX_NAME_LENGTH).default('llm'),
  team: text().optional(),
  taskType: text(MAX_NAME_LENGTH).optional(),
  // Names of tools from the run's tools (`--tools`); which exist is checked when a run starts, like kinds.
  tools: z.array(text(MAX_NAME_LENGTH)).max(MAX_ROLE_TOOLS).optional(),
});

export const subtaskSchema = z.strictObject({
  id: text(MAX_ID_LENGTH),
  objective: text(MAX_OBJECTIVE_LENGTH),
  agent: text(MAX_NAME_LENGTH),
  dependsOn: z.array(z.string()).default([]),
  status: z
    .enum(SUBTASK_STATUSES, { error: `must be one of ${SUBTASK_STATUSES.map((status) => `"${status}"`).join(', ')}` })
    .default('not started'),
  output: z.string().optional(),
  attempts: z.number().int({ error: 'must be a whole number' }).min(0, { error: 'must not be negative' }).default(0),
  outputFormat: text(MAX_OUTPUT_FORMAT_LENGTH).optional(),
});

export const workflowSchema = z.strictObject({
  task: text(),
  roles: z.array(roleSchema).optional(),
  subtasks: z.array(subtaskSchema).min(1, { error: 'must list at least one subtask' }),
});

export type WorkflowInput = z.output<typeof workflowSchema>;

/** The fields each kind of object accepts, named in "unknown field" messages to help with typos. */
export const ALLOWED_FIELDS = {
  workflow: Object.keys(workflowSchema.shape),
  role: Object.keys(roleSchema.shape),
  subtask: Object.keys(subtaskSchema.shape),
} as const;
