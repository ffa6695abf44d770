/**
 * A `tools:` section (issue 12), in a tools file or embedded in another document (a plan, a PDL file): checked
 * into tool sources, or located problems, all of them at once. Pure apart from reading `env`: modules are imported
 * and MCP servers started later (open-tool-sources.ts), so a plan parser can check its section synchronously.
 *
 * The section's container holds `tools` (a list of http, module and mcp entries) and `allowHosts` (the hosts its
 * http tools and MCP servers over HTTP may reach). Decisions:
 * - An http tool needs its host on `allowHosts`; a file without the list reaches no host (the error says what to add).
 * - `${env:NAME}` references are allowed in URLs, header values, MCP `env`, `args` and `headers`: resolved here,
 *   and an unset variable is a problem naming it (never a value).
 * - Without `body`, POST, PUT and PATCH send every argument not used in the URL or query as the JSON body; GET and
 *   DELETE send none (a GET with `body` is refused). GET tools are idempotent unless they say otherwise.
 */
import { createRequire } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import type { LocatedIssue, SourceLocation } from '../errors.js';
import { MAX_PROMPT_LENGTH } from '../graph/limits.js';
import { describeValue } from '../text/describe-value.js';
import { redactUrl } from '../text/redact-url.js';
import { closestWord } from '../text/edit-distance.js';
import { type FieldPath, formatFieldPath, type PositionOf } from '../text/source-locator.js';
import { type AllowedHost, hostEntryOf, isHostAllowed, parseAllowedHost } from './allow-hosts.js';
import { hasEnvRefs, resolveEnvRefs } from './env-refs.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  HTTP_METHODS,
  type HttpBody,
  type HttpMethod,
  type HttpToolSpec,
  type UrlPart,
} from './http-tool.js';
import type { McpServerConfig } from './mcp-config.js';
import { TOOL_NAME_PATTERN, type ToolSchema } from './tool.js';

/** Entries in one `tools:` list. */
export const MAX_TOOL_ENTRIES = 500;
const MAX_TIMEOUT_MS = 3_600_000;
/** A result cap above this would let one tool result fill a model's context many times over. */
const MAX_RESULT_BYTES_LIMIT = 10_000_000;

export const TOOL_KINDS = ['http', 'module', 'mcp'] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

const FIELDS: Readonly<Record<ToolKind, readonly string[]>> = {
  http: [
    'kind',
    'name',
    'description',
    'method',
    'url',
    'input',
    'query',
    'body',
    'headers',
    'idempotent',
    'secretArgs',
    'timeoutMs',
    'concurrency',
    'maxResponseBytes',
    'maxResultBytes',
  ],
  module: ['kind', 'path', 'exports'],
  mcp: [
    'kind',
    'name',
    'command',
    'args',
    'env',
    'cwd',
    'url',
    'headers',
    'include',
    'idempotent',
    'timeoutMs',
    'maxResultBytes',
  ],
};

/** Words people write for a field, mapped to it (lower case keys). */
const FIELD_ALIASES: Readonly<Record<string, string>> = {
  type: 'kind',
  inputschema: 'input',
  input_schema: 'input',
  parameters: 'input',
  schema: 'input',
  params: 'query',
  querystring: 'query',
  endpoint: 'url',
  file: 'path',
  module: 'path',
  export: 'exports',
  timeout: 'timeoutMs',
  timeout_ms: 'timeoutMs',
  secret: 'secretArgs',
  secrets: 'secretArgs',
  secret_args: 'secretArgs',
  tools: 'include',
  only: 'include',
  environment: 'env',
  verb: 'method',
  allowhosts: 'allowHosts',
  hosts: 'allowHosts',
  allowedhosts: 'allowHosts',
  allow_hosts: 'allowHosts',
};

const KIND_ALIASES: Readonly<Record<string, ToolKind>> = { rest: 'http', api: 'http', js: 'module', esm: 'module' };

interface SourceBase {
  /** The entry's index in `tools`. */
  readonly index: number;
  /** Where the entry is: `tools[2]`, with file, line and column when known. */
  readonly location: SourceLocation;
  readonly path: FieldPath;
  /** Where a field of the document is (for problems found when the source is opened). */
  readonly locate: (path: FieldPath) => SourceLocation;
}

