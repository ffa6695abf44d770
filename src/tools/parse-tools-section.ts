/**
 * A `tools:` section, in a tools file or embedded in another document (a plan, a PDL file): checked
 * into tool sources, or located problems, all of them at once. Pure apart from reading `env`: modules are imported
 * and MCP servers started later (open-tool-sources.ts), so a plan parser can check its section synchronously.
 *
 * The section's container holds `tools` (a list of http, module, mcp, workflow and simulated entries) and `allowHosts` (the hosts its
 * http tools and MCP servers over HTTP may reach). Decisions:
 * - An http tool needs its host on `allowHosts`; a file without the list reaches no host (the error says what to add).
 * - `${env:NAME}` references are allowed in URLs, header values, MCP `env`, `args` and `headers`: resolved here,
 *   and an unset variable is a problem naming it (never a value).
 * - Without `body`, POST, PUT and PATCH send every argument not used in the URL or query as the JSON body; GET and
 *   DELETE send none (a GET with `body` is refused). GET tools are idempotent unless they say otherwise.
 */
import { isAbsolute, resolve } from 'node:path';
import type { LocatedIssue, SourceLocation } from '../errors.js';
import { describeValue } from '../text/describe-value.js';
import { closestWord } from '../text/edit-distance.js';
import { type FieldPath, formatFieldPath, type PositionOf } from '../text/source-locator.js';
import { type AllowedHost, parseAllowedHost } from './allow-hosts.js';
import { parseHttpEntry } from './parse-http-entry.js';
import { parseMcpEntry } from './parse-mcp-entry.js';
import { parseSimulatedEntry } from './parse-simulated-entry.js';
import { parseWorkflowEntry } from './parse-workflow-entry.js';
import { type EntryContext, Fields, type Issue, type SourceBase, type ToolSourceSpec } from './tool-entry-fields.js';

/** Entries in one `tools:` list. */
export const MAX_TOOL_ENTRIES = 500;
export const TOOL_KINDS = ['http', 'module', 'mcp', 'workflow', 'simulated'] as const;
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
  simulated: ['kind', 'name', 'description', 'input', 'output', 'timeoutMs', 'maxResultBytes'],
  workflow: [
    'kind',
    'name',
    'description',
    'file',
    'tools',
    'timeoutMs',
    'maxVisits',
    'idempotent',
    'secretArgs',
    'concurrency',
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
  path: 'file',
  workflow: 'file',
  uses: 'tools',
  toolsfile: 'tools',
  tools_file: 'tools',
  max_visits: 'maxVisits',
  visits: 'maxVisits',
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

const KIND_ALIASES: Readonly<Record<string, ToolKind>> = {
  rest: 'http',
  api: 'http',
  js: 'module',
  esm: 'module',
  flow: 'workflow',
  distilled: 'workflow',
  simulate: 'simulated',
  mock: 'simulated',
  fake: 'simulated',
  llm: 'simulated',
};

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
        ? 'missing required field "tools" (a list of http, module, mcp and workflow entries)'
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
      record.kind === 'http' || record.kind === 'workflow'
        ? [names, 'tool']
        : record.kind === 'mcp'
          ? [servers, 'MCP server']
          : [undefined, ''];
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
      ? parseHttpEntry(fields, base, context)
      : kind === 'module'
        ? parseModule(fields, base, context)
        : kind === 'mcp'
          ? parseMcpEntry(fields, base, context)
          : kind === 'simulated'
            ? parseSimulatedEntry(fields, base)
            : parseWorkflowEntry(fields, base, context);
  return context.issueCount() === before ? source : undefined;
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
