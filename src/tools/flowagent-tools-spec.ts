/**
 * The tools spec of the FlowAgent authors' data sets, read as it is: a YAML list with one entry per API,
 *
 *   - API: checkAvailability
 *     API Desciption: Check the ticket availability …        (sic; `API Description` is read too)
 *     Input parameters: { "plan_code": {"type": "string", "description": "…", "required": true}, … }
 *     Output parameters: { "is_air": {"type": "string", "description": "…"} }
 *
 * Each entry becomes a tool *declaration*: a name, a description, an input schema (a property per input parameter;
 * those with `required: true` in its `required` list) and an output schema. It has no endpoint, so calling it fails
 * with a message that says so; `--simulate-apis` has a model answer it instead (simulated-api.ts).
 *
 * The authors' files are hand-written and keep their slips: parameter keys are trimmed (`" description"`,
 * `"type "`), and `type` takes Python's names as well as JSON Schema's (`str`, `int`, `float`, `bool`, `list`,
 * `dict`). Anything else — an unknown key, a type we cannot map, a parameter that is not a map — is a located
 * problem, all of them at once.
 */
import { WeftError } from '../errors.js';
import { clip } from '../text/clip.js';
import { describeValue } from '../text/describe-value.js';
import { closestWord } from '../text/edit-distance.js';
import type { FieldPath, PositionOf } from '../text/source-locator.js';
import { TOOL_NAME_PATTERN, type Tool, type ToolSchema } from './tool.js';

const ENTRY_KEYS = ['API', 'API Desciption', 'API Description', 'Input parameters', 'Output parameters'] as const;
const PARAMETER_KEYS = ['type', 'description', 'required', 'enum', 'default', 'items'] as const;

/** JSON Schema types by the names people write. */
const TYPES: Readonly<Record<string, string>> = {
  string: 'string',
  str: 'string',
  text: 'string',
  integer: 'integer',
  int: 'integer',
  number: 'number',
  float: 'number',
  double: 'number',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  list: 'array',
  object: 'object',
  dict: 'object',
};

/** Entries in one spec at most (a data set's procedure has a handful of APIs). */
export const MAX_SPEC_ENTRIES = 500;
/** Parameters of one API at most. */
export const MAX_SPEC_PARAMETERS = 200;

export interface SpecIssue {
  readonly path: FieldPath;
  readonly message: string;
}

/** Whether a parsed document looks like a FlowAgent tools spec: a list whose entries have an `API` key. */
export function isFlowAgentToolsSpec(root: unknown): root is unknown[] {
  return (
    Array.isArray(root) &&
    root.length > 0 &&
    root.some((entry) => entry !== null && typeof entry === 'object' && !Array.isArray(entry) && 'API' in entry)
  );
}

export interface ParsedToolsSpec {
  readonly tools: readonly Tool[];
  readonly issues: readonly SpecIssue[];
}

/** The declarations of a FlowAgent tools spec (`root`, parsed from `file`), with every problem at once. */
export function parseFlowAgentToolsSpec(
  root: readonly unknown[],
  file: string,
  positionOf: PositionOf,
): ParsedToolsSpec {
  const issues: SpecIssue[] = [];
  const issue = (path: FieldPath, message: string) => issues.push({ path, message });
  if (root.length > MAX_SPEC_ENTRIES) {
    issue([], `lists ${root.length} APIs; at most ${MAX_SPEC_ENTRIES}`);
    return { tools: [], issues };
  }
  const tools: Tool[] = [];
  const seen = new Map<string, number>();
  root.forEach((entry, index) => {
    const path: FieldPath = [index];
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      issue(path, `expected an API entry (a map with "API"), got ${describeValue(entry)}`);
      return;
    }
    const record = entry as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if ((ENTRY_KEYS as readonly string[]).includes(key)) continue;
      const guess = closestWord(key, ENTRY_KEYS);
      issue(
        [...path, key],
        `unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}; allowed: API, API Description (or the spelling "API Desciption"), Input parameters, Output parameters`,
      );
    }
    const raw = record.API;
    if (typeof raw !== 'string' || raw.trim() === '') {
      issue(
        [...path, 'API'],
        raw === undefined
          ? 'missing required key "API" (the API\'s name)'
          : `expected the API's name, got ${describeValue(raw)}`,
      );
      return;
    }
    const name = raw.trim().split(/\s+/u).join('_');
    if (!TOOL_NAME_PATTERN.test(name)) {
      issue(
        [...path, 'API'],
        `${JSON.stringify(clip(raw, 100))} cannot be a tool name: 1-64 letters, digits, _ or - (spaces become _)`,
      );
      return;
    }
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      issue([...path, 'API'], `API "${name}" is declared twice (also entry ${earlier + 1})`);
      return;
    }
    seen.set(name, index);
    if (record['API Desciption'] !== undefined && record['API Description'] !== undefined) {
      issue([...path, 'API Description'], 'both "API Description" and "API Desciption" are given; keep one');
    }
    const descKey = record['API Description'] !== undefined ? 'API Description' : 'API Desciption';
    const description = record[descKey];
    if (description !== undefined && description !== null && typeof description !== 'string') {
      issue([...path, descKey], `expected text, got ${describeValue(description)}`);
    }
    const input = parameters(record['Input parameters'], [...path, 'Input parameters'], issue, true);
    const output = parameters(record['Output parameters'], [...path, 'Output parameters'], issue, false);
    const at = positionOf(path);
    const where = `${file}${at ? `:${at.line}` : ''}`;
    tools.push(
      declaredTool({
        name,
        description: typeof description === 'string' && description.trim() !== '' ? description.trim() : name,
        inputSchema: input,
        outputSchema: output,
        source: `tools spec ${where} (declared, no endpoint)`,
      }),
    );
  });
  return { tools, issues };
}