export type ToolSourceSpec =
  | (SourceBase & { readonly kind: 'http'; readonly spec: HttpToolSpec })
  | (SourceBase & {
      readonly kind: 'module';
      /** Absolute. */
      readonly modulePath: string;
      /** As the file writes it. */
      readonly shownPath: string;
      readonly exports?: readonly string[];
    })
  | (SourceBase & { readonly kind: 'mcp'; readonly config: McpServerConfig });

export interface ParseToolsSectionInput {
  /** The `tools` value. */
  readonly tools: unknown;
  /** The `allowHosts` value beside it. */
  readonly allowHosts?: unknown;
  /** Where the container of both is in its document (default: the root). */
  readonly at?: FieldPath;
  readonly positionOf?: PositionOf;
  /** The document's name in locations and `source` (as the user wrote it). */
  readonly file?: string;
  /** Relative module paths and MCP working directories resolve against it (the document's folder). */
  readonly baseDir: string;
  /** Where `${env:NAME}` is looked up (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface ParsedToolsSection {
  readonly sources: readonly ToolSourceSpec[];
  /** Every problem, located; the sources are usable only when this is empty. */
  readonly issues: readonly LocatedIssue[];
}

type Issue = (path: FieldPath, message: string) => void;

export function parseToolsSection(input: ParseToolsSectionInput): ParsedToolsSection {
  const at = input.at ?? [];
  const env = input.env ?? process.env;
  const issues: LocatedIssue[] = [];
  const locationOf = (path: FieldPath): SourceLocation => {
    const position = input.positionOf?.(path);
    const field = formatFieldPath(path);
    return {
      ...(input.file === undefined ? {} : { file: input.file }),
      ...(position ?? {}),
      ...(field === undefined ? {} : { field }),
    };
  };
  const issue: Issue = (path, message) => issues.push({ ...locationOf(path), message });

  const allowHosts = parseAllowHosts(input.allowHosts, [...at, 'allowHosts'], issue);
  const listPath = [...at, 'tools'];
  const sources: ToolSourceSpec[] = [];
  if (!Array.isArray(input.tools)) {
    issue(
      listPath,
      input.tools === undefined
        ? 'missing required field "tools" (a list of http, module and mcp entries)'
        : `expected a list of tool entries, got ${describeValue(input.tools)}`,
    );
    return { sources, issues };
  }
  if (input.tools.length > MAX_TOOL_ENTRIES) {
    issue(listPath, `lists ${input.tools.length} entries; at most ${MAX_TOOL_ENTRIES}`);
    return { sources, issues };
  }
  const context: EntryContext = {
    issue,
    env,
    allowHosts,
    baseDir: input.baseDir,
    file: input.file,
    locationOf,
    issueCount: () => issues.length,
  };
  const names = new Map<string, FieldPath>();
  const servers = new Map<string, FieldPath>();
  input.tools.forEach((entry: unknown, index) => {
    const path = [...listPath, index];
    const source = parseEntry(entry, index, path, context);
    // Names are compared as written, so an entry with other problems still reveals a duplicate.
    const record = (entry ?? {}) as Record<string, unknown>;
    const [seen, label] =
      record.kind === 'http' ? [names, 'tool'] : record.kind === 'mcp' ? [servers, 'MCP server'] : [undefined, ''];
    if (seen && typeof record.name === 'string') {
      const earlier = seen.get(record.name);
      if (earlier) {
        issue([...path, 'name'], `duplicate ${label} name "${record.name}" (also ${formatFieldPath(earlier)})`);
        return;
      }
      seen.set(record.name, path);
    }
    if (source) sources.push(source);
  });
  return { sources, issues };
}

interface EntryContext {
  readonly issue: Issue;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly allowHosts: readonly AllowedHost[] | undefined;
  readonly baseDir: string;
  readonly file: string | undefined;
  readonly locationOf: (path: FieldPath) => SourceLocation;
  /** Problems so far: an entry with a problem yields no source. */
  readonly issueCount: () => number;
}

