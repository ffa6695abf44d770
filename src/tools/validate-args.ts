/**
 * Checks a tool's arguments against its input schema with ajv 8, before the tool runs, so that a model's bad call
 * comes back as a message naming the argument and what was expected (`get_order: argument "orderId" must be string
 * (got number)`), which the model can act on. ajv is loaded on first use (it is heavy and `import 'weft'` must stay
 * fast); each schema is compiled once and cached by its object.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { type LocatedIssue, WeftError } from '../errors.js';
import type { JsonValue, Tool, ToolSchema } from './tool.js';

/** Problems listed in one message: a model that sends 200 wrong fields needs the first few, not all. */
export const MAX_ARGUMENT_PROBLEMS = 10;

interface AjvLike {
  compile(schema: object): ValidateFunction;
}
type AjvClass = new (options: Record<string, unknown>) => AjvLike;

interface Loaded {
  readonly draft07: AjvClass;
  readonly draft2020: AjvClass;
  readonly regExp: PatternEngine;
}

let ajvClasses: Promise<Loaded> | undefined;
const shared = new Map<AjvClass, AjvLike>();
const compiled = new WeakMap<object, ValidateFunction>();

function loadAjv(): Promise<Loaded> {
  ajvClasses ??= Promise.all([import('ajv'), import('ajv/dist/2020.js'), import('re2js')]).then(
    ([draft07, draft2020, re2js]) => ({
      draft07: classOf(draft07),
      draft2020: classOf(draft2020),
      regExp: linearPatterns(re2js.RE2JS),
    }),
  );
  return ajvClasses;
}

/** ajv's `code.regExp`: builds what `pattern` and `patternProperties` test strings with. */
interface PatternEngine {
  (pattern: string, flags: string): { test(text: string): boolean };
  code: string;
}

/**
 * Schema patterns run on RE2 (re2js: linear time), never on V8's backtracking engine: a pattern like `^(a+)+$` from
 * an MCP server or a module, and 40 characters of a model's argument, would block the event loop for minutes, past
 * every deadline. A pattern RE2 cannot run (lookaround, backreferences) is not checked here; the tool checks its own
 * arguments anyway.
 */
function linearPatterns(RE2JS: typeof import('re2js').RE2JS): PatternEngine {
  const engine = (pattern: string, flags: string) => {
    // ajv caches compiled patterns by their text: each must print as itself.
    const text = `/${pattern}/${flags}`;
    try {
      const compiledPattern = RE2JS.compile(pattern);
      return { test: (value: string) => compiledPattern.test(value), toString: () => text };
    } catch {
      return { test: () => true, toString: () => `${text} (not checked: RE2 cannot run it)` };
    }
  };
  return Object.assign(engine, { code: 'RE2JS' });
}

// ajv is CommonJS: its class is `default`, or `default.default` depending on how the loader wraps it.
function classOf(module: unknown): AjvClass {
  const first = (module as { default?: unknown }).default ?? module;
  const second = (first as { default?: unknown }).default;
  return (typeof second === 'function' ? second : first) as AjvClass;
}

const AJV_OPTIONS = {
  allErrors: true,
  // Tool schemas come from MCP servers and other people's modules: unknown keywords and formats are not ours to
  // reject, and format checking would need a further package.
  strict: false,
  validateFormats: false,
  logger: false,
};

/**
 * The compiled validator of a schema (cached). A schema ajv cannot compile is the tool author's error: BAD_INPUT
 * naming the tool.
 */