/** A tool with a declaration and no endpoint: calling it says so. `--simulate-apis` replaces it by a simulated one. */
export function declaredTool(declaration: {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolSchema;
  readonly outputSchema?: ToolSchema;
  readonly source: string;
}): Tool {
  return {
    ...declaration,
    // Nothing is known of what it does: a repeat is not assumed harmless.
    idempotent: false,
    declaredOnly: true,
    async call() {
      throw new WeftError(
        'TOOL',
        `${declaration.name} is declared (${declaration.source}) but has no endpoint; give a tool that calls it, or run with --simulate-apis to have a model answer it`,
      );
    },
  };
}

/** `{ name: { type, description, required } }` as a JSON Schema object (`required` from the flags when `input`). */
function parameters(
  value: unknown,
  path: FieldPath,
  issue: (path: FieldPath, message: string) => void,
  input: boolean,
): ToolSchema {
  let map = value;
  if (typeof map === 'string') {
    // Some files hold the JSON object as a quoted string.
    try {
      map = map.trim() === '' ? {} : JSON.parse(map);
    } catch (error) {
      issue(path, `expected a map of parameters, got text that is not JSON (${(error as Error).message})`);
      return { type: 'object', properties: {} };
    }
  }
  if (map === undefined || map === null) return { type: 'object', properties: {} };
  if (typeof map !== 'object' || Array.isArray(map)) {
    issue(
      path,
      `expected a map of parameter names to {type, description${input ? ', required' : ''}}, got ${describeValue(map)}`,
    );
    return { type: 'object', properties: {} };
  }
  const entries = Object.entries(map as Record<string, unknown>);
  if (entries.length > MAX_SPEC_PARAMETERS) {
    issue(path, `lists ${entries.length} parameters; at most ${MAX_SPEC_PARAMETERS}`);
    return { type: 'object', properties: {} };
  }
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [rawName, spec] of entries) {
    const name = rawName.trim();
    const at = [...path, rawName];
    if (name === '') {
      issue(at, 'a parameter needs a name');
      continue;
    }
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
      issue(at, `expected {type, description${input ? ', required' : ''}}, got ${describeValue(spec)}`);
      continue;
    }
    // The authors' files have `" description"` and `"type "`: keys are read trimmed.
    const fields = new Map<string, { key: string; value: unknown }>();
    for (const [key, field] of Object.entries(spec as Record<string, unknown>)) {
      const trimmed = key.trim();
      if (!(PARAMETER_KEYS as readonly string[]).includes(trimmed)) {
        const guess = closestWord(trimmed, PARAMETER_KEYS);
        issue(
          [...at, key],
          `unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}; allowed: ${PARAMETER_KEYS.join(', ')}`,
        );
        continue;
      }
      if (fields.has(trimmed)) {
        issue([...at, key], `"${trimmed}" is given twice (as "${fields.get(trimmed)?.key}" and "${key}")`);
        continue;
      }
      fields.set(trimmed, { key, value: field });
    }
    const property: Record<string, unknown> = {};
    const type = fields.get('type');
    if (type !== undefined) {
      const mapped = typeof type.value === 'string' ? TYPES[type.value.trim().toLowerCase()] : undefined;
      if (mapped === undefined) {
        issue(
          [...at, type.key],
          `unknown type ${JSON.stringify(type.value)}; one of: ${[...new Set(Object.keys(TYPES))].join(', ')}`,
        );
      } else property.type = mapped;
    }
    const description = fields.get('description');
    if (description !== undefined) {
      if (typeof description.value === 'string') property.description = description.value;
      else if (description.value !== null)
        issue([...at, description.key], `expected text, got ${describeValue(description.value)}`);
    }
    const enumValues = fields.get('enum');
    if (enumValues !== undefined) {
      if (Array.isArray(enumValues.value) && enumValues.value.length > 0) property.enum = enumValues.value;
      else
        issue([...at, enumValues.key], `expected a non-empty list of values, got ${describeValue(enumValues.value)}`);
    }
    const items = fields.get('items');
    if (items !== undefined) {
      if (items.value !== null && typeof items.value === 'object' && !Array.isArray(items.value))
        property.items = items.value;
      else issue([...at, items.key], `expected a schema map, got ${describeValue(items.value)}`);
    }
    const fallback = fields.get('default');
    if (fallback !== undefined) property.default = fallback.value;
    const flag = fields.get('required');
    if (flag !== undefined) {
      const truth = flag.value === true || flag.value === 'true' || flag.value === 'True';
      const falsity = flag.value === false || flag.value === 'false' || flag.value === 'False' || flag.value === null;
      if (!truth && !falsity) issue([...at, flag.key], `expected true or false, got ${describeValue(flag.value)}`);
      else if (truth && input) required.push(name);
    }
    properties[name] = property;
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}
