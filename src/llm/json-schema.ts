/**
 * JSON Schema helpers for structured calls. Providers with grammar support (node-llama-cpp) read only a subset
 * of JSON Schema; `toGrammarSubset` rewrites what has an equivalent in that subset, and `boundedSchema` adds the
 * length bounds that make a grammar-constrained model stop.
 */
import { WeftError } from '../errors.js';

export type JsonSchema = Record<string, unknown>;

/** Keywords whose value is a schema, a list of schemas, or a map of name → schema. */
const SCHEMA_KEYWORDS = new Set(['items', 'additionalProperties', 'not']);
const SCHEMA_LIST_KEYWORDS = new Set(['oneOf', 'anyOf', 'allOf', 'prefixItems']);
const SCHEMA_MAP_KEYWORDS = new Set(['properties', '$defs', 'definitions']);

/**
 * node-llama-cpp 3 reads `oneOf` but not `anyOf` (a schema it does not recognise becomes a grammar for `null`),
 * and has no use for `$schema`. A grammar generates one branch anyway, so for generation `anyOf` and `oneOf`
 * mean the same; the caller still validates the reply against the real schema.
 */
export function toGrammarSubset(schema: JsonSchema): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  return mapSchemas(rest, (node) => {
    if (!('anyOf' in node)) return node;
    const { anyOf, ...others } = node;
    return { ...others, oneOf: anyOf };
  });
}

export interface SchemaBounds {
  /** `maxLength` for every string schema without one. */
  readonly maxString?: number;
  /** `maxItems` for every array schema without one. */
  readonly maxItems?: number;
}

/**
 * A copy of `schema` with `maxLength` / `maxItems` added where absent (existing bounds are kept, and a bound
 * never goes below the schema's own minimum). For grammar-constrained models that would otherwise ramble:
 * a grammar makes the reply well-formed, only bounds make it end.
 */
export function boundedSchema(schema: JsonSchema, bounds: SchemaBounds): JsonSchema {
  for (const [name, value] of Object.entries(bounds)) {
    if (value !== undefined && (!Number.isInteger(value) || (value as number) < 0)) {
      throw new WeftError(
        'BAD_INPUT',
        `Expected ${name} to be an integer >= 0, got ${String(value)} (${typeof value})`,
        {
          location: { field: name },
        },
      );
    }
  }
  return mapSchemas(schema, (node) => {
    const result = { ...node };
    const literal = 'enum' in node || 'const' in node;
    if (bounds.maxString !== undefined && hasType(node, 'string') && !literal && node['maxLength'] === undefined) {
      result['maxLength'] = Math.max(bounds.maxString, numberOr(node['minLength'], 0));
    }
    if (bounds.maxItems !== undefined && hasType(node, 'array') && node['maxItems'] === undefined) {
      result['maxItems'] = Math.max(bounds.maxItems, numberOr(node['minItems'], 0));
    }
    return result;
  });
}

/** A copy of `schema` with `transform` applied to every (sub)schema, innermost first. */
function mapSchemas(schema: JsonSchema, transform: (node: JsonSchema) => JsonSchema): JsonSchema {
  const visit = (item: unknown): unknown => (isSchema(item) ? mapSchemas(item, transform) : item);
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_KEYWORDS.has(key)) copy[key] = visit(value);
    else if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) copy[key] = value.map(visit);
    else if (SCHEMA_MAP_KEYWORDS.has(key) && isSchema(value)) {
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, visit(item)]));
    } else copy[key] = value;
  }
  return transform(copy);
}

function hasType(schema: JsonSchema, type: string): boolean {
  const declared = schema['type'];
  return declared === type || (Array.isArray(declared) && declared.includes(type));
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}
