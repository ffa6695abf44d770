/** An `mcp` entry of a tools section: a server over stdio (command, args, env, cwd) or Streamable HTTP (url, headers). */
import { resolve } from 'node:path';
import type { McpServerConfig } from './mcp-config.js';
import {
  checkHeaderValues,
  displayUrl,
  type EntryContext,
  type Fields,
  MAX_RESULT_BYTES_LIMIT,
  MAX_TIMEOUT_MS,
  type SourceBase,
  type ToolSourceSpec,
} from './tool-entry-fields.js';

export function parseMcpEntry(fields: Fields, base: SourceBase, context: EntryContext): ToolSourceSpec | undefined {
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
