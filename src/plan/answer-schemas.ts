/**
 * JSON Schemas of the planner's, verifier's and inspector's answers, sent as `call.json.schema` so that a
 * provider with grammar support (the `local:` provider) can constrain the reply. They describe the canonical
 * shape the prompts ask for; the lenient zod schemas in `plan-schemas.ts` stay the validators (they also take
 * numeric ids, `depends_on`, `role`, and roles of kind `team`).
 *
 * Derived with `z.toJSONSchema` from canonical zod schemas and kept to the subset node-llama-cpp's grammar
 * understands (`toGrammarSubset`; the local provider applies it to every schema too). The update's two
 * branches are disjoint (`{}` has no `subtasks`), so its `oneOf` means the same as zod's `anyOf`. node-llama-cpp
 * also generates every listed property whether required or not, which is why the roles here carry no `kind`
 * or `team`: a team is the user's to give, never the model's (team-offer.ts), and a grammar would otherwise make
 * a model write them. A subtask's `outputFormat` is listed (optional): the planner's scope rules ask for it, and a
 * grammar that always writes it costs a few tokens and misleads nothing.
 */
import { z } from 'zod';
import { toGrammarSubset, type JsonSchema } from '../llm/json-schema.js';

export { boundedSchema, type JsonSchema, type SchemaBounds } from '../llm/json-schema.js';

const text = z.string().min(1);

/** What the prompts ask for, with no aliases or defaults: the source of the JSON Schemas below. */
export const canonicalRoleAnswer = z.strictObject({ name: text, prompt: text });
export const canonicalSubtaskAnswer = z.strictObject({
  id: text,
  objective: text,
  agent: text,
  dependsOn: z.array(text),
  outputFormat: text.optional(),
});
export const canonicalPlanAnswer = z.strictObject({
  roles: z.array(canonicalRoleAnswer).optional(),
  subtasks: z.array(canonicalSubtaskAnswer).min(1),
});
export const canonicalUpdateAnswer = z.union([canonicalPlanAnswer, z.strictObject({})]);
export const canonicalVerdictAnswer = z.strictObject({
  verdict: z.enum(['accept', 'retry', 'replan']),
  reason: z.string(),
});

export const planAnswerJsonSchema: JsonSchema = toGrammarSchema(canonicalPlanAnswer);
/** A whole revised workflow, or `{}` for "no change". */
export const updateAnswerJsonSchema: JsonSchema = toGrammarSchema(canonicalUpdateAnswer);
export const verdictAnswerJsonSchema: JsonSchema = toGrammarSchema(canonicalVerdictAnswer);

function toGrammarSchema(schema: z.ZodType): JsonSchema {
  const generated = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  return deepFreeze(toGrammarSubset(generated));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
