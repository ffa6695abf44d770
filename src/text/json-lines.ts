/** JSON Lines: one JSON value a line. Blank lines are skipped; line numbers are 1-based, as editors count. */
import { findJsonSyntaxError } from './json-syntax.js';

export type JsonLine =
  | { readonly ok: true; readonly line: number; readonly text: string; readonly value: unknown }
  | {
      readonly ok: false;
      readonly line: number;
      readonly text: string;
      readonly column: number;
      readonly message: string;
    };

export function jsonLines(source: string): JsonLine[] {
  const lines: JsonLine[] = [];
  // A byte-order mark is not content.
  (source.startsWith('\uFEFF') ? source.slice(1) : source).split('\n').forEach((raw, index) => {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    const line = index + 1;
    try {
      lines.push({ ok: true, line, text, value: JSON.parse(text) as unknown });
    } catch {
      const error = findJsonSyntaxError(text);
      lines.push({
        ok: false,
        line,
        text,
        column: (error?.offset ?? 0) + 1,
        message: error?.message ?? 'cannot parse',
      });
    }
  });
  return lines;
}