function parseAllowHosts(value: unknown, path: FieldPath, issue: Issue): AllowedHost[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    issue(path, `expected a list of hosts (e.g. [127.0.0.1, "api.example.com:443"]), got ${describeValue(value)}`);
    return [];
  }
  const hosts: AllowedHost[] = [];
  value.forEach((entry: unknown, index) => {
    if (typeof entry !== 'string' && typeof entry !== 'number') {
      issue([...path, index], `expected a host, got ${describeValue(entry)}`);
      return;
    }
    const parsed = parseAllowedHost(String(entry));
    if (typeof parsed === 'string') issue([...path, index], parsed);
    else hosts.push(parsed);
  });
  return hosts;
}

/** Problems for the keys of `record` not in `allowed`, with a guess at what was meant. */
export function unknownKeyIssues(
  record: Readonly<Record<string, unknown>>,
  allowed: readonly string[],
  path: FieldPath,
  what = 'field',
): { path: FieldPath; message: string }[] {
  const byLower = new Map(allowed.map((field) => [field.toLowerCase(), field]));
  const aliases = Object.fromEntries(
    Object.entries(FIELD_ALIASES)
      .filter(([, field]) => allowed.includes(field))
      .map(([alias, field]) => [alias, field.toLowerCase()]),
  );
  return Object.keys(record)
    .filter((key) => !allowed.includes(key))
    .map((key) => {
      const guess = closestWord(key, [...byLower.keys()], aliases);
      const suggestion = guess === undefined ? '' : ` (did you mean "${byLower.get(guess)}"?)`;
      return { path: [...path, key], message: `unknown ${what} "${key}"${suggestion}; allowed: ${allowed.join(', ')}` };
    });
}

function parseEntry(entry: unknown, index: number, path: FieldPath, context: EntryContext): ToolSourceSpec | undefined {
  const { issue } = context;
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    issue(path, `expected a tool entry (an object with "kind"), got ${describeValue(entry)}`);
    return undefined;
  }
  const record = entry as Record<string, unknown>;
  const kind = record.kind;
  if (kind === undefined) {
    issue(path, `missing required field "kind" (${TOOL_KINDS.join(', ')})`);
    return undefined;
  }
  if (typeof kind !== 'string' || !(TOOL_KINDS as readonly string[]).includes(kind)) {
    const guess = typeof kind === 'string' ? closestWord(kind, TOOL_KINDS, KIND_ALIASES) : undefined;
    issue(
      [...path, 'kind'],
      `unknown kind ${JSON.stringify(kind)}${guess ? ` (did you mean "${guess}"?)` : ''}; one of: ${TOOL_KINDS.join(', ')}`,
    );
    return undefined;
  }
  const before = context.issueCount();
  for (const problem of unknownKeyIssues(record, FIELDS[kind as ToolKind], path)) issue(problem.path, problem.message);
  const base = { index, path, location: context.locationOf(path), locate: context.locationOf };
  const fields = new Fields(record, path, context);
  const source =
    kind === 'http'
      ? parseHttp(fields, base, context)
      : kind === 'module'
        ? parseModule(fields, base, context)
        : parseMcp(fields, base, context);
  return context.issueCount() === before ? source : undefined;
}

/** Typed reads of an entry's fields, each reporting its own problem at its path. */
class Fields {
  constructor(
    readonly record: Readonly<Record<string, unknown>>,
    readonly path: FieldPath,
    private readonly context: EntryContext,
  ) {}

  problem(field: string | FieldPath, message: string): void {
    this.context.issue([...this.path, ...(typeof field === 'string' ? [field] : field)], message);
  }

  has(field: string): boolean {
    return this.record[field] !== undefined;
  }

  string(field: string, { required = false, max = 2048 } = {}): string | undefined {
    const value = this.record[field];
    if (value === undefined) {
      if (required) this.problem(field, `missing required field "${field}"`);
      return undefined;
    }
    if (typeof value !== 'string') {
      this.problem(field, `expected a string, got ${describeValue(value)}`);
      return undefined;
    }
    if (value.trim() === '') {
      this.problem(field, 'must not be empty');
      return undefined;
    }
    if (value.length > max) {
      this.problem(field, `is ${value.length} characters long; at most ${max}`);
      return undefined;
    }
    return value;
  }

