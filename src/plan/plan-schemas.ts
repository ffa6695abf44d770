/**
 * What the planner, verifier and inspector must answer. Lenient where models commonly drift (numeric ids,
 * `depends_on`), strict where a wrong answer would mislead the run.
 */
import { z } from 'zod';
import {
  boundedString as bounded,
  MAX_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_OBJECTIVE_LENGTH,
  MAX_OUTPUT_FORMAT_LENGTH,
  MAX_PLANNED_SUBTASKS,
  MAX_PROMPT_LENGTH,
  MAX_ROLE_TOOLS,
  tooManyMessage,
} from '../graph/limits.js';

// Sizes (graph/limits.ts) are part of a valid answer: one that breaks them is re-prompted with the exact error.
const id = z
  .union([z.string(), z.number()])
  .transform((value) => String(value).trim())
  .pipe(bounded(MAX_ID_LENGTH));
const atMost = <T extends z.ZodType>(item: T, what: string) =>
  z
    .array(item)
    .max(MAX_PLANNED_SUBTASKS, { error: (issue) => tooManyMessage(MAX_PLANNED_SUBTASKS, what, issue.input) });

const subtaskAnswer = z.preprocess(
  (value) => {
    if (value === null || typeof value !== 'object') return value;
    const record = { ...(value as Record<string, unknown>) };
    for (const alias of ['depends_on', 'dependencies', 'deps', 'parents']) {
      if (record.dependsOn === undefined && record[alias] !== undefined) record.dependsOn = record[alias];
      delete record[alias];
    }
    if (record.agent === undefined && typeof record.role === 'string') record.agent = record.role;
    delete record.role;
    // The Flow authors' planner writes `output_format`.
    if (record.outputFormat === undefined && record.output_format !== undefined)
      record.outputFormat = record.output_format;
    delete record.output_format;
    // An empty format says nothing: the same as none.
    if (typeof record.outputFormat === 'string' && record.outputFormat.trim() === '') delete record.outputFormat;
    return record;
  },
  z.object({
    id,
    objective: bounded(MAX_OBJECTIVE_LENGTH).min(1),
    agent: bounded(MAX_NAME_LENGTH).min(1),
    dependsOn: z.array(id).default([]),
    outputFormat: bounded(MAX_OUTPUT_FORMAT_LENGTH).optional(),
  }),
);

const roleAnswer = z.object({
  name: bounded(MAX_NAME_LENGTH).min(1),
  prompt: bounded(MAX_PROMPT_LENGTH).min(1),
  kind: z.enum(['llm', 'team']).optional(),
  team: z.string().optional(),
  tools: z.array(bounded(MAX_NAME_LENGTH).min(1)).max(MAX_ROLE_TOOLS).optional(),
});

export const planAnswerSchema = z.object({
  roles: atMost(roleAnswer, 'roles').optional(),
  subtasks: atMost(subtaskAnswer, 'subtasks').min(1),
});
export type PlanAnswer = z.infer<typeof planAnswerSchema>;

/** `{}` means "no change"; otherwise a whole revised graph. */
export const updateAnswerSchema = z.union([
  z.object({ roles: atMost(roleAnswer, 'roles').optional(), subtasks: atMost(subtaskAnswer, 'subtasks').min(1) }),
  z
    .object({})
    .strict()
    .transform(() => ({ noChange: true as const })),
]);
export type UpdateAnswer = z.infer<typeof updateAnswerSchema>;

export const verdictAnswerSchema = z.object({
  verdict: z.enum(['accept', 'retry', 'replan']),
  reason: z.string().default(''),
});
export type VerdictAnswer = z.infer<typeof verdictAnswerSchema>;
