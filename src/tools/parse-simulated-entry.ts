/**
 * A `simulated` entry of a tools section: an API that does not exist (yet), answered by a model from its declaration
 * (simulated-api.ts) — so a procedure, a plan or a team can be tried before the API is built, as the FlowAgent authors
 * evaluate procedures. The command that runs the tools binds the model (the run's, the bot's, or `--api-model`);
 * an unbound one refuses to be called.
 *
 *   - kind: simulated
 *     name: check_rooms
 *     description: Whether the hotel has a free room on a day
 *     input: { type: object, properties: { hotel: { type: string } }, required: [hotel] }
 *     output: { type: object, properties: { has_room: { type: boolean } } }
 */
import { describeValue } from '../text/describe-value.js';
import { parseInputSchema, schemaProblem } from './parse-http-entry.js';
import type { ToolSchema } from './tool.js';
import {
  type Fields,
  MAX_RESULT_BYTES_LIMIT,
  MAX_TIMEOUT_MS,
  type SourceBase,
  type ToolSourceSpec,
} from './tool-entry-fields.js';

export function parseSimulatedEntry(fields: Fields, base: SourceBase): ToolSourceSpec | undefined {
  const name = fields.name();
  const description = fields.string('description', { required: true, max: 10_000 });
  const inputSchema = parseInputSchema(fields);
  const outputSchema = parseOutputSchema(fields);
  const timeoutMs = fields.integer('timeoutMs', 1, MAX_TIMEOUT_MS);
  const maxResultBytes = fields.integer('maxResultBytes', 1, MAX_RESULT_BYTES_LIMIT);
  if (name === undefined || description === undefined || inputSchema === undefined || outputSchema === null)
    return undefined;
  return {
    ...base,
    kind: 'simulated',
    spec: {
      name,
      description,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(maxResultBytes !== undefined ? { maxResultBytes } : {}),
    },
  };
}

/** `output`: any JSON Schema object, or none (undefined); null after a problem. */
function parseOutputSchema(fields: Fields): ToolSchema | undefined | null {
  const value = fields.record.output;
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fields.problem('output', `expected a JSON Schema object of the result, got ${describeValue(value)}`);
    return null;
  }
  const problem = schemaProblem(value as ToolSchema);
  if (problem !== undefined) {
    fields.problem('output', `is not a valid JSON Schema: ${problem}`);
    return null;
  }
  return value as ToolSchema;
}
