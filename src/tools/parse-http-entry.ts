/** An `http` entry of a tools section: its method, URL template, arguments' schema, query, body and headers. */
import { createRequire } from 'node:module';
import { MAX_PROMPT_LENGTH } from '../graph/limits.js';
import { describeValue } from '../text/describe-value.js';
import { closestWord } from '../text/edit-distance.js';
import type { FieldPath } from '../text/source-locator.js';
import { DEFAULT_MAX_RESPONSE_BYTES, HTTP_METHODS, type HttpBody, type HttpMethod, type UrlPart } from './http-tool.js';
import type { ToolSchema } from './tool.js';
import {
  checkHeaderValues,
  displayUrl,
  type EntryContext,
  type Fields,
  MAX_RESULT_BYTES_LIMIT,
  MAX_TIMEOUT_MS,
  shownLocation,
  type SourceBase,
  type ToolSourceSpec,
} from './tool-entry-fields.js';

export function parseHttpEntry(fields: Fields, base: SourceBase, context: EntryContext): ToolSourceSpec | undefined {
  const name = fields.name();
  const description = fields.string('description', { required: true, max: MAX_PROMPT_LENGTH });
  const methodText = fields.record.method ?? 'GET';
  let method: HttpMethod | undefined;
  if (typeof methodText === 'string' && (HTTP_METHODS as readonly string[]).includes(methodText.toUpperCase())) {
    method = methodText.toUpperCase() as HttpMethod;
  } else {
    fields.problem('method', `expected one of ${HTTP_METHODS.join(', ')}, got ${JSON.stringify(methodText)}`);
  }
  const inputSchema = parseInputSchema(fields);
  const properties = propertiesOf(inputSchema);
  const required = new Set(Array.isArray(inputSchema?.required) ? (inputSchema.required as unknown[]) : []);
  const checkArg = (field: FieldPath, arg: string, role: string): void => {
    if (properties && !properties.has(arg)) {
      const guess = closestWord(
        arg,
        [...properties].map((key) => key.toLowerCase()),
      );
      fields.problem(
        field,
        `${role} "${arg}" is not an argument in input.properties${guess ? ` (did you mean "${[...properties].find((key) => key.toLowerCase() === guess)}"?)` : ''}`,
      );
    }
  };

  const secrets: string[] = [];
  const urlTemplate = fields.string('url', { required: true });
  const url = urlTemplate === undefined ? undefined : parseUrlTemplate(fields, urlTemplate, secrets);
  if (url && inputSchema) {
    for (const arg of url.args) {
      checkArg(['url'], arg, 'the URL uses argument');
      if (properties?.has(arg) && !required.has(arg)) {
        fields.problem('url', `the URL uses argument "${arg}": list it in input.required (a URL cannot leave it out)`);
      }
    }
  }

  const query: Record<string, string> = {};
  const queryValue = fields.record.query;
  if (Array.isArray(queryValue)) {
    for (const arg of fields.stringList('query') ?? []) query[arg] = arg;
  } else if (queryValue !== undefined) {
    Object.assign(query, fields.stringMap('query') ?? {});
  }
  for (const [parameter, arg] of Object.entries(query)) checkArg(['query', parameter], arg, 'query parameter maps');

  let body: HttpBody = method === 'GET' || method === 'DELETE' ? { kind: 'none' } : { kind: 'rest' };
  const bodyValue = fields.record.body;
  if (bodyValue !== undefined) {
    if (method === 'GET') fields.problem('body', 'a GET request has no body; use query');
    else if (bodyValue === 'args') body = { kind: 'rest' };
    else if (bodyValue === false || bodyValue === 'none') body = { kind: 'none' };
    else if (Array.isArray(bodyValue)) {
      const names = fields.stringList('body') ?? [];
      names.forEach((arg, index) => checkArg(['body', index], arg, 'the body uses'));
      body = { kind: 'args', names };
    } else {
      fields.problem(
        'body',
        `expected a list of arguments, "args" (all the rest) or "none", got ${describeValue(bodyValue)}`,
      );
    }
  }

  const headerTemplates = fields.stringMap('headers') ?? {};
  const headers = fields.resolveMap('headers', headerTemplates, secrets);
  checkHeaderValues(fields, headers);

  const secretArgs = fields.stringList('secretArgs');
  secretArgs?.forEach((arg, index) => checkArg(['secretArgs', index], arg, 'secret argument'));
  const idempotent = fields.boolean('idempotent');
  const timeoutMs = fields.integer('timeoutMs', 1, MAX_TIMEOUT_MS);
  const concurrency = fields.integer('concurrency', 1, 10_000);
  const maxResponseBytes = fields.integer('maxResponseBytes', 1, 100_000_000) ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxResultBytes = fields.integer('maxResultBytes', 1, MAX_RESULT_BYTES_LIMIT);

  if (!name || description === undefined || !method || !inputSchema || !url) return undefined;
  const location = fields.location();
  return {
    ...base,
    kind: 'http',
    spec: {
      name,
      description,
      method,
      urlTemplate: url.display,
      urlParts: url.parts,
      ...(url.basicAuth !== undefined ? { basicAuth: url.basicAuth } : {}),
      inputSchema,
      query,
      body,
      headers,
      idempotent: idempotent ?? method === 'GET',
      ...(secretArgs && secretArgs.length > 0 ? { secretArgs } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
      maxResponseBytes,
      ...(maxResultBytes !== undefined ? { maxResultBytes } : {}),
      allowHosts: context.allowHosts ?? [],
      secrets: [...new Set(secrets)],
      source: `http ${method} ${url.display} (${shownLocation(location)})`,
    },
  };
}

const PLACEHOLDER = /\{([^{}$]*)\}/g;

/**
 * The URL template's parts: literal text (references resolved) and `{arg}`s, which may stand only after the host
 * (in the path or query), so no argument can change where the request goes.
 */
function parseUrlTemplate(
  fields: Fields,
  template: string,
  secrets: string[],
): { parts: UrlPart[]; args: string[]; display: string; basicAuth?: string } | undefined {
  const parts: UrlPart[] = [];
  const args: string[] = [];
  let last = 0;
  let ok = true;
  // `${env:NAME}` braces are not arguments: mask them while finding `{arg}`s.
  const masked = template.replace(/\$\{[^}]*\}/g, (match) => '\u0000'.repeat(match.length));
  for (const match of masked.matchAll(PLACEHOLDER)) {
    const arg = match[1]!;
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(arg)) {
      fields.problem('url', `"{${arg}}" is not an argument name`);
      ok = false;
      continue;
    }
    parts.push({ text: template.slice(last, match.index) }, { arg });
    args.push(arg);
    last = match.index + match[0].length;
  }
  parts.push({ text: template.slice(last) });
  if (!ok) return undefined;
  // Literal parts, references resolved.
  const resolved: UrlPart[] = [];
  for (const part of parts) {
    if ('arg' in part) resolved.push(part);
    else {
      const text = fields.resolve(['url'], part.text, secrets);
      if (text === undefined) return undefined;
      resolved.push({ text });
    }
  }
  const display = displayUrl(template);
  const head = (resolved[0] as { text: string }).text;
  const authority = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([/?#].*)?$/is.exec(head);
  if (!authority) {
    fields.problem('url', `${display} is not an http(s) URL`);
    return undefined;
  }
  if (authority[3] === undefined && resolved.length > 1) {
    fields.problem('url', `${display}: arguments may stand in the path and query only, after the host and a "/"`);
    return undefined;
  }
  let basicAuth: string | undefined;
  let hostPart = authority[2]!;
  const at = hostPart.lastIndexOf('@');
  if (at >= 0) {
    const userInfo = hostPart.slice(0, at);
    hostPart = hostPart.slice(at + 1);
    try {
      const [user = '', ...rest] = userInfo.split(':');
      basicAuth = `${decodeURIComponent(user)}:${decodeURIComponent(rest.join(':'))}`;
    } catch {
      fields.problem('url', `${display}: the user and password are not valid percent-encoded text`);
      return undefined;
    }
    secrets.push(userInfo);
  }
  resolved[0] = { text: `${authority[1]}${hostPart}${authority[3] ?? ''}` };
  // Checked with every argument filled in by a plain value.
  const sample = resolved.map((part) => ('arg' in part ? 'x' : part.text)).join('');
  let parsed: URL;
  try {
    parsed = new URL(sample);
  } catch {
    fields.problem('url', `${display} is not a valid URL`);
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    fields.problem('url', `${display}: only http and https URLs`);
    return undefined;
  }
  const rawPath = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(sample)?.[1] ?? '';
  if ((rawPath || '/') !== parsed.pathname) {
    fields.problem('url', `${display}: write the path as URLs normalise it (${parsed.pathname})`);
    return undefined;
  }
  if (!fields.hostAllowed('url', parsed, display)) return undefined;
  return { parts: resolved, args, display, ...(basicAuth !== undefined ? { basicAuth } : {}) };
}

/** `input`: a JSON Schema of `type: object` (default: no arguments), checked by ajv. */
export function parseInputSchema(fields: Fields): ToolSchema | undefined {
  const value = fields.record.input;
  if (value === undefined) return { type: 'object', properties: {}, additionalProperties: false };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fields.problem(
      'input',
      `expected a JSON Schema object ({ type: object, properties: {…} }), got ${describeValue(value)}`,
    );
    return undefined;
  }
  const schema = value as ToolSchema;
  if (schema.type !== 'object') {
    fields.problem('input', 'must be a JSON Schema with type: object (tools take named arguments)');
    return undefined;
  }
  const problem = schemaProblem(schema);
  if (problem !== undefined) {
    fields.problem('input', `is not a valid JSON Schema: ${problem}`);
    return undefined;
  }
  return schema;
}

