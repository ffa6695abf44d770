/**
 * Tools written in JavaScript or TypeScript, in the style of the AI SDK's `tool()`: a description, a zod schema for
 * the arguments and an `execute` function. A module of such exports is a tools source (module-tools.ts).
 */
import { z } from 'zod';
import { WeftError } from '../errors.js';
import type { JsonValue, Tool, ToolSchema } from './tool.js';
import { argumentError, argumentPath } from './validate-args.js';

export interface ToolExecuteContext {
  readonly signal: AbortSignal;
  /** The same signal under the AI SDK's name, so tools written for it run unchanged. */
  readonly abortSignal: AbortSignal;
}

export interface ToolDefinition<Schema extends z.ZodType = z.ZodType, Result = unknown> {
  /** The tool's name; by default the name of the export that holds it. */
  readonly name?: string;
  readonly description: string;
  /** A zod 4 schema of the arguments (usually `z.object({...})`), or a JSON Schema object. */
  readonly inputSchema: Schema | ToolSchema;
  readonly outputSchema?: z.ZodType | ToolSchema;
  readonly execute: (args: z.output<Schema>, context: ToolExecuteContext) => Promise<Result> | Result;
  readonly idempotent?: boolean;
  readonly concurrency?: number;
  readonly timeoutMs?: number;
  readonly maxResultBytes?: number;
}

/** Returns the definition unchanged (typed): what a tools module exports. */
export function defineTool<Schema extends z.ZodType, Result>(
  definition: ToolDefinition<Schema, Result>,
): ToolDefinition<Schema, Result> {
  return definition;
}

/** True for what looks like a tool definition (ours, or the AI SDK's `tool()`, which has the same fields). */
export function isToolDefinition(value: unknown): value is ToolDefinition {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.execute === 'function' &&
    typeof candidate.inputSchema === 'object' &&
    candidate.inputSchema !== null
  );
}

/** A zod 4 schema carries `_zod`; zod 3 ones carry `_def` only. */
function isZod4(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** The JSON Schema of a zod schema or AI SDK `jsonSchema()` wrapper or plain JSON Schema; throws a plain Error. */
function jsonSchemaOf(schema: unknown): ToolSchema {
  if (isZod4(schema)) return z.toJSONSchema(schema, { io: 'input' }) as ToolSchema;
  const record = schema as Record<string, unknown>;
  if ('_def' in record && typeof record.safeParse === 'function') {
    throw new Error('it is a zod 3 schema; Weft reads zod 4 schemas (import { z } from "zod" with zod >= 4)');
  }
  // The AI SDK's `jsonSchema(...)` keeps the schema under `jsonSchema`.
  if (typeof record.jsonSchema === 'object' && record.jsonSchema !== null) return record.jsonSchema as ToolSchema;
  return record as ToolSchema;
}

/**
 * The Tool for a definition. `where` names it in errors (`tools.mjs#add`); a schema that cannot be turned into JSON
 * Schema (a transform, a date) is BAD_INPUT there.
 */
export function toolFromDefinition(
  definition: ToolDefinition,
  options: { name: string; source: string; where: string },
): Tool {
  let inputSchema: ToolSchema;
  let outputSchema: ToolSchema | undefined;
  try {
    inputSchema = jsonSchemaOf(definition.inputSchema);
    outputSchema = definition.outputSchema === undefined ? undefined : jsonSchemaOf(definition.outputSchema);
  } catch (error) {
    throw new WeftError(
      'BAD_INPUT',
      `${options.where}: the schema of tool "${options.name}" cannot be read: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (typeof definition.description !== 'string') {
    throw new WeftError('BAD_INPUT', `${options.where}: tool "${options.name}" has no description (a string)`);
  }
  const zodSchema = isZod4(definition.inputSchema) ? definition.inputSchema : undefined;
  const execute = definition.execute;
  return {
    name: options.name,
    description: definition.description,
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    ...(definition.idempotent !== undefined ? { idempotent: definition.idempotent } : {}),
    ...(definition.concurrency !== undefined ? { concurrency: definition.concurrency } : {}),
    ...(definition.timeoutMs !== undefined ? { timeoutMs: definition.timeoutMs } : {}),
    ...(definition.maxResultBytes !== undefined ? { maxResultBytes: definition.maxResultBytes } : {}),
    source: options.source,
    async call(args: JsonValue, context) {
      // The JSON Schema check came first (callTool); zod's own parse adds what JSON Schema cannot say (refinements)
      // and gives `execute` the parsed value (defaults filled in), as the AI SDK does.
      let parsed: unknown = args;
      if (zodSchema) {
        const outcome = await zodSchema.safeParseAsync(args);
        if (!outcome.success) {
          throw argumentError(
            options.name,
            outcome.error.issues.map((issue) => {
              const field = argumentPath(issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part)));
              return { field, message: `${field ? `argument "${field}"` : 'the arguments'}: ${issue.message}` };
            }),
          );
        }
        parsed = outcome.data;
      }
      // Read when `execute` reads it: callTool makes the signal on first use (most tools never use theirs).
      const executeContext: ToolExecuteContext = {
        get signal() {
          return context.signal;
        },
        get abortSignal() {
          return context.signal;
        },
      };
      return (await execute(parsed, executeContext)) as JsonValue;
    },
  };
}