export async function compileToolSchema(toolName: string, schema: ToolSchema): Promise<ValidateFunction> {
  const cached = compiled.get(schema);
  if (cached) return cached;
  const { draft07, draft2020, regExp } = await loadAjv();
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  // Without `$schema`, 2020-12 (what zod and MCP emit); older drafts by their declared URI.
  const Ajv = /draft-0[4-7]/.test(declared) ? draft07 : draft2020;
  // A schema with an `$id` gets its own instance: a second tool with the same `$id` would clash in a shared one.
  let ajv = shared.get(Ajv);
  if (typeof schema.$id === 'string' || !ajv) {
    const fresh = new Ajv({ ...AJV_OPTIONS, code: { regExp } });
    if (typeof schema.$id !== 'string') shared.set(Ajv, fresh);
    ajv = fresh;
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema as object);
  } catch (error) {
    throw new WeftError(
      'BAD_INPUT',
      `Tool "${toolName}" has an invalid input schema: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error, location: { field: 'inputSchema' } },
    );
  }
  compiled.set(schema, validate);
  return validate;
}

/**
 * Throws `WeftError('TOOL')` when `args` do not match the tool's input schema: the message lists the problems
 * (at most MAX_ARGUMENT_PROBLEMS), each naming the argument's path; `issues` holds them one by one.
 */
export async function validateToolArgs(tool: Pick<Tool, 'name' | 'inputSchema'>, args: JsonValue): Promise<void> {
  check(tool.name, await compileToolSchema(tool.name, tool.inputSchema), args);
}

/**
 * validateToolArgs without a promise once the schema is compiled (every call of a tool after its first): it
 * returns a promise only when the schema still has to be compiled, and throws the same errors.
 */
export function checkToolArgs(tool: Pick<Tool, 'name' | 'inputSchema'>, args: JsonValue): Promise<void> | undefined {
  const validate = compiled.get(tool.inputSchema);
  if (!validate) return validateToolArgs(tool, args);
  check(tool.name, validate, args);
  return undefined;
}

function check(toolName: string, validate: ValidateFunction, args: JsonValue): void {
  if (validate(args)) return;
  const problems = (validate.errors ?? []).map((error) => describeProblem(error, args));
  throw argumentError(toolName, problems);
}

/** The TOOL error for a list of argument problems (also used for problems found by a zod schema). */
export function argumentError(toolName: string, problems: readonly LocatedIssue[]): WeftError {
  const unique = dedupe(problems);
  const shown = unique.slice(0, MAX_ARGUMENT_PROBLEMS).map((problem) => problem.message);
  const more = unique.length - shown.length;
  const list = shown.join('; ') + (more > 0 ? `; … and ${more} more` : '');
  const head = unique.length === 1 ? `${toolName}: ` : `${toolName}: ${unique.length} problems with the arguments: `;
  return new WeftError('TOOL', `${head}${list || 'invalid arguments'}`, { issues: unique });
}

function dedupe(problems: readonly LocatedIssue[]): LocatedIssue[] {
  const seen = new Set<string>();
  return problems.filter((problem) => !seen.has(problem.message) && seen.add(problem.message) !== undefined);
}

/** `/items/0/sku` → `items[0].sku`. */
export function argumentPath(segments: readonly (string | number)[]): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number' || /^\d+$/.test(segment)) path += `[${segment}]`;
    else path += path ? `.${segment}` : segment;
  }
  return path;
}

function pointerSegments(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(root: JsonValue, segments: readonly string[]): unknown {
  let value: unknown = root;
  for (const segment of segments) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** JSON Schema's name for a value's type (every number is a `number`: "must be string (got integer)" puzzles). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function describeProblem(error: ErrorObject, args: JsonValue): LocatedIssue {
  const segments = pointerSegments(error.instancePath);
  const field = argumentPath(segments);
  const subject = field ? `argument "${field}"` : 'the arguments';
  const got = valueAt(args, segments);
  const params = error.params as Record<string, unknown>;
  const child = (name: unknown): string => argumentPath([...segments, String(name)]);
  switch (error.keyword) {
    case 'required':
      return {
        field: child(params.missingProperty),
        message: `missing required argument "${child(params.missingProperty)}"`,
      };
    case 'additionalProperties':
      return {
        field: child(params.additionalProperty),
        message: `unknown argument "${child(params.additionalProperty)}"`,
      };
    case 'type':
      return {
        field,
        message: `${subject} must be ${String(params.type).replace(/,/g, ' or ')} (got ${jsonTypeOf(got)})`,
      };
    case 'enum':
      return {
        field,
        message: `${subject} must be one of ${(params.allowedValues as unknown[]).map(brief).join(', ')} (got ${brief(got)})`,
      };
    case 'const':
      return { field, message: `${subject} must be ${brief(params.allowedValue)} (got ${brief(got)})` };
    default:
      return { field, message: `${subject} ${error.message ?? `fails "${error.keyword}"`} (got ${brief(got)})` };
  }
}