function propertiesOf(schema: ToolSchema | undefined): Set<string> | undefined {
  if (!schema) return undefined;
  const properties = schema.properties;
  return new Set(properties !== null && typeof properties === 'object' ? Object.keys(properties) : []);
}

type AjvLike = { compile(schema: object): unknown };
let ajvs: { draft07: AjvLike; draft2020: AjvLike } | undefined;

/**
 * Why ajv cannot compile the schema, or undefined. Loaded on first use and synchronously (ajv is CommonJS), so the
 * section can be checked inside a synchronous parser.
 */
export function schemaProblem(schema: ToolSchema): string | undefined {
  if (!ajvs) {
    const require = createRequire(import.meta.url);
    const load = (id: string): AjvLike => {
      const module = require(id) as { default?: unknown };
      const Class = (module.default ?? module) as new (options: object) => AjvLike;
      // Strict about the schema's own structure (an unknown type, a misspelt keyword's value), as validate-args.ts is
      // not: its schemas come from others; these are written in this file.
      return new Class({ strict: false, validateFormats: false, logger: false, allErrors: true });
    };
    ajvs = { draft07: load('ajv'), draft2020: load('ajv/dist/2020.js') };
  }
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  const ajv = /draft-0[4-7]/.test(declared) ? ajvs.draft07 : ajvs.draft2020;
  try {
    // `$id`s would clash in the shared instance across tools: compiled without them (the check is structural).
    const { $id: _id, ...rest } = schema;
    ajv.compile(rest);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