  boolean(field: string): boolean | undefined {
    const value = this.record[field];
    if (value === undefined || typeof value === 'boolean') return value;
    this.problem(field, `expected true or false, got ${describeValue(value)}`);
    return undefined;
  }

  integer(field: string, min: number, max: number): number | undefined {
    const value = this.record[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.problem(
        field,
        `expected a whole number from ${min} to ${max}, got ${JSON.stringify(value) ?? describeValue(value)}`,
      );
      return undefined;
    }
    return value;
  }

  stringList(field: string): string[] | undefined {
    const value = this.record[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.problem(field, `expected a list of strings, got ${describeValue(value)}`);
      return undefined;
    }
    const strings: string[] = [];
    value.forEach((item: unknown, index) => {
      if (typeof item === 'string' && item !== '') strings.push(item);
      else this.problem([field, index], `expected a non-empty string, got ${describeValue(item)}`);
    });
    return strings;
  }

  stringMap(field: string): Record<string, string> | undefined {
    const value = this.record[field];
    if (value === undefined) return undefined;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.problem(field, `expected a map of names to strings, got ${describeValue(value)}`);
      return undefined;
    }
    const map: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') map[key] = String(item);
      else this.problem([field, key], `expected a string, got ${describeValue(item)}`);
    }
    return map;
  }

  /** `${env:NAME}` resolved; problems name the variable only. */
  resolve(fieldPath: FieldPath, text: string, secrets: string[]): string | undefined {
    if (!hasEnvRefs(text)) return text;
    const resolved = resolveEnvRefs(text, this.context.env);
    if (!resolved.ok) {
      for (const message of resolved.problems) this.problem(fieldPath, message);
      return undefined;
    }
    secrets.push(...resolved.secrets);
    return resolved.value;
  }

  /** A map's values with references resolved (header values, MCP env). */
  resolveMap(field: string, map: Record<string, string>, secrets: string[]): Record<string, string> {
    const resolved: Record<string, string> = {};
    for (const [key, value] of Object.entries(map)) {
      const text = this.resolve([field, key], value, secrets);
      if (text !== undefined) resolved[key] = text;
    }
    return resolved;
  }

  name(field = 'name'): string | undefined {
    const name = this.string(field, { required: true, max: 64 });
    if (name !== undefined && !TOOL_NAME_PATTERN.test(name)) {
      this.problem(field, `"${name}" must be 1-64 letters, digits, _ or - (what models accept as a function name)`);
      return undefined;
    }
    return name;
  }

  hostAllowed(field: string, url: URL, shown: string): boolean {
    const allowHosts = this.context.allowHosts;
    if (allowHosts && isHostAllowed(url, allowHosts)) return true;
    const entry = hostEntryOf(url);
    this.problem(
      field,
      allowHosts
        ? `the host of ${shown} (${entry}) is not on allowHosts (${allowHosts.map((host) => (host.port ? `${host.host}:${host.port}` : host.host)).join(', ') || 'empty'})`
        : `${shown} reaches ${entry}, but no allowHosts list is given: add allowHosts: [${JSON.stringify(entry)}] beside tools`,
    );
    return false;
  }

  location(): SourceLocation {
    return this.context.locationOf(this.path);
  }
}

function shownLocation(location: SourceLocation): string {
  return [location.file ?? 'tools', location.line].filter((part) => part !== undefined).join(':');
}

function parseHttp(fields: Fields, base: SourceBase, context: EntryContext): ToolSourceSpec | undefined {
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

/**
 * A URL as it may be shown: its password and secret query parameters removed (redactUrl). `${env:…}` references
 * are kept where they do not stand for a password, so the listing still says which variable a URL reads.
 */
export function displayUrl(url: string): string {
  const references: string[] = [];
  const masked = url.replace(/\$\{env:[^}]*\}/g, (reference) => `WEFTENVREF${references.push(reference) - 1}X`);
  return redactUrl(masked).display.replace(
    /WEFTENVREF(\d+)X/g,
    (_match, index: string) => references[Number(index)] ?? '',
  );
}

