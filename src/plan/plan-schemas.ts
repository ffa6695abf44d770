/**
 * What the planner, verifier and inspector must answer. Lenient where models commonly drift (numeric ids,
 * `depends_on`), strict where a wrong answer would mislead the run.
 */
import { z } from 'zod';

const id = z.union([z.string(), z.number()]).transform((value) => String(value).trim());

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
    return record;
  },
  z.object({
    id,
    objective: z.string().min(1),
    agent: z.string().min(1),
    dependsOn: z.array(id).default([]),
  }),
);

const roleAnswer = z.object({
  name: z.string().min(1),
  prompt: z.string().min(1),
  kind: z.enum(['llm', 'team']).optional(),
  team: z.string().optional(),
});

export const planAnswerSchema = z.object({
  roles: z.array(roleAnswer).optional(),
  subtasks: z.array(subtaskAnswer).min(1),
});
export type PlanAnswer = z.infer<typeof planAnswerSchema>;

/** `{}` means "no change"; otherwise a whole revised graph. */
export const updateAnswerSchema = z.union([
  z.object({ roles: z.array(roleAnswer).optional(), subtasks: z.array(subtaskAnswer).min(1) }),
  z.object({}).strict().transform(() => ({ noChange: true as const })),
]);
export type UpdateAnswer = z.infer<typeof updateAnswerSchema>;

export const verdictAnswerSchema = z.object({
  verdict: z.enum(['accept', 'retry', 'replan']),
  reason: z.string().default(''),
});
export type VerdictAnswer = z.infer<typeof verdictAnswerSchema>;
