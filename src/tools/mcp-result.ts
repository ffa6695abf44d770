/**
 * What an MCP tool result becomes for an agent. Pure.
 *
 * - `structuredContent` when the server sent it: it is the JSON the tool's output schema describes.
 * - Otherwise the content as text: text parts as they are, a text resource by its text, and a placeholder for
 *   binary parts (`[image image/png, 1234 bytes]`, whose base64 would only fill the result cap), joined by blank
 *   lines. A single text part that happens to be JSON stays text: the agent reads text either way, and parsing
 *   would turn `"42"` into a number behind the server's back. No content at all is null.
 */
import type { JsonValue } from './tool.js';

interface ContentPart {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly mimeType?: unknown;
  readonly data?: unknown;
  readonly uri?: unknown;
  readonly name?: unknown;
  readonly resource?: { readonly uri?: unknown; readonly text?: unknown; readonly mimeType?: unknown; blob?: unknown };
}

export interface McpCallResult {
  readonly content?: unknown;
  readonly structuredContent?: unknown;
  readonly isError?: unknown;
  /** Servers of the 2024-10-07 protocol answer `toolResult`. */
  readonly toolResult?: unknown;
}

/** At most this much of a server's error text goes into the error the agent sees. */
export const MAX_ERROR_TEXT = 2000;

export function mcpResultValue(result: McpCallResult): JsonValue {
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    return result.structuredContent as JsonValue;
  }
  if (result.content === undefined && result.toolResult !== undefined) return result.toolResult as JsonValue;
  const text = contentText(result.content);
  return text === '' ? null : text;
}

/** The text of an `isError: true` result, cut to MAX_ERROR_TEXT characters. */
export function mcpErrorText(result: McpCallResult): string {
  const text = contentText(result.content).trim() || 'the tool reported an error without a message';
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}… [${text.length} characters]` : text;
}

function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((part: ContentPart) => partText(part))
    .filter((text) => text !== '')
    .join('\n\n');
}

function partText(part: ContentPart): string {
  if (typeof part !== 'object' || part === null) return '';
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? part.text : '';
    case 'image':
    case 'audio':
      return `[${part.type} ${String(part.mimeType ?? 'unknown type')}, ${base64Bytes(part.data)} bytes]`;
    case 'resource': {
      const resource = part.resource ?? {};
      if (typeof resource.text === 'string') return resource.text;
      return `[resource ${String(resource.uri ?? '')}, ${base64Bytes(resource.blob)} bytes]`;
    }
    case 'resource_link':
      return `[resource ${String(part.uri ?? '')}${typeof part.name === 'string' ? ` (${part.name})` : ''}]`;
    default:
      return `[${String(part.type)} content]`;
  }
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