/**
 * Header names, and values as fetch will take them, checked at load time: fetch's own error would quote the value, which may
 * be a secret. The message names the header only.
 */
function checkHeaderValues(fields: Fields, headers: Readonly<Record<string, string>>): void {
  for (const [key, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) {
      fields.problem(['headers', key], `"${key}" is not a header name`);
      continue;
    }
    try {
      new Headers().set(key, value);
    } catch {
      fields.problem(
        ['headers', key],
        'is not a valid header value (after ${env:…} is resolved): no line breaks, NUL or characters past U+00FF',
      );
    }
  }
}

function parseInputSchema(fields: Fields): ToolSchema | undefined {
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
function schemaProblem(schema: ToolSchema): string | undefined {
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

function parseModule(fields: Fields, base: SourceBase, context: EntryContext): ToolSourceSpec | undefined {
  const shownPath = fields.string('path', { required: true });
  const exports = fields.stringList('exports');
  if (exports && new Set(exports).size !== exports.length) fields.problem('exports', 'lists an export twice');
  if (shownPath === undefined) return undefined;
  return {
    ...base,
    kind: 'module',
    shownPath,
    modulePath: isAbsolute(shownPath) ? shownPath : resolve(context.baseDir, shownPath),
    ...(exports ? { exports } : {}),
  };
}

function parseMcp(fields: Fields, base: SourceBase, context: EntryContext): ToolSourceSpec | undefined {
  const name = fields.name();
  const command = fields.string('command');
  const urlText = fields.string('url');
  const include = fields.stringList('include');
  const idempotent = fields.stringList('idempotent');
  const maxResultBytes = fields.integer('maxResultBytes', 1, MAX_RESULT_BYTES_LIMIT);
  const timeoutMs = fields.integer('timeoutMs', 1, MAX_TIMEOUT_MS);
  const secrets: string[] = [];
  if (!fields.has('command') && !fields.has('url')) {
    fields.problem([], 'an mcp entry needs "command" (a server over stdio) or "url" (Streamable HTTP)');
  } else if (fields.has('command') && fields.has('url')) {
    fields.problem('url', 'give "command" (stdio) or "url" (Streamable HTTP), not both');
  }
  for (const field of fields.has('url') ? ['args', 'env', 'cwd'] : ['headers']) {
    if (fields.has(field)) {
      fields.problem(
        field,
        `"${field}" is for MCP servers ${fields.has('url') ? 'over stdio (command)' : 'over HTTP (url)'}`,
      );
    }
  }
  let transport: McpServerConfig['transport'] | undefined;
  if (command !== undefined && !fields.has('url')) {
    const argsTemplates = fields.stringList('args') ?? [];
    const args = argsTemplates.map((arg, index) => fields.resolve(['args', index], arg, secrets) ?? '');
    const env = fields.resolveMap('env', fields.stringMap('env') ?? {}, secrets);
    const cwdText = fields.string('cwd');
    const cwd = cwdText === undefined ? context.baseDir : resolve(context.baseDir, cwdText);
    transport = { type: 'stdio', command, args, env, cwd };
  } else if (urlText !== undefined && !fields.has('command')) {
    const resolvedUrl = fields.resolve(['url'], urlText, secrets);
    const headers = fields.resolveMap('headers', fields.stringMap('headers') ?? {}, secrets);
    checkHeaderValues(fields, headers);
    if (resolvedUrl !== undefined) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(resolvedUrl);
      } catch {
        fields.problem('url', `${displayUrl(urlText)} is not a valid URL`);
      }
      if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        fields.problem('url', `${displayUrl(urlText)}: only http and https URLs`);
      } else if (parsed && fields.hostAllowed('url', parsed, displayUrl(urlText))) {
        transport = { type: 'http', url: resolvedUrl, headers };
      }
    }
  }
  if (!name || !transport) return undefined;
  const location = fields.location();
  return {
    ...base,
    kind: 'mcp',
    config: {
      name,
      transport,
      ...(include ? { include } : {}),
      ...(idempotent ? { idempotent } : {}),
      ...(maxResultBytes !== undefined ? { maxResultBytes } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      declaredAt: [location.file, location.line, location.column].filter((part) => part !== undefined).join(':'),
    },
  };
}
