/**
 * Arguments for the sim model's tool calls, drawn from a tool's JSON schema: `simToolArgs` gives arguments that
 * validate (required properties only, honouring type, enum/const, minimum/maximum, minLength/maxLength,
 * minItems/maxItems and a few string formats), `simBadToolArgs` arguments that do not (a required property left
 * out, one of the wrong type, or text that is not JSON). Not a general generator: `pattern`, `$ref` and
 * `not` are not followed, so a schema built on them may get arguments it rejects.
 */
import { bernoulli, integerSample, pick, uniformSample, type RandomSource } from './seeded-random.js';

type Schema = Readonly<Record<string, unknown>>;

/**
 * Bounds on what one schema can make the sim build: deeper schemas get `null`, and a schema asking for huge
 * strings or arrays (`minLength: 1e9`, nested `minItems`) gets less than it asks rather than exhausting memory.
 */
const MAX_DEPTH = 8;
const MAX_VALUES = 10_000;
const MAX_STRING = 10_000;
const MAX_ITEMS = 100;

interface Budget {
  values: number;
}

const FORMATS: Readonly<Record<string, string>> = {
  date: '2025-03-10',
  'date-time': '2025-03-10T12:00:00Z',
  time: '12:00:00',
  email: 'ada@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  hostname: 'example.com',
  ipv4: '127.0.0.1',
};

const WORDS = ['alpha', 'bravo', 'delta', 'echo', 'kilo', 'lima', 'oscar', 'tango'] as const;

/** Arguments that satisfy the schema (as far as the keywords above go). */
export function simToolArgs(schema: Schema, random: RandomSource): Record<string, unknown> {
  const value = exampleValue(schema, random, 0, { values: MAX_VALUES });
  return isRecord(value) ? value : {};
}

/** Arguments that break the schema: a required property left out or of the wrong type, or text that is no JSON. */
export function simBadToolArgs(schema: Schema, random: RandomSource): unknown {
  const good = simToolArgs(schema, random);
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  const required = requiredOf(schema).filter((name) => name in good);
  const typed = Object.keys(properties).filter((name) => wrongValue(properties[name]) !== undefined);
  const ways: (() => unknown)[] = [];
  if (required.length > 0) {
    ways.push(() => {
      const { [pick(random, required)]: _dropped, ...rest } = good;
      return rest;
    });
  }
  if (typed.length > 0) {
    ways.push(() => {
      const name = pick(random, typed);
      return { ...good, [name]: wrongValue(properties[name]) };
    });
  }
  // Nothing in the schema to break: arguments a model cut off mid-way, as a provider hands them over.
  if (ways.length === 0) return `${JSON.stringify(good).slice(0, -1)},"`;
  return pick(random, ways)();
}

function exampleValue(schema: unknown, random: RandomSource, depth: number, budget: Budget): unknown {
  if (!isRecord(schema)) return {};
  if (--budget.values < 0) return null;
  if ('const' in schema) return schema['const'];
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return pick(random, schema['enum']);
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const { [key]: _branches, ...rest } = schema;
      const branch = key === 'allOf' ? mergeAll(branches) : pick(random, branches);
      return exampleValue({ ...rest, ...(isRecord(branch) ? branch : {}) }, random, depth + 1, budget);
    }
  }
  if (depth > MAX_DEPTH) return null;
  switch (typeOf(schema)) {
    case 'string':
      return exampleString(schema, random);
    case 'integer': {
      const [min, max] = numberRange(schema, true);
      return integerSample(random, min, max);
    }
    case 'number': {
      const [min, max] = numberRange(schema, false);
      return Math.round(uniformSample(random, min, max) * 100) / 100;
    }
    case 'boolean':
      return bernoulli(random, 0.5);
    case 'null':
      return null;
    case 'array': {
      const min = integerOr(schema['minItems'], 1);
      const count = Math.min(Math.max(min, 1), integerOr(schema['maxItems'], Math.max(min, 3)), MAX_ITEMS);
      return Array.from({ length: count }, () => exampleValue(schema['items'], random, depth + 1, budget));
    }
    default: {
      const properties = isRecord(schema['properties']) ? schema['properties'] : {};
      const value: Record<string, unknown> = {};
      for (const name of requiredOf(schema)) value[name] = exampleValue(properties[name], random, depth + 1, budget);
      return value;
    }
  }
}

function exampleString(schema: Schema, random: RandomSource): string {
  const format = typeof schema['format'] === 'string' ? FORMATS[schema['format']] : undefined;
  let text = format ?? `${pick(random, WORDS)}-${integerSample(random, 1, 999)}`;
  const minLength = Math.min(integerOr(schema['minLength'], 0), MAX_STRING);
  if (text.length < minLength) text = text.padEnd(minLength, 'x');
  const maxLength = integerOr(schema['maxLength'], Number.POSITIVE_INFINITY);
  return text.slice(0, maxLength);
}

function numberRange(schema: Schema, integer: boolean): [number, number] {
  const step = integer ? 1 : 0.01;
  const lower =
    typeof schema['minimum'] === 'number'
      ? schema['minimum']
      : typeof schema['exclusiveMinimum'] === 'number'
        ? schema['exclusiveMinimum'] + step
        : undefined;
  const upper =
    typeof schema['maximum'] === 'number'
      ? schema['maximum']
      : typeof schema['exclusiveMaximum'] === 'number'
        ? schema['exclusiveMaximum'] - step
        : undefined;
  let min = lower ?? (upper !== undefined ? Math.min(1, upper) : 1);
  let max = upper ?? min + 99;
  if (integer) {
    min = Math.ceil(min);
    max = Math.floor(max);
  }
  return max < min ? [min, min] : [min, max];
}

/** A value of another type than the property's, or undefined when its schema accepts anything. */
function wrongValue(schema: unknown): unknown {
  if (!isRecord(schema)) return undefined;
  if (Array.isArray(schema['enum']) || 'const' in schema) return 'not-one-of-the-allowed-values';
  switch (typeOf(schema)) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'not a number';
    case 'boolean':
      return 'yes';
    case 'array':
      return 'not a list';
    case 'object':
      return 'not an object';
    case 'null':
      return 0;
    default:
      return undefined;
  }
}

function typeOf(schema: Schema): string | undefined {
  const type = schema['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((t) => t !== 'null') ?? type[0];
  if (isRecord(schema['properties'])) return 'object';
  return undefined;
}

function requiredOf(schema: Schema): string[] {
  return Array.isArray(schema['required'])
    ? schema['required'].filter((name): name is string => typeof name === 'string')
    : [];
}

function mergeAll(branches: readonly unknown[]): Schema {
  const merged: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  const required = new Set<string>();
  for (const branch of branches) {
    if (!isRecord(branch)) continue;
    Object.assign(merged, branch);
    if (isRecord(branch['properties'])) Object.assign(properties, branch['properties']);
    for (const name of requiredOf(branch)) required.add(name);
  }
  return { ...merged, properties, required: [...required] };
}

function integerOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : fallback;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
