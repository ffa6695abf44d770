/**
 * What the parsers of a tools section's entries share (parse-tools-section.ts, parse-http-entry.ts,
 * parse-mcp-entry.ts): the parsed source's shape, typed reads of an entry's fields that report their own located
 * problems, and the checks http and mcp entries both make.
 */
import type { SourceLocation } from '../errors.js';
import { describeValue } from '../text/describe-value.js';
import { redactUrl } from '../text/redact-url.js';
import type { FieldPath } from '../text/source-locator.js';
import { type AllowedHost, hostEntryOf, isHostAllowed } from './allow-hosts.js';
import { hasEnvRefs, resolveEnvRefs } from './env-refs.js';
import type { HttpToolSpec } from './http-tool.js';
import type { McpServerConfig } from './mcp-config.js';
import { TOOL_NAME_PATTERN } from './tool.js';

export const MAX_TIMEOUT_MS = 3_600_000;
/** A result cap above this would let one tool result fill a model's context many times over. */
export const MAX_RESULT_BYTES_LIMIT = 10_000_000;

export interface SourceBase {
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
  | (SourceBase & { readonly kind: 'mcp'; readonly config: McpServerConfig })
  | (SourceBase & { readonly kind: 'workflow'; readonly spec: WorkflowToolSpec })
  | (SourceBase & { readonly kind: 'simulated'; readonly spec: SimulatedToolSpec });

/** A `simulated` entry as checked (parse-simulated-entry.ts): an API a model answers from this declaration. */
export interface SimulatedToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly timeoutMs?: number;
  readonly maxResultBytes?: number;
}

/**
 * A `workflow` entry as checked (parse-workflow-entry.ts): a distilled workflow file offered as a tool. It is opened
 * by a WorkflowToolsOpener (open-tool-sources.ts), since the interpreter sits above the tools layer.
 */
export interface WorkflowToolSpec {
  /** The tool's name; default: derived from the workflow's own name. */
  readonly name?: string;
  /** Default: the workflow's own description. */
  readonly description?: string;
  /** The workflow file, absolute. */
  readonly workflowPath: string;
  /** As the entry writes it (`file:`). */
  readonly shownFile: string;
  /** How locations name the workflow file: beside the document's name as the user gave it. */
  readonly displayFile: string;
  /** The tools file whose tools the workflow calls; without it, the other tools of the same section. */
  readonly toolsFile?: { readonly path: string; readonly shown: string; readonly display: string };
  /** The deadline of one whole run of the workflow. */
  readonly timeoutMs?: number;
  readonly maxVisits?: number;
  readonly idempotent?: boolean;
  readonly secretArgs?: readonly string[];
  readonly concurrency?: number;
  readonly maxResultBytes?: number;
}

export type Issue = (path: FieldPath, message: string) => void;

export interface EntryContext {
  readonly issue: Issue;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly allowHosts: readonly AllowedHost[] | undefined;
  readonly baseDir: string;
  readonly file: string | undefined;
  readonly locationOf: (path: FieldPath) => SourceLocation;
  /** Problems so far: an entry with a problem yields no source. */
  readonly issueCount: () => number;
}

/** Typed reads of an entry's fields, each reporting its own problem at its path. */
export class Fields {
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

export function shownLocation(location: SourceLocation): string {
  return [location.file ?? 'tools', location.line].filter((part) => part !== undefined).join(':');
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
export function checkHeaderValues(fields: Fields, headers: Readonly<Record<string, string>>): void {
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
